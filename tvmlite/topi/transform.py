"""Injective layout operators: ``reshape``, ``transpose``, ``expand_dims``, ``squeeze``."""
from __future__ import annotations

import math
from typing import Optional, Sequence

from ..te.operation import compute, reduce_axis
from ..te.tensor import Tensor, _dim_equal
from ..tir import op as _op
from ..tir.expr import IntImm, PrimExpr, Var
from . import tag
from .utils import (
    TopiError,
    check_tensors,
    equal_const_int,
    get_const_int,
    parse_layout,
    prod,
    ravel_index,
)
from .utils import unravel_index as _unravel


def _ax(n: int):
    return [f"ax{k}" for k in range(n)]


def _norm_axis(axis: int, ndim: int, what: str) -> int:
    if not -ndim <= axis < ndim:
        raise TopiError(f"{what}: axis {axis} is out of range for {ndim} dimension(s)")
    return axis + ndim if axis < 0 else axis


def reshape(a: Tensor, newshape) -> Tensor:
    """Reshape (row-major); one dimension may be -1 (stage ``T_reshape``)."""
    newshape = [newshape] if isinstance(newshape, int) else list(newshape)
    dims = [_op.convert(d) for d in newshape]
    neg = [k for k, d in enumerate(dims) if isinstance(d, IntImm) and d.value == -1]
    if len(neg) > 1:
        raise TopiError("reshape: only one dimension can be -1")
    total = prod(a.shape)
    if neg:
        known = prod(d for k, d in enumerate(dims) if k != neg[0])
        if isinstance(total, IntImm) and isinstance(known, IntImm):
            if known.value == 0 or total.value % known.value:
                raise TopiError(f"reshape: cannot reshape {list(a.shape)} to {newshape}")
        dims[neg[0]] = _op.floordiv(total, known)
    new_total = prod(dims)
    if isinstance(total, IntImm) and isinstance(new_total, IntImm) and \
            total.value != new_total.value:
        raise TopiError(f"reshape: cannot reshape {list(a.shape)} ({total.value} elements) to "
                         f"{newshape} ({new_total.value} elements)")
    return compute(dims, lambda *i: a(*_unravel(ravel_index(i, dims), a.shape)),
                   name="T_reshape", tag=tag.INJECTIVE, varargs_names=_ax(len(dims)))


def transpose(a: Tensor, axes: Optional[Sequence[int]] = None) -> Tensor:
    """Permute the dimensions (reverse them by default; stage ``T_transpose``)."""
    n = a.ndim
    axes = list(reversed(range(n))) if axes is None else [
        _norm_axis(int(x), n, "transpose") for x in axes]
    if sorted(axes) != list(range(n)):
        raise TopiError(f"transpose: axes {axes} are not a permutation of {n} dimensions")
    shape = [a.shape[k] for k in axes]

    def f(*i):
        idx = [None] * n
        for out_pos, in_dim in enumerate(axes):
            idx[in_dim] = i[out_pos]
        return a(*idx)
    return compute(shape, f, name="T_transpose", tag=tag.INJECTIVE, varargs_names=_ax(n))


def expand_dims(a: Tensor, axis: int, num_newaxis: int = 1) -> Tensor:
    """Insert ``num_newaxis`` unit dimensions at ``axis`` (stage ``T_expand_dims``)."""
    n = a.ndim
    axis = _norm_axis(axis, n + 1, "expand_dims")
    shape = list(a.shape[:axis]) + [1] * num_newaxis + list(a.shape[axis:])

    def f(*i):
        return a(*(list(i[:axis]) + list(i[axis + num_newaxis:])))
    return compute(shape, f, name="T_expand_dims", tag=tag.BROADCAST,
                   varargs_names=_ax(len(shape)))


def squeeze(a: Tensor, axis=None) -> Tensor:
    """Remove unit dimensions (all of them, or those in ``axis``; stage ``T_squeeze``)."""
    n = a.ndim
    if axis is None:
        drop = [k for k, d in enumerate(a.shape) if isinstance(d, IntImm) and d.value == 1]
    else:
        axis = [axis] if isinstance(axis, int) else list(axis)
        drop = sorted(_norm_axis(x, n, "squeeze") for x in axis)
        for k in drop:
            d = a.shape[k]
            if not (isinstance(d, IntImm) and d.value == 1):
                raise TopiError(f"squeeze: dimension {k} has size {d}, not 1")
    keep = [k for k in range(n) if k not in drop]
    shape = [a.shape[k] for k in keep]

    def f(*i):
        idx = [IntImm(a.shape[k].dtype, 0) for k in range(n)]
        for pos, k in enumerate(keep):
            idx[k] = i[pos]
        return a(*idx)
    return compute(shape, f, name="T_squeeze", tag=tag.INJECTIVE, varargs_names=_ax(len(shape)))


__all__ = ["reshape", "transpose", "expand_dims", "squeeze"]


def concatenate(a_tuple, axis: int = 0) -> Tensor:
    """Join the tensors of ``a_tuple`` along ``axis`` (stage ``T_concat``)."""
    tensors = list(a_tuple)
    if not tensors:
        raise TopiError("concatenate needs at least one tensor")
    n = tensors[0].ndim
    axis = _norm_axis(axis, n, "concatenate")
    for j, t in enumerate(tensors[1:], 1):
        if t.ndim != n or t.dtype != tensors[0].dtype:
            raise TopiError("concatenate: tensors must have the same rank and dtype")
        for d in range(n):
            a, b = tensors[0].shape[d], t.shape[d]
            if d != axis and isinstance(a, IntImm) and isinstance(b, IntImm) and \
                    a.value != b.value:
                raise TopiError(f"concatenate: tensor {j} has shape {list(t.shape)}, which "
                                f"differs from tensor 0's {list(tensors[0].shape)} in "
                                f"dimension {d} (only the axis {axis} may differ)")
    sizes = [t.shape[axis] for t in tensors]
    total = sizes[0]
    for s in sizes[1:]:
        total = _op.add(total, s)
    shape = list(tensors[0].shape)
    shape[axis] = total

    def f(*i):
        # tensor k covers [offset_k, offset_k + size_k); later tensors take precedence
        offsets, acc = [], _op.convert(0)
        for s in sizes:
            offsets.append(acc)
            acc = _op.add(acc, s)
        idx = list(i)
        res = None
        for k in range(len(tensors)):
            sub = list(idx)
            sub[axis] = _op.sub(idx[axis], offsets[k])
            val = tensors[k](*sub)
            res = val if res is None else _op.if_then_else(
                _op.ge(idx[axis], offsets[k]), val, res)
        return res
    return compute(shape, f, name="T_concat", tag=tag.INJECTIVE, varargs_names=_ax(n))


__all__ += ["concatenate"]


def split(ary: Tensor, indices_or_sections, axis: int = 0) -> list:
    """Split ``ary`` along ``axis`` into equal ``sections`` or at ``indices``; a list of
    ``T_split`` / ``T_split_sections`` stages."""
    n = ary.ndim
    axis = _norm_axis(axis, n, "split")
    size = get_const_int(ary.shape[axis])
    if isinstance(indices_or_sections, int):
        sec = indices_or_sections
        if sec <= 0 or size % sec:
            raise TopiError(f"split: {sec} sections do not divide dimension {axis} of size "
                            f"{size}")
        bounds = [size // sec * k for k in range(sec + 1)]
        name = "T_split_sections"
    else:
        idx = [get_const_int(x) for x in indices_or_sections]
        if any(b < a for a, b in zip(idx, idx[1:])) or any(x < 0 or x > size for x in idx):
            raise TopiError(f"split: indices {idx} must be sorted and within [0, {size}]")
        bounds = [0] + idx + [size]
        name = "T_split"
    def piece(lo: int, hi: int) -> Tensor:
        shape = list(ary.shape)
        shape[axis] = hi - lo

        def f(*i):
            idx = list(i)
            idx[axis] = i[axis] + lo
            return ary(*idx)
        return compute(shape, f, name=name, tag=tag.INJECTIVE, varargs_names=_ax(n))
    return [piece(lo, hi) for lo, hi in zip(bounds, bounds[1:])]


def take(a: Tensor, indices, axis: Optional[int] = None, batch_dims: int = 0,
         mode: str = "clip") -> Tensor:
    """Gather ``a`` at ``indices`` (a Tensor or a constant) along ``axis`` (the flattened
    ``a`` when None). ``mode`` "clip" clamps out-of-range indices, "wrap" wraps them and
    "fast" assumes them in range (stage ``T_take``)."""
    if mode not in ("clip", "wrap", "fast"):
        raise TopiError(f"take: mode must be 'clip', 'wrap' or 'fast', got {mode!r}")
    if batch_dims:
        raise TopiError("take: batch_dims other than 0 are not supported")
    if isinstance(indices, Tensor):
        ishape = list(indices.shape)

        def index(ii):
            return indices(*ii)
    else:
        ishape = []
        const = _op.convert(indices)

        def index(ii):
            return const

    def fix(v, n):
        v = _op.cast("int32", v) if v.dtype != "int32" else v
        if mode == "clip":
            return _op._min(_op._max(v, 0), _op.sub(n, 1))
        if mode == "wrap":
            return _op.floormod(v, n)
        return v
    if axis is None:
        total = prod(a.shape)
        return compute(ishape, lambda *i: a(*_unravel(fix(index(i), total), a.shape)),
                       name="T_take", tag=tag.INJECTIVE, varargs_names=_ax(len(ishape)))
    axis = _norm_axis(axis, a.ndim, "take")
    m = len(ishape)
    shape = list(a.shape[:axis]) + ishape + list(a.shape[axis + 1:])

    def g(*i):
        pos = fix(index(i[axis:axis + m]), a.shape[axis])
        return a(*(list(i[:axis]) + [pos] + list(i[axis + m:])))
    return compute(shape, g, name="T_take", tag=tag.INJECTIVE, varargs_names=_ax(len(shape)))


def strided_slice(a: Tensor, begin, end, strides=None, axes=None,
                  slice_mode: str = "end") -> Tensor:
    """``a[begin:end:strides]`` per axis, numpy semantics (negative indices count from the
    end; ``slice_mode="size"`` reads ``end`` as sizes, -1 meaning to the end). Stage
    ``T_strided_slice``. When ``begin``, ``end`` or ``strides`` is a Tensor (read at run
    time) see :func:`_dynamic_strided_slice`."""
    if any(isinstance(x, Tensor) for x in (begin, end, strides)):
        if axes is not None:
            raise TopiError("strided_slice: axes are not supported with a Tensor begin, end or "
                            "strides (dynamic strided slice)")
        return _dynamic_strided_slice(a, begin, end, strides)
    n = a.ndim
    axes = list(range(n)) if axes is None else [_norm_axis(int(x), n, "strided_slice")
                                                for x in axes]
    def ints(xs):  # None entries take the default of their axis
        return [None if x is None else int(x) for x in xs]
    begin, end = ints(begin), ints(end)
    strides = [1] * len(axes) if strides is None else [1 if x is None else int(x)
                                                        for x in strides]
    strides += [1] * (len(axes) - len(strides))
    begin += [None] * (len(axes) - len(begin))
    if slice_mode not in ("end", "size"):
        raise TopiError(f"strided_slice: slice_mode must be 'end' or 'size', got {slice_mode}")
    starts, steps, shape = [0] * n, [1] * n, list(a.shape)
    for k, ax in enumerate(axes):
        size, s = get_const_int(a.shape[ax]), strides[k]
        if s == 0:
            raise TopiError(f"strided_slice: stride 0 on axis {ax}")
        if slice_mode == "size":
            s = 1
            lo = 0 if begin[k] is None else begin[k] + size if begin[k] < 0 else begin[k]
            hi = size if k >= len(end) or end[k] is None or end[k] < 0 else lo + end[k]
            lo, hi = min(max(lo, 0), size), min(max(hi, 0), size)
        else:
            hi_default = size if s > 0 else -size - 1
            hi = end[k] if k < len(end) and end[k] is not None else hi_default
            lo, hi, s = slice(begin[k], hi, s).indices(size)
        count = max(0, -(-(hi - lo) // s)) if s > 0 else max(0, -(-(lo - hi) // -s))
        starts[ax], steps[ax], shape[ax] = lo, s, count
    return compute(shape, lambda *i: a(*[starts[d] + i[d] * steps[d] for d in range(n)]),
                   name="T_strided_slice", tag=tag.INJECTIVE, varargs_names=_ax(n))


def _elements(x, n: int, op: str, arg: str) -> list:
    """The ``n`` entries of a 1-D int Tensor (loads) or of a list (constants), as int32."""
    if isinstance(x, Tensor):
        _int_dtype(x, op, arg)
        if x.ndim != 1 or get_const_int(x.shape[0]) != n:
            raise TopiError(f"{op}: {arg} must be a 1-D Tensor of {n} entries, got shape "
                            f"{list(x.shape)}")
        return [_op.cast("int32", x[k]) for k in range(n)]
    vals = _ints(x, op, arg)
    if len(vals) != n:
        raise TopiError(f"{op}: {arg} must have {n} entries, got {vals}")
    return [_op.const(v, "int32") for v in vals]


def _slice_bounds(b, e, st, size):
    """numpy's normalization of one slice ``b:e:st`` over ``size`` elements at run time:
    negative ``b`` and ``e`` count from the end, then are clamped to ``[0, size]`` (positive
    ``st``) or ``[-1, size - 1]`` (negative ``st``); None means the whole extent."""
    pos = _op.gt(st, 0)
    size = _op.cast("int32", size)
    lo_clip = _op.if_then_else(pos, _op.const(0, "int32"), _op.const(-1, "int32"))
    hi_clip = _op.if_then_else(pos, size, _op.sub(size, 1))

    def norm(x, default):
        if x is None:
            return default
        x = _op.if_then_else(_op.lt(x, 0), _op.add(x, size), x)
        return _op._min(_op._max(x, lo_clip), hi_clip)
    return norm(b, _op.if_then_else(pos, _op.const(0, "int32"), _op.sub(size, 1))), \
        norm(e, _op.if_then_else(pos, size, _op.const(-1, "int32")))


def _dynamic_strided_slice(a: Tensor, begin, end, strides) -> Tensor:
    """``a[begin:end:strides]`` on the leading ``len(begin)`` axes, the bounds read at run time
    (stage ``T_strided_slice_dynamic``). Each sliced dimension is a fresh variable ``dim``, as
    classic: the caller's output array gives it (its size must be the slice's; reads stay
    inside the input whatever it is)."""
    op = "strided_slice"
    k = get_const_int(begin.shape[0]) if isinstance(begin, Tensor) else len(list(begin))
    if k > a.ndim:
        raise TopiError(f"{op}: {k} begin indices for {a.ndim} dimensions")
    b = _elements(begin, k, op, "begin")
    e = _elements(end, k, op, "end")
    st = [_op.const(1, "int32")] * k if strides is None else _elements(strides, k, op,
                                                                       "strides")
    lo = [_slice_bounds(b[d], e[d], st[d], a.shape[d])[0] for d in range(k)]
    shape = [Var("dim", "int32") for _ in range(k)] + list(a.shape[k:])

    def f(*i):
        # clamped into the input: an output array larger than the slice reads repeated
        # edge elements, never outside the input
        idx = [_op._min(_op._max(_op.add(_op.mul(i[d], st[d]), lo[d]), 0),
                        _op.sub(_op.cast("int32", a.shape[d]), 1)) for d in range(k)]
        return a(*idx, *i[k:])
    return compute(shape, f, name="T_strided_slice_dynamic", tag=tag.INJECTIVE,
                   varargs_names=_ax(a.ndim))


def strided_set(a: Tensor, v: Tensor, begin: Tensor, end: Tensor,
                strides: Optional[Tensor] = None) -> Tensor:
    """``a`` with the slice ``a[begin:end:strides]`` (numpy semantics, read at run time)
    replaced by ``v`` (stage ``strided_set``, tag "injective,strided_set").

    Parameters
    ----------
    a : Tensor
        The tensor to update.
    v : Tensor
        The values, of the slice's shape.
    begin, end : Tensor
        1-D int32, one entry per leading dimension sliced (the others are whole).
    strides : Optional[Tensor]
        1-D int32 (default all 1); a negative stride walks its dimension backwards.
    """
    op = "strided_set"
    a, v = _tensor(a, op, "a"), _tensor(v, op, "v")
    n = a.ndim
    args = {"begin": begin, "end": end, "strides": strides}
    for name, t in args.items():
        if t is None:
            continue
        if not isinstance(t, Tensor) or t.ndim != 1:
            raise TopiError(f"{op}: {name} should be a vector (a 1-D Tensor), got {t!r}")
        if t.dtype != "int32":
            raise TopiError(f"{op}: {name} should be int32, got {t.dtype}")
        if get_const_int(t.shape[0]) > n:
            raise TopiError(f"{op}: {name} has more entries than the {n} dimensions of a")
    if v.ndim != n:
        raise TopiError(f"{op}: v must have a's {n} dimensions, got {v.ndim}")

    def entry(t, d):
        return t[d] if t is not None and d < get_const_int(t.shape[0]) else None
    steps = [entry(strides, d) for d in range(n)]
    steps = [_op.const(1, "int32") if x is None else x for x in steps]
    bounds = [_slice_bounds(entry(begin, d), entry(end, d), steps[d], a.shape[d])
              for d in range(n)]

    def f(*i):
        inside, src = [], []
        for d in range(n):
            (lo, hi), st = bounds[d], steps[d]
            pos = _op.gt(st, 0)
            dist = _op.if_then_else(pos, _op.sub(i[d], lo), _op.sub(lo, i[d]))
            step = _op.if_then_else(pos, st, _op.sub(0, st))
            in_range = _op.if_then_else(pos, _op.logical_and(_op.ge(i[d], lo), _op.lt(i[d], hi)),
                                        _op.logical_and(_op.le(i[d], lo), _op.gt(i[d], hi)))
            inside.append(_op.logical_and(in_range, _op.eq(_op.floormod(dist, step), 0)))
            # clamped into v so that the load is in bounds where it is not selected
            src.append(_op._min(_op._max(_op.floordiv(dist, step), 0), _op.sub(v.shape[d], 1)))
        return _op.if_then_else(_op.all(*inside), v(*src), a(*i))
    return compute(a.shape, f, name="strided_set", tag=tag.INJECTIVE + ",strided_set",
                   varargs_names=_ax(n))


def adv_index(data: Tensor, indices: Sequence[Tensor]) -> Tensor:
    """numpy advanced indexing ``data[indices[0], indices[1], ...]``: the index tensors
    broadcast together to shape ``B``; the result is ``B + data.shape[len(indices):]``
    (stage ``advanced_index``). Negative indices count from the end; indices still outside
    their dimension are clamped into it (numpy would raise).

    Parameters
    ----------
    data : Tensor
        The source.
    indices : list of Tensor
        Integer index tensors, one for each leading dimension of ``data`` indexed.
    """
    from .broadcast import _bcast_index, broadcast_shape

    op = "adv_index"
    data = _tensor(data, op, "data")
    indices = [_tensor(t, op, "indices") for t in indices]
    if not indices or len(indices) > data.ndim:
        raise TopiError(f"{op}: too many indices for data: {len(indices)} for {data.ndim} "
                        f"dimensions" if indices else f"{op}: no indices")
    for t in indices:
        _int_dtype(t, op, "indices")
    bshape = list(indices[0].shape)
    for t in indices[1:]:
        try:
            bshape = list(broadcast_shape(bshape, t.shape))
        except ValueError as e:
            raise TopiError(f"{op}: the index shapes do not broadcast: {e}") from e
    m = len(bshape)
    shape = bshape + list(data.shape[len(indices):])

    def f(*i):
        src = []
        for d, t in enumerate(indices):
            x = t(*_bcast_index(t, bshape, i[:m]))
            if t.dtype not in ("int32", "int64"):
                x = _op.cast("int32", x)
            n = _op.cast(x.dtype, data.shape[d])
            if t.dtype.startswith("int"):  # signed: numpy's negative indices
                x = _op.if_then_else(_op.lt(x, 0), _op.add(x, n), x)
            src.append(_op._min(_op._max(x, 0), _op.sub(n, 1)))  # never outside data
        return data(*src, *i[m:])
    return compute(shape, f, name="advanced_index", tag=tag.INJECTIVE,
                   varargs_names=_ax(len(shape)))


def where(condition, x, y) -> Tensor:
    """``x`` where ``condition`` is non-zero, else ``y``, with numpy broadcasting of all
    three (each may be a Tensor or a scalar; stage ``T_where``)."""
    from .broadcast import _bcast_index, broadcast_shape

    tensors = [t for t in (condition, x, y) if isinstance(t, Tensor)]
    if not tensors:
        raise TopiError("where: at least one of condition, x, y must be a Tensor")
    shape = list(tensors[0].shape)
    for t in tensors[1:]:
        shape = list(broadcast_shape(shape, t.shape))
    dtype = (x if isinstance(x, Tensor) else y if isinstance(y, Tensor) else None)
    dtype = dtype.dtype if dtype is not None else _op.convert(x).dtype

    def val(t, i, dt=None):
        if isinstance(t, Tensor):
            return t(*_bcast_index(t, shape, i))
        return _op.const(t, dt) if dt else _op.convert(t)

    def f(*i):
        c = val(condition, i)
        cond = c if c.dtype == "bool" else _op.ne(c, _op.const(0, c.dtype))
        return _op.if_then_else(cond, _op.cast(dtype, val(x, i, dtype)),
                                _op.cast(dtype, val(y, i, dtype)))
    return compute(shape, f, name="T_where", tag=tag.BROADCAST, varargs_names=_ax(len(shape)))


def layout_transform(array: Tensor, src_layout: str, dst_layout: str,
                     schedule_rule: str = "None") -> Tensor:
    """Re-layout ``array`` from ``src_layout`` to ``dst_layout`` ("NCHW" <-> "NCHW8c",
    "OIHW" -> "OIHW4i8o", ...); padded tail elements are 0 (stage ``T_layout_trans``)."""
    src = parse_layout(src_layout, "layout_transform", "source")
    dst = parse_layout(dst_layout, "layout_transform", "destination")
    if len(src) != array.ndim:
        raise TopiError(f"layout_transform: {src_layout!r} has {len(src)} axes, the tensor "
                        f"{array.ndim}")
    if sorted(c.upper() for c, b in src if b is None) != \
            sorted(c.upper() for c, b in dst if b is None):
        raise TopiError(f"layout_transform: {src_layout!r} and {dst_layout!r} have different "
                        "primal axes")
    sub_src = {c.upper(): b for c, b in src if b is not None}
    sub_dst = {c.upper(): b for c, b in dst if b is not None}
    # the full extent of each primal axis
    full = {}
    for (c, b), dim in zip(src, array.shape):
        d = get_const_int(dim)
        if b is None:
            full[c] = full.get(c, 1) * d if c in sub_src else d
    for c, b in sub_src.items():
        full[c] = get_const_int(array.shape[[x for x, _ in src].index(c)]) * b
    shape = []
    for c, b in dst:
        if b is not None:
            shape.append(b)
        elif c in sub_dst:
            shape.append(-(-full[c] // sub_dst[c]))
        else:
            shape.append(full[c])

    def f(*i):
        pos = {c: i[k] for k, (c, _) in enumerate(dst)}
        value, conds = {}, []
        for c, b in dst:
            if b is None:
                value[c] = pos[c] * sub_dst[c] + pos[c.lower()] if c in sub_dst else pos[c]
                if c in sub_dst and full[c] % sub_dst[c]:
                    conds.append(_op.lt(value[c], full[c]))
        idx = []
        for c, b in src:
            if b is not None:
                idx.append(value[c.upper()] % b)
            elif c in sub_src:
                idx.append(value[c] // sub_src[c])
            else:
                idx.append(value[c])
        if conds:
            safe = [_op._min(x, get_const_int(d) - 1) for x, d in zip(idx, array.shape)]
            return _op.if_then_else(_op.all(*conds), array(*safe),
                                    _op.const(0, array.dtype))
        return array(*idx)
    return compute(shape, f, name="T_layout_trans", tag=tag.INJECTIVE,
                   varargs_names=_ax(len(shape)))


__all__ += ["split", "take", "strided_slice", "strided_set", "adv_index", "where",
            "layout_transform"]


def _tensor(t, op: str, arg: str) -> Tensor:
    check_tensors(op, **{arg: t})
    return t


def _int_dtype(t: Tensor, op: str, arg: str) -> None:
    if not (t.dtype.startswith("int") or t.dtype.startswith("uint")):
        raise TopiError(f"{op}: {arg} must have an integer dtype, got {t.dtype}")


def _ints(x, op: str, arg: str) -> list:
    x = [x] if isinstance(x, (int, IntImm)) else list(x)
    try:
        return [get_const_int(v) for v in x]
    except ValueError as e:
        raise TopiError(f"{op}: {arg} must be constant integers, got {x!r}") from e


def _select_chain(key, values):
    """``values[k]`` where ``key == k`` (the last value elsewhere)."""
    res = values[-1]
    for k in range(len(values) - 2, -1, -1):
        res = _op.if_then_else(_op.eq(key, k), values[k], res)
    return res


def stack(a: Sequence[Tensor], axis: int) -> Tensor:
    """Join tensors of one shape along a new dimension ``axis`` (stage ``T_stack``).

    Parameters
    ----------
    a : list of Tensor
        The tensors, all of the same shape and dtype.
    axis : int
        Where the new dimension goes, in ``[-ndim - 1, ndim]``.
    """
    op = "stack"
    tensors = [_tensor(t, op, "a") for t in a]
    if not tensors:
        raise TopiError(f"{op}: a must hold at least one tensor")
    first = tensors[0]
    for j, t in enumerate(tensors[1:], 1):
        if t.dtype != first.dtype or t.ndim != first.ndim or not all(
                _dim_equal(x, y) for x, y in zip(t.shape, first.shape)):
            raise TopiError(f"{op}: tensor {j} has shape {list(t.shape)} ({t.dtype}), tensor 0 "
                            f"{list(first.shape)} ({first.dtype})")
    axis = _norm_axis(axis, first.ndim + 1, op)
    shape = list(first.shape[:axis]) + [len(tensors)] + list(first.shape[axis:])

    def f(*i):
        rest = list(i[:axis]) + list(i[axis + 1:])
        return _select_chain(i[axis], [t(*rest) for t in tensors])
    return compute(shape, f, name="T_stack", tag=tag.INJECTIVE, varargs_names=_ax(len(shape)))


def tile(a: Tensor, reps) -> Tensor:
    """Repeat the whole tensor ``reps[d]`` times along each dimension, as ``numpy.tile``
    (stage ``T_tile``, tag "broadcast"; a zero in ``reps`` gives an empty tensor).

    Parameters
    ----------
    a : Tensor
        The tensor to tile.
    reps : list of int
        Repetitions per dimension (aligned to the right with ``a``'s dimensions).
    """
    op = "tile"
    a = _tensor(a, op, "a")
    reps = _ints(reps, op, "reps")
    if not reps or any(r < 0 for r in reps):
        raise TopiError(f"{op}: reps must be non-negative integers, got {reps}")
    n, r = a.ndim, len(reps)
    dshape = [1] * (r - n) + list(a.shape)
    reps = [1] * (n - r) + reps
    shape = [_op.mul(d, k) for d, k in zip(dshape, reps)]
    if 0 in reps or any(equal_const_int(d, 0) for d in a.shape):  # empty: nothing is read
        return compute(shape, lambda *i: _op.const(0, a.dtype), name="T_tile",
                       tag=tag.BROADCAST, varargs_names=_ax(len(shape)))
    off = len(shape) - n
    return compute(shape, lambda *i: a(*[_op.floormod(i[off + d], a.shape[d]) for d in range(n)]),
                   name="T_tile", tag=tag.BROADCAST, varargs_names=_ax(len(shape)))


def repeat(a: Tensor, repeats: int, axis: int) -> Tensor:
    """Repeat each element ``repeats`` times along ``axis``, as ``numpy.repeat`` (stage
    ``T_repeat``, tag "broadcast").

    Parameters
    ----------
    a : Tensor
        The tensor.
    repeats : int
        How many times each element appears (at least 1).
    axis : int
        The axis to repeat along.
    """
    op = "repeat"
    a = _tensor(a, op, "a")
    repeats = _ints(repeats, op, "repeats")
    if len(repeats) != 1 or repeats[0] < 1:
        raise TopiError(f"{op}: repeats must be an integer >= 1, got {repeats}")
    rep = repeats[0]
    axis = _norm_axis(axis, a.ndim, op)
    shape = list(a.shape)
    shape[axis] = _op.mul(shape[axis], rep)

    def f(*i):
        idx = list(i)
        idx[axis] = _op.floordiv(i[axis], rep)
        return a(*idx)
    return compute(shape, f, name="T_repeat", tag=tag.BROADCAST, varargs_names=_ax(len(shape)))


def reverse_sequence(a: Tensor, seq_lengths: Optional[Tensor], seq_axis: int = 1,
                     batch_axis: int = 0) -> Tensor:
    """Reverse the first ``seq_lengths[b]`` elements along ``seq_axis`` of each batch ``b``
    (along ``batch_axis``); lengths <= 1 leave a sequence as is, lengths past the end reverse
    all of it. Without ``seq_lengths`` the whole axis is reversed. Stage
    ``T_reverse_sequence``.

    Parameters
    ----------
    a : Tensor
        The tensor.
    seq_lengths : Tensor or None
        1-D, one length per batch (the extent of ``batch_axis``).
    seq_axis, batch_axis : int
        The sequence and the batch axes.
    """
    op = "reverse_sequence"
    a = _tensor(a, op, "a")
    n = a.ndim
    seq_axis = _norm_axis(seq_axis, n, op)
    if seq_lengths is not None:
        seq_lengths = _tensor(seq_lengths, op, "seq_lengths")
        batch_axis = _norm_axis(batch_axis, n, op)
        if seq_lengths.ndim != 1:
            raise TopiError(f"{op}: seq_lengths must be 1-D, got shape "
                            f"{list(seq_lengths.shape)}")
        if not _dim_equal(seq_lengths.shape[0], a.shape[batch_axis]):  # classic's words
            raise TopiError(f"{op}: For reverse_sequnece seq_lengths size should match with "
                            f"dimension of batch axis, but got dimension of batch_axis = "
                            f"{a.shape[batch_axis]}, and seq_length size = "
                            f"{seq_lengths.shape[0]}")
        _int_dtype(seq_lengths, op, "seq_lengths")
    size = a.shape[seq_axis]

    def f(*i):
        idx = list(i)
        j = i[seq_axis]
        if seq_lengths is None:
            idx[seq_axis] = _op.sub(_op.sub(size, 1), j)
            return a(*idx)
        ln = _op.cast(j.dtype, seq_lengths(i[batch_axis]))
        rev = _op.if_then_else(_op.gt(ln, size), _op.sub(_op.sub(size, 1), j),
                               _op.sub(_op.sub(ln, 1), j))
        idx[seq_axis] = _op.if_then_else(_op.logical_or(_op.le(ln, 1), _op.le(ln, j)), j, rev)
        return a(*idx)
    return compute(a.shape, f, name="T_reverse_sequence", tag=tag.INJECTIVE,
                   varargs_names=_ax(n))


def flip(a: Tensor, axis: int = 0) -> Tensor:
    """Reverse ``a`` along ``axis`` (stage ``T_reverse_sequence``)."""
    return reverse_sequence(a, None, axis)


def gather(data: Tensor, axis: int, indices: Tensor) -> Tensor:
    """``out[i..., j, k...] = data[i..., indices[i..., j, k...], k...]`` along ``axis``
    (``numpy.take_along_axis``; stage ``T_gather``). Indices are not checked.

    Parameters
    ----------
    data : Tensor
        The source.
    axis : int
        The axis to gather along.
    indices : Tensor
        Integer indices, of ``data``'s rank.
    """
    op = "gather"
    data, indices = _tensor(data, op, "data"), _tensor(indices, op, "indices")
    if data.ndim < 1 or data.ndim != indices.ndim:
        raise TopiError(f"{op}: indices must have data's rank {data.ndim} (>= 1), got "
                        f"{indices.ndim}")
    _int_dtype(indices, op, "indices")
    axis = _norm_axis(axis, data.ndim, op)

    def f(*i):
        idx = list(i)
        idx[axis] = indices(*i)
        return data(*idx)
    return compute(indices.shape, f, name="T_gather", tag=tag.INJECTIVE,
                   varargs_names=_ax(indices.ndim))


def gather_nd(a: Tensor, indices: Tensor, batch_dims: int = 0) -> Tensor:
    """Gather slices of ``a`` at the ``M``-dimensional indices ``indices[:, y...]``: the
    output has shape ``indices.shape[1:] + a.shape[batch_dims + M:]`` (stage ``T_gather_nd``).

    Parameters
    ----------
    a : Tensor
        The source.
    indices : Tensor
        ``(M, Y...)`` indices into the leading dimensions of ``a`` (after ``batch_dims``).
    batch_dims : int
        Leading dimensions of ``a`` and ``indices[0]`` shared by each index.
    """
    op = "gather_nd"
    a, indices = _tensor(a, op, "a"), _tensor(indices, op, "indices")
    if indices.ndim < 1:
        raise TopiError(f"{op}: indices must have at least 1 dimension")
    m = _ints(indices.shape[0], op, "indices.shape[0]")[0]
    if m + batch_dims > a.ndim or batch_dims < 0:
        raise TopiError(f"{op}: indices.shape[0] = {m} (+ batch_dims {batch_dims}) exceeds the "
                        f"{a.ndim} dimensions of a")
    shape = list(indices.shape[1:]) + list(a.shape[m + batch_dims:])
    ni = indices.ndim

    def f(*i):
        idx = list(i[:batch_dims])
        for k in range(m):
            v = indices(k, *i[:ni - 1])
            # the index dtype of a's dimension: an int64 index into an int32-indexed
            # producer inlined here would compare int64 with int32 (vectorized: an error)
            dim = a.shape[batch_dims + k]
            want = dim.dtype if isinstance(dim, PrimExpr) else "int32"
            idx.append(v if v.dtype == want else _op.cast(want, v))
        return a(*(idx + list(i[ni - 1:])))
    return compute(shape, f, name="T_gather_nd", tag=tag.INJECTIVE, varargs_names=_ax(len(shape)))


def one_hot(indices: Tensor, on_value, off_value, depth: int, axis: int, dtype: str) -> Tensor:
    """``on_value`` where the new dimension ``axis`` (of extent ``depth``; -1: last) equals
    ``indices``, ``off_value`` elsewhere (stage ``T_one_hot``).

    Parameters
    ----------
    indices : Tensor
        Integer positions.
    on_value, off_value : PrimExpr or number
        The two values (cast to ``dtype``).
    depth : int
        The extent of the new dimension.
    axis : int
        Where the new dimension goes (-1: last).
    dtype : str
        The output dtype.
    """
    op = "one_hot"
    indices = _tensor(indices, op, "indices")
    depth = _ints(depth, op, "depth")[0]
    if depth < 0:
        raise TopiError(f"{op}: depth must be non-negative, got {depth}")
    n = indices.ndim
    axis = n if axis == -1 else _norm_axis(axis, n + 1, op)
    shape = list(indices.shape[:axis]) + [depth] + list(indices.shape[axis:])
    on = _op.cast(dtype, _op.convert(on_value))
    off = _op.cast(dtype, _op.convert(off_value))

    def f(*i):
        v = indices(*(list(i[:axis]) + list(i[axis + 1:])))
        return _op.if_then_else(_op.eq(v, _op.cast(v.dtype, i[axis])), on, off)
    return compute(shape, f, name="T_one_hot", tag=tag.INJECTIVE, varargs_names=_ax(len(shape)))


def arange(start, stop=None, step=1, dtype: str = "float32") -> Tensor:
    """``start, start + step, ...`` below ``stop`` (``arange(n)`` counts from 0;
    ``ceil((stop - start) / step)`` elements; stage ``T_arange``).

    Parameters
    ----------
    start, stop, step : number or PrimExpr
        The range.
    dtype : str
        The element dtype.
    """
    op = "arange"
    if stop is None:
        start, stop = 0, start
    if isinstance(step, (int, float)) and step == 0:
        raise TopiError(f"{op}: step must not be 0")
    vals = [start, stop, step]
    if all(isinstance(v, (int, float)) for v in vals):
        num = max(0, int(math.ceil((stop - start) / step)))
    else:
        diff = _op.cast("float32", _op.sub(_op.convert(stop), _op.convert(start)))
        num = _op.cast("int32", _op.ceil(_op.div(diff, _op.cast("float32", _op.convert(step)))))

    def f(i):
        if all(isinstance(v, (int, float)) for v in (start, step)):
            if isinstance(start, int) and isinstance(step, int):
                return _op.cast(dtype, _op.add(start, _op.mul(step, i)))
            return _op.cast(dtype, _op.add(_op.const(float(start), "float64"),
                                           _op.mul(_op.const(float(step), "float64"),
                                                   _op.cast("float64", i))))
        return _op.cast(dtype, _op.add(start, _op.mul(step, i)))
    return compute([num], f, name="T_arange", tag=tag.INJECTIVE, varargs_names=_ax(1))


def matmul(a: Tensor, b: Tensor, transp_a: bool = False, transp_b: bool = False) -> Tensor:
    """Matrix product of 2-D ``a`` (or its transpose) and ``b`` (or its transpose) (stage
    ``T_matmul``, tag "matmul")."""
    return _matmul(a, b, transp_a, transp_b, None, None, ("matmul", "a", "b"), "T_matmul",
                   "matmul")


def _matmul(a: Tensor, b: Tensor, transp_a: bool, transp_b: bool, bias: Optional[Tensor],
            out_dtype: Optional[str], names: Sequence[str], name: str, tag_: str) -> Tensor:
    """The 2-D matrix product ``op(a) @ op(b) (+ bias)`` shared by ``topi.matmul``,
    ``topi.nn.matmul`` and ``topi.nn.dense``: a reduction stage ``name`` (tag ``tag_``) that
    multiplies in ``out_dtype`` (default: a's), then a broadcast stage adding the 1-D bias.
    ``names`` are the operator's and its operands' names, for the errors."""
    op, an, bn = names
    a, b = _tensor(a, op, an), _tensor(b, op, bn)
    if a.ndim != 2 or b.ndim != 2:
        raise TopiError(f"{op}: {an} and {bn} must be 2-D, got {a.ndim}-D and {b.ndim}-D")
    out_dtype = out_dtype or a.dtype
    ka, kb = a.shape[0 if transp_a else 1], b.shape[1 if transp_b else 0]
    if not _dim_equal(ka, kb):
        raise TopiError(f"{op}: the reduced dimensions differ: {an} has {ka} input features "
                        f"but {bn} has {kb}")
    shape = (a.shape[1 if transp_a else 0], b.shape[0 if transp_b else 1])
    k = reduce_axis((0, ka), name="k")

    def f(i, j):
        x = a[k, i] if transp_a else a[i, k]
        y = b[j, k] if transp_b else b[k, j]
        return _op.sum(_op.mul(x.astype(out_dtype), y.astype(out_dtype)), axis=k)
    mat = compute(shape, f, name=name, tag=tag_)
    if bias is None:
        return mat
    if not isinstance(bias, Tensor) or bias.ndim != 1 or not _dim_equal(bias.shape[0], shape[1]):
        raise TopiError(f"{op}: bias must be a 1-D Tensor of length {shape[1]}, got {bias!r}")
    return compute(shape, lambda i, j: _op.add(mat[i, j], bias[j].astype(out_dtype)),
                   tag=tag.BROADCAST)


def tensordot(a: Tensor, b: Tensor, axes) -> Tensor:
    """Sum of products over the last ``axes`` dimensions of ``a`` and the first of ``b``, or
    over the paired axes ``axes = (a_axes, b_axes)`` (``numpy.tensordot``; stage
    ``T_tensordot``, tag "matmul")."""
    op = "tensordot"
    a, b = _tensor(a, op, "a"), _tensor(b, op, "b")
    if isinstance(axes, int):
        if axes < 0 or axes > a.ndim or axes > b.ndim:
            raise TopiError(f"{op}: axes={axes} exceeds the ranks {a.ndim} and {b.ndim}")
        a_axes, b_axes = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        if len(axes) != 2:
            raise TopiError(f"{op}: axes must be an int or (a_axes, b_axes), got {axes!r}")
        a_axes = [_norm_axis(x, a.ndim, op) for x in _ints(axes[0], op, "axes")]
        b_axes = [_norm_axis(x, b.ndim, op) for x in _ints(axes[1], op, "axes")]
        if len(a_axes) != len(b_axes) or len(set(a_axes)) != len(a_axes) or \
                len(set(b_axes)) != len(b_axes):
            raise TopiError(f"{op}: axes must pair distinct axes of a and b, got {axes!r}")
    for x, y in zip(a_axes, b_axes):
        if not _dim_equal(a.shape[x], b.shape[y]):
            raise TopiError(f"{op}: a's axis {x} ({a.shape[x]}) and b's axis {y} "
                            f"({b.shape[y]}) differ")
    ka = [d for d in range(a.ndim) if d not in a_axes]
    kb = [d for d in range(b.ndim) if d not in b_axes]
    shape = [a.shape[d] for d in ka] + [b.shape[d] for d in kb]
    rs = [reduce_axis((0, b.shape[d]), name=f"k{n}") for n, d in enumerate(b_axes)]

    def f(*i):
        ia, ib = [None] * a.ndim, [None] * b.ndim
        for pos, d in enumerate(ka):
            ia[d] = i[pos]
        for pos, d in enumerate(kb):
            ib[d] = i[len(ka) + pos]
        for r, x, y in zip(rs, a_axes, b_axes):
            ia[x], ib[y] = r, r
        prod_ = a(*ia) * b(*ib)
        return _op.sum(prod_, axis=rs) if rs else prod_
    return compute(shape, f, name="T_tensordot", tag="matmul", varargs_names=_ax(len(shape)))


__all__ += ["stack", "tile", "repeat", "reverse_sequence", "flip", "gather", "gather_nd",
            "one_hot", "arange", "matmul", "tensordot"]


def sequence_mask(data: Tensor, valid_length: Tensor, mask_value=0, axis: int = 0) -> Tensor:
    """Replace the elements at positions ``>= valid_length[b]`` along the length ``axis``
    (0 or 1; the other of the two is the batch axis) with ``mask_value`` (stage
    ``T_sequence_mask``).

    Parameters
    ----------
    data : Tensor
        ``(length, batch, ...)`` when ``axis`` is 0, ``(batch, length, ...)`` when 1.
    valid_length : Tensor
        1-D, one length per batch.
    mask_value : float
        The value of masked elements.
    axis : int
        The length axis, 0 or 1.
    """
    op = "sequence_mask"
    data = _tensor(data, op, "data")
    valid_length = _tensor(valid_length, op, "valid_length")
    if axis not in (0, 1) or data.ndim < 2:
        raise TopiError(f"{op}: axis must be 0 or 1 of a tensor of rank >= 2, got axis {axis} "
                        f"for rank {data.ndim}")
    if valid_length.ndim != 1 or not _dim_equal(valid_length.shape[0], data.shape[1 - axis]):
        raise TopiError(f"{op}: valid_length must be 1-D of length {data.shape[1 - axis]}, "
                        f"got shape {list(valid_length.shape)}")
    value = _op.const(mask_value, data.dtype)

    def f(*i):
        ln = valid_length(i[1 - axis])
        return _op.if_then_else(_op.ge(_op.cast(ln.dtype, i[axis]), ln), value, data(*i))
    return compute(data.shape, f, name="T_sequence_mask", tag=tag.INJECTIVE,
                   varargs_names=_ax(data.ndim))


def meshgrid(a_tuple: Sequence[Tensor], indexing: str) -> list:
    """Coordinate grids of 0-D or 1-D tensors: ``indexing`` "ij" (matrix) or "xy"
    (cartesian: the first two dimensions swapped), as ``numpy.meshgrid`` (stages
    ``T_meshgrid``)."""
    op = "meshgrid"
    tensors = [_tensor(t, op, "a_tuple") for t in a_tuple]
    if indexing not in ("ij", "xy"):
        raise TopiError(f"{op}: indexing must be 'ij' or 'xy', got {indexing!r}")
    for t in tensors:
        if t.ndim > 1:
            raise TopiError(f"{op}: inputs must be 0-D or 1-D, got shape {list(t.shape)}")
    xy = indexing == "xy" and len(tensors) >= 2

    def src(k):
        return 1 - k if xy and k < 2 else k
    shape = [tensors[src(k)].shape[0] if tensors[src(k)].ndim else 1
             for k in range(len(tensors))]

    def grid(k):
        t = tensors[k]
        return compute(shape, lambda *i: t(i[src(k)]) if t.ndim else t(), name="T_meshgrid",
                       tag=tag.INJECTIVE, varargs_names=_ax(len(shape)))
    return [grid(k) for k in range(len(tensors))]


def trilu(data: Tensor, k, upper: bool) -> Tensor:
    """Keep the upper (``upper``) or lower triangle of the last two dimensions, from the
    ``k``-th diagonal on (``numpy.triu`` / ``tril``); zero elsewhere (stage ``trilu``, tag
    "elemwise").

    Parameters
    ----------
    data : Tensor
        At least 2-D.
    k : int or PrimExpr
        The diagonal offset (positive: above the main diagonal).
    upper : bool
        Keep the upper triangle (else the lower).
    """
    op = "trilu"
    data = _tensor(data, op, "data")
    if data.ndim < 2:
        raise TopiError(f"{op}: data must be at least 2-D, got {data.ndim}-D")
    k = _op.convert(k)
    if k.dtype != "int32":
        k = _op.cast("int32", k)

    def f(*i):
        row, col = i[-2], i[-1]
        diff = _op.sub(col, k)
        keep = _op.le(row, diff) if upper else _op.ge(row, diff)
        return _op.if_then_else(keep, data(*i), _op.const(0, data.dtype))
    return compute(data.shape, f, name="trilu", tag=tag.ELEMWISE, varargs_names=_ax(data.ndim))


def unravel_index(indices: Tensor, shape: Tensor) -> Tensor:
    """The coordinates in ``shape`` of each flat index: ``(len(shape),)`` for a 0-D
    ``indices``, ``(len(shape), n)`` for a 1-D one (``numpy.unravel_index``; stage
    ``T_unravel``).

    Parameters
    ----------
    indices : Tensor
        0-D or 1-D flat indices.
    shape : Tensor
        1-D, the shape to unravel into (constant length).
    """
    op = "unravel_index"
    indices, shape = _tensor(indices, op, "indices"), _tensor(shape, op, "shape")
    if indices.ndim > 1 or shape.ndim != 1:
        raise TopiError(f"{op}: indices must be 0-D or 1-D and shape 1-D, got "
                        f"{indices.ndim}-D and {shape.ndim}-D")
    nd = _ints(shape.shape[0], op, "shape's length")[0]
    oshape = [shape.shape[0]] + ([indices.shape[0]] if indices.ndim else [])

    def f(*i):
        v = indices(i[1]) if indices.ndim else indices()
        digits = []
        for d in range(nd - 1, -1, -1):
            s = _op.cast(v.dtype, shape(d))
            digits.append(_op.floormod(v, s))
            v = _op.floordiv(v, s)
        digits.reverse()
        return _op.cast(indices.dtype, _select_chain(i[0], digits))
    return compute(oshape, f, name="T_unravel", tag=tag.INJECTIVE, varargs_names=_ax(len(oshape)))


def expand_like(a: Tensor, shape_like: Tensor, axis) -> Tensor:
    """Broadcast ``a`` to ``shape_like``'s shape, ``axis`` naming the new dimensions
    (stage ``compute``).

    Parameters
    ----------
    a : Tensor
        The tensor to expand.
    shape_like : Tensor
        A tensor of the target shape.
    axis : list of int
        The dimensions of the result that ``a`` lacks.
    """
    op = "expand_like"
    a, shape_like = _tensor(a, op, "a"), _tensor(shape_like, op, "shape_like")
    axis = _ints(axis, op, "axis")
    on = shape_like.ndim
    if len(axis) + a.ndim != on:
        if a.ndim == 1 and len(axis) == on:  # a scalar held as a 1-D tensor
            return compute(shape_like.shape, lambda *i: a(0))
        raise TopiError(f"{op}: {len(axis)} new axes and a's {a.ndim} dimensions do not make "
                        f"shape_like's {on}")
    new = sorted({_norm_axis(x, on, op) for x in axis})
    if len(new) != len(axis):
        raise TopiError(f"{op}: axis {axis} repeats a dimension")
    keep = [d for d in range(on) if d not in new]
    for pos, d in enumerate(keep):
        if not _dim_equal(a.shape[pos], shape_like.shape[d]):
            raise TopiError(f"{op}: a's dimension {pos} ({a.shape[pos]}) differs from "
                            f"shape_like's dimension {d} ({shape_like.shape[d]})")
    return compute(shape_like.shape, lambda *i: a(*[i[d] for d in keep]),
                   varargs_names=[f"i{d}" for d in range(on)])


def invert_permutation(data: Tensor) -> Tensor:
    """The inverse of the permutation ``data`` (1-D): ``out[data[i]] = i`` (stage
    ``invert_permutation``)."""
    op = "invert_permutation"
    data = _tensor(data, op, "data")
    if data.ndim != 1:
        raise TopiError(f"{op}: data must be 1-D, got {data.ndim}-D")
    _int_dtype(data, op, "data")
    r = reduce_axis((0, data.shape[0]), name="j")
    zero = _op.const(0, data.dtype)
    return compute(data.shape, lambda i: _op.sum(_op.if_then_else(
        _op.eq(data[r], _op.cast(data.dtype, i)), _op.cast(data.dtype, r.var), zero), axis=[r]),
        name="invert_permutation")


def matrix_set_diag(data: Tensor, diagonal: Tensor, k=0, align: str = "RIGHT_LEFT") -> Tensor:
    """``data`` with its ``k``-th diagonal (or the band ``k = (lo, hi)``) of the last two
    dimensions replaced by ``diagonal``; ``align`` ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT",
    "RIGHT_RIGHT") places short super- and sub-diagonals in a band (stage
    ``T_matrix_set_diag``).

    Parameters
    ----------
    data : Tensor
        ``(..., M, N)``.
    diagonal : Tensor
        ``(..., min(M, N))`` for one diagonal, ``(..., hi - lo + 1, max_len)`` for a band.
    k : int or (int, int)
        The diagonal offset or the band's lowest and highest offsets.
    align : str
        How the super- (first word) and sub-diagonals (second) align in a band.
    """
    op = "matrix_set_diag"
    data, diagonal = _tensor(data, op, "data"), _tensor(diagonal, op, "diagonal")
    ks = _ints(k, op, "k")
    k1, k2 = ks[0], ks[1] if len(ks) > 1 else ks[0]
    if k1 > k2:
        raise TopiError(f"{op}: k[0] = {k1} is larger than k[1] = {k2}")
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise TopiError(f"{op}: bad align {align!r}")
    if data.ndim < 2:
        raise TopiError(f"{op}: data must be at least 2-D, got {data.ndim}-D")
    want = data.ndim - (1 if k1 == k2 else 0)
    if diagonal.ndim != want:
        raise TopiError(f"{op}: diagonal must be {want}-D, got {diagonal.ndim}-D")
    super_right, sub_right = align.startswith("RIGHT"), align.endswith("RIGHT")
    nd = data.ndim - 1
    m, n = data.shape[nd - 1], data.shape[nd]
    maxlen = diagonal.shape[-1]

    def f(*i):
        row, col = i[nd - 1], i[nd]
        d = _op.sub(col, row)
        didx = list(i[:nd - 1])
        if k1 == k2:
            kk, offset = _op.convert(k1), _op.convert(0)
        else:
            kk = d
            didx.append(_op.sub(k2, kk))

            def pad(rows, cols):
                return _op.sub(maxlen, _op._min(rows, cols))
            offset = _op.if_then_else(
                _op.ge(kk, 0), pad(_op.sub(n, kk), m) if super_right else _op.convert(0),
                pad(n, _op.add(m, kk)) if sub_right else _op.convert(0))
        didx.append(_op.add(_op.if_then_else(_op.ge(kk, 0), row, col), offset))
        inside = _op.logical_and(_op.ge(d, k1), _op.le(d, k2))
        return _op.if_then_else(inside, diagonal(*didx), data(*i))
    return compute(data.shape, f, name="T_matrix_set_diag", tag=tag.INJECTIVE,
                   varargs_names=_ax(data.ndim))


def sliding_window(data: Tensor, axis: int, window_shape, strides) -> Tensor:
    """Windows of ``window_shape`` slid with ``strides`` over the dimensions from ``axis``
    on: shape ``data.shape[:axis] + (number of windows per dimension) + window_shape``
    (stage ``T_sliding_window``).

    Parameters
    ----------
    data : Tensor
        The input.
    axis : int
        The first windowed dimension (non-negative).
    window_shape, strides : list of int
        One per dimension from ``axis`` to the last.
    """
    op = "sliding_window"
    data = _tensor(data, op, "data")
    if not 0 <= axis < data.ndim:
        raise TopiError(f"{op}: axis {axis} is out of range for {data.ndim} dimension(s)")
    window, strides = _ints(window_shape, op, "window_shape"), _ints(strides, op, "strides")
    nw = data.ndim - axis
    if len(window) != nw or len(strides) != nw:
        raise TopiError(f"{op}: window_shape and strides need {nw} entries (one per dimension "
                        f"from axis {axis}), got {window} and {strides}")
    if any(s <= 0 for s in strides) or any(w <= 0 for w in window):
        raise TopiError(f"{op}: window_shape and strides must be positive, got {window} and "
                        f"{strides}")
    for w, d in zip(window, data.shape[axis:]):
        if isinstance(_op.convert(d), IntImm) and w > get_const_int(d):
            raise TopiError(f"{op}: window {window} does not fit the shape {list(data.shape)}")
    counts = [_op.floordiv(_op.add(_op.sub(d, w - 1), s - 1), s)
              for d, w, s in zip(data.shape[axis:], window, strides)]
    shape = list(data.shape[:axis]) + counts + window

    def f(*i):
        idx = list(i[:axis])
        for k in range(nw):
            idx.append(i[axis + k] * strides[k] + i[axis + nw + k])
        return data(*idx)
    return compute(shape, f, name="T_sliding_window", varargs_names=_ax(len(shape)))


def sparse_to_dense(sparse_indices: Tensor, output_shape, sparse_values, default_value=0
                    ) -> Tensor:
    """A dense tensor of ``output_shape`` holding ``sparse_values[j]`` at
    ``sparse_indices[j]`` and ``default_value`` elsewhere (later indices win; stage
    ``T_sparse_to_dense``).

    Parameters
    ----------
    sparse_indices : Tensor
        0-D, 1-D ``(n,)`` or 2-D ``(n, ndim)`` integer positions (constant ``n``).
    output_shape : list of int
        The dense shape.
    sparse_values : Tensor
        0-D (one value for all) or 1-D ``(n,)``.
    default_value : Tensor or number
        The value elsewhere (a 0-D tensor or a scalar).
    """
    op = "sparse_to_dense"
    sparse_indices = _tensor(sparse_indices, op, "sparse_indices")
    sparse_values = _tensor(sparse_values, op, "sparse_values")
    _int_dtype(sparse_indices, op, "sparse_indices")
    ri = sparse_indices.ndim
    if ri > 2 or sparse_values.ndim > 1:
        raise TopiError(f"{op}: sparse_indices must be 0-D, 1-D or 2-D and sparse_values 0-D "
                        f"or 1-D, got {ri}-D and {sparse_values.ndim}-D")
    oshape = _ints(output_shape, op, "output_shape")
    count = _ints(sparse_indices.shape[0], op, "sparse_indices.shape[0]")[0] if ri else 1
    if ri == 2 and _ints(sparse_indices.shape[1], op, "sparse_indices.shape[1]")[0] != \
            len(oshape):
        raise TopiError(f"{op}: sparse_indices has {sparse_indices.shape[1]} coordinates per "
                        f"entry, output_shape {len(oshape)} dimensions")
    if ri < 2 and len(oshape) != 1:
        raise TopiError(f"{op}: a {ri}-D sparse_indices needs a 1-D output_shape, got "
                        f"{oshape}")
    dt = sparse_values.dtype

    def value(j):
        return sparse_values(j) if sparse_values.ndim else sparse_values()

    def f(*i):
        ret = _op.cast(dt, default_value()) if isinstance(default_value, Tensor) else \
            _op.const(default_value, dt)
        for j in range(count):
            if ri == 0:
                cond = _op.eq(i[0], sparse_indices())
            elif ri == 1:
                cond = _op.eq(i[0], sparse_indices(j))
            else:
                cond = _op.all(*[_op.eq(i[d], sparse_indices(j, d)) for d in range(len(oshape))])
            ret = _op.if_then_else(cond, value(j), ret)
        return ret
    return compute(oshape, f, name="T_sparse_to_dense", tag=tag.INJECTIVE,
                   varargs_names=_ax(len(oshape)))


def shape(array: Tensor, dtype: str = "int32") -> Tensor:
    """The shape of ``array`` as a 1-D tensor (stage ``T_shape``)."""
    array = _tensor(array, "shape", "array")
    dims = list(array.shape)
    return compute([len(dims)], lambda i: _op.cast(dtype, _select_chain(i, dims) if dims else 0),
                   name="T_shape", tag=tag.INJECTIVE, varargs_names=_ax(1))


def ndarray_size(array: Tensor, dtype: str = "int32") -> Tensor:
    """The number of elements of ``array`` as a 0-D tensor (stage ``ndarray_size``)."""
    array = _tensor(array, "ndarray_size", "array")
    return compute([], lambda: _op.cast(dtype, prod(array.shape)), name="ndarray_size",
                   tag=tag.INJECTIVE)


__all__ += ["sequence_mask", "meshgrid", "trilu", "unravel_index", "expand_like",
            "invert_permutation", "matrix_set_diag", "sliding_window", "sparse_to_dense",
            "shape", "ndarray_size"]


def full(shape, dtype: str, fill_value) -> Tensor:
    """A tensor of ``shape`` and ``dtype`` holding ``fill_value`` everywhere (stage
    ``T_full``, tag "elemwise").

    Parameters
    ----------
    shape : list of int
        The output shape.
    dtype : str
        The output dtype.
    fill_value : number or PrimExpr
        The value (cast to ``dtype``).
    """
    shape = _ints(shape, "full", "shape")
    if any(d < 0 for d in shape):
        raise TopiError(f"full: shape must be non-negative, got {shape}")
    value = _op.cast(dtype, _op.convert(fill_value))
    return compute(shape, lambda *i: value, name="T_full", tag=tag.ELEMWISE,
                   varargs_names=_ax(len(shape)))


def full_like(x: Tensor, fill_value) -> Tensor:
    """A tensor of ``x``'s shape and dtype holding ``fill_value`` everywhere (stage
    ``T_full_like``, tag "elemwise")."""
    x = _tensor(x, "full_like", "x")
    value = _op.cast(x.dtype, _op.convert(fill_value))
    return compute(x.shape, lambda *i: value, name="T_full_like", tag=tag.ELEMWISE,
                   varargs_names=_ax(x.ndim))


__all__ += ["full", "full_like"]
