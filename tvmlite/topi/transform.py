"""Injective layout operators: ``reshape``, ``transpose``, ``expand_dims``, ``squeeze``."""
from __future__ import annotations

import re
from typing import Optional, Sequence

from ..te.operation import compute
from ..te.tensor import Tensor
from ..tir import op as _op
from ..tir.expr import IntImm
from . import tag
from .utils import TopiError, get_const_int, prod, ravel_index, unravel_index


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
    return compute(dims, lambda *i: a(*unravel_index(ravel_index(i, dims), a.shape)),
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


def concatenate(tensors, axis: int = 0) -> Tensor:
    """Join tensors along ``axis`` (stage ``T_concat``)."""
    tensors = list(tensors)
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
        return compute(ishape, lambda *i: a(*unravel_index(fix(index(i), total), a.shape)),
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
    ``T_strided_slice``."""
    n = a.ndim
    axes = list(range(n)) if axes is None else [_norm_axis(int(x), n, "strided_slice")
                                                for x in axes]
    begin, end = [int(x) for x in begin], [int(x) for x in end]
    strides = [1] * len(axes) if strides is None else [int(x) for x in strides]
    strides += [1] * (len(axes) - len(strides))
    begin += [0] * (len(axes) - len(begin))
    if slice_mode not in ("end", "size"):
        raise TopiError(f"strided_slice: slice_mode must be 'end' or 'size', got {slice_mode}")
    starts, steps, shape = [0] * n, [1] * n, list(a.shape)
    for k, ax in enumerate(axes):
        size, s = get_const_int(a.shape[ax]), strides[k]
        if s == 0:
            raise TopiError(f"strided_slice: stride 0 on axis {ax}")
        if slice_mode == "size":
            s = 1
            lo = begin[k] + size if begin[k] < 0 else begin[k]
            hi = size if k >= len(end) or end[k] < 0 else lo + end[k]
            lo, hi = min(max(lo, 0), size), min(max(hi, 0), size)
        else:
            hi_default = size if s > 0 else -size - 1
            hi = end[k] if k < len(end) else hi_default
            lo, hi, s = slice(begin[k], hi, s).indices(size)
        count = max(0, -(-(hi - lo) // s)) if s > 0 else max(0, -(-(lo - hi) // -s))
        starts[ax], steps[ax], shape[ax] = lo, s, count
    return compute(shape, lambda *i: a(*[starts[d] + i[d] * steps[d] for d in range(n)]),
                   name="T_strided_slice", tag=tag.INJECTIVE, varargs_names=_ax(n))


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


def _parse_layout(layout: str, what: str):
    """``[(axis_letter, block or None)]`` of a layout like "NCHW16c"."""
    tokens = re.findall(r"(\d*)([A-Za-z])", layout)
    if "".join(d + c for d, c in tokens) != layout or not tokens:
        raise TopiError(f"layout_transform: bad {what} layout {layout!r}")
    out, seen = [], set()
    for digits, c in tokens:
        if c in seen:
            raise TopiError(f"layout_transform: axis {c} repeated in {what} layout {layout!r}")
        seen.add(c)
        if c.isupper():
            if digits:
                raise TopiError(f"layout_transform: primal axis {c} takes no factor in "
                                f"{layout!r}")
            out.append((c, None))
        else:
            if not digits or int(digits) <= 0 or c.upper() not in layout:
                raise TopiError(f"layout_transform: sub-axis {c} of {layout!r} needs a positive "
                                "factor and its primal axis")
            out.append((c, int(digits)))
    return out


def layout_transform(array: Tensor, src_layout: str, dst_layout: str,
                     schedule_rule: str = "None") -> Tensor:
    """Re-layout ``array`` from ``src_layout`` to ``dst_layout`` ("NCHW" <-> "NCHW8c",
    "OIHW" -> "OIHW4i8o", ...); padded tail elements are 0 (stage ``T_layout_trans``)."""
    src = _parse_layout(src_layout, "source")
    dst = _parse_layout(dst_layout, "destination")
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


__all__ += ["split", "take", "strided_slice", "where", "layout_transform"]
