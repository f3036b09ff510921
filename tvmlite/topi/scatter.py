"""``topi.scatter_nd`` and ``topi.scatter_elements``: apply updates at indices of a copy of
the data."""
from __future__ import annotations

from ..te.operation import extern
from ..te.tensor import Tensor, _dim_equal
from ..tir import ir_builder
from ..tir import op as _op
from .utils import TopiError, check_tensors, get_const_int, prod, ravel_index, unravel_index

_COMBINE = {"update": lambda old, new: new, "add": _op.add, "mul": _op.mul,
            "min": _op._min, "max": _op._max,
            "mean": lambda old, new: _op.div(_op.add(old, new), _op.const(2, old.dtype))}
_ND_MODES = ("update", "add", "mul", "min", "max")


def scatter_nd(data: Tensor, indices: Tensor, updates: Tensor, mode: str = "update") -> Tensor:
    """A copy of ``data`` ``(X_0 .. X_{N-1})`` in which, for each ``y`` of the index space
    ``(Y_0 .. Y_{K-1})`` in order,
    ``out[indices[0, y], .., indices[M-1, y], x_M, ..] = f(out[...], updates[y, x_M, ..])``
    with ``f`` given by ``mode``. Negative indices count from the end; an index outside its
    dimension after that skips its update. Sequential (extern stage ``scatter_nd``), so
    repeated indices combine in order.

    Parameters
    ----------
    data : Tensor
        The source, ``(X_0 .. X_{N-1})``.
    indices : Tensor
        Integer, ``(M, Y_0 .. Y_{K-1})`` with ``M <= N``.
    updates : Tensor
        ``(Y_0 .. Y_{K-1}, X_M .. X_{N-1})``, of data's dtype.
    mode : str
        "update" (replace), "add", "mul", "min" or "max".

    Returns
    -------
    Tensor
        Of ``data``'s shape and dtype.
    """
    op = "scatter_nd"
    check_tensors(op, data=data, indices=indices, updates=updates)
    if mode not in _ND_MODES:
        raise TopiError(f"{op}: mode must be one of {list(_ND_MODES)}, got {mode!r}")
    if not indices.dtype.startswith(("int", "uint")) or indices.ndim < 1:
        raise TopiError(f"{op}: indices must be an integer tensor (M, Y...), got "
                        f"{indices.dtype} of shape {list(indices.shape)}")
    m = get_const_int(indices.shape[0])
    ys = list(indices.shape[1:])
    if m > data.ndim:
        raise TopiError(f"{op}: indices.shape[0] = {m} exceeds the {data.ndim} dimensions of "
                        f"data")
    want = ys + list(data.shape[m:])
    if updates.ndim != len(want) or not all(_dim_equal(a, b) for a, b in
                                            zip(updates.shape, want)):
        raise TopiError(f"{op}: updates must have shape {want} (indices.shape[1:] + "
                        f"data.shape[{m}:]), got {list(updates.shape)}")
    if updates.dtype != data.dtype:
        raise TopiError(f"{op}: updates ({updates.dtype}) and data ({data.dtype}) dtypes differ")
    combine = _COMBINE[mode]

    def ir(data_buf, idx_buf, upd_buf, out_buf):
        ib = ir_builder.create()
        src, idx = ib.buffer_ptr(data_buf), ib.buffer_ptr(idx_buf)
        upd, out = ib.buffer_ptr(upd_buf), ib.buffer_ptr(out_buf)
        size, n_y, inner = prod(data.shape), prod(ys), prod(data.shape[m:])
        with ib.for_range(0, size, name="i", kind="parallel") as i:
            out[i] = src[i]
        with ib.for_range(0, n_y, name="y") as y:
            offset, inside = _op.const(0, "int64"), _op.const(True, "bool")
            for d in range(m):
                extent = _op.cast("int64", data.shape[d])
                v = _op.cast("int64", idx[_op.add(_op.mul(d, n_y), y)])
                if indices.dtype.startswith("int"):
                    v = _op.if_then_else(_op.lt(v, 0), _op.add(v, extent), v)
                v = ib.let(f"i{d}", v)
                inside = _op.logical_and(inside, _op.logical_and(_op.ge(v, 0),
                                                                 _op.lt(v, extent)))
                offset = _op.add(_op.mul(offset, extent), v)
            with ib.if_scope(inside):
                base = ib.let("base", _op.mul(offset, _op.cast("int64", inner)))
                with ib.for_range(0, inner, name="x") as x:
                    at = _op.add(base, _op.cast("int64", x))
                    out[at] = combine(out[at], upd[_op.add(_op.mul(y, inner), x)])
        return ib.get()
    return extern(data.shape, [data, indices, updates],
                  lambda ins, outs: ir(ins[0], ins[1], ins[2], outs[0]), name=op,
                  dtype=data.dtype)


def scatter_elements(data: Tensor, indices: Tensor, updates: Tensor, axis: int = 0,
                     reduction: str = "update") -> Tensor:
    """A copy of ``data`` in which each element ``updates[p]`` is combined into
    ``out[p']``, ``p'`` being the position ``p`` with its ``axis`` coordinate replaced by
    ``indices[p]`` (ONNX ScatterElements): ``out[p'] = f(out[p'], updates[p])``, ``f`` given
    by ``reduction``. Negative indices count from the end; an index outside the axis after
    that skips its update. Updates along ``axis`` apply in order (the other positions in
    parallel: they never meet); extern stage ``scatter_elements``.

    Parameters
    ----------
    data : Tensor
        The source.
    indices : Tensor
        Integer, of data's rank, no larger than data in a dimension other than ``axis``.
    updates : Tensor
        Of indices' shape and data's dtype.
    axis : int
        The axis the indices address.
    reduction : str
        "update" (replace), "add", "mul", "mean" (the mean of the old value and the update),
        "min" or "max".

    Returns
    -------
    Tensor
        Of ``data``'s shape and dtype.
    """
    op = "scatter_elements"
    check_tensors(op, data=data, indices=indices, updates=updates)
    if reduction not in _COMBINE:
        raise TopiError(f"{op}: reduction must be one of {sorted(_COMBINE)}, got "
                        f"{reduction!r}")
    if not indices.dtype.startswith(("int", "uint")):
        raise TopiError(f"{op}: indices must be integers, got {indices.dtype}")
    n = data.ndim
    axis = get_const_int(axis)
    if not -n <= axis < n:
        raise TopiError(f"{op}: axis {axis} is out of range for {n} dimension(s)")
    axis = axis + n if axis < 0 else axis
    others = [d for d in range(n) if d != axis]
    if indices.ndim != n or updates.ndim != n or not all(
            _dim_equal(a, b) for a, b in zip(indices.shape, updates.shape)):
        raise TopiError(f"{op}: indices and updates must have one shape of data's rank {n}, "
                        f"got {list(indices.shape)} and {list(updates.shape)}")
    for d in others:  # along the axis any number of updates may come
        a, b = _op.convert(indices.shape[d]), _op.convert(data.shape[d])
        if hasattr(a, "value") and hasattr(b, "value") and a.value > b.value:
            raise TopiError(f"{op}: indices dimension {d} ({a.value}) exceeds data's "
                            f"({b.value})")
    if updates.dtype != data.dtype:
        raise TopiError(f"{op}: updates ({updates.dtype}) and data ({data.dtype}) dtypes differ")
    combine = _COMBINE[reduction]

    def ir(data_buf, idx_buf, upd_buf, out_buf):
        ib = ir_builder.create()
        src, idx = ib.buffer_ptr(data_buf), ib.buffer_ptr(idx_buf)
        upd, out = ib.buffer_ptr(upd_buf), ib.buffer_ptr(out_buf)
        with ib.for_range(0, prod(data.shape), name="i", kind="parallel") as i:
            out[i] = src[i]
        outer = prod([indices.shape[d] for d in others])
        with ib.for_range(0, outer, name="o", kind="parallel") as o:
            rest = unravel_index(o, [indices.shape[d] for d in others])
            with ib.for_range(0, indices.shape[axis], name="k") as k:
                at = list(rest)
                at.insert(axis, k)
                p = ib.let("p", ravel_index(at, indices.shape))
                extent = _op.cast("int64", data.shape[axis])
                v = _op.cast("int64", idx[p])
                if indices.dtype.startswith("int"):
                    v = _op.if_then_else(_op.lt(v, 0), _op.add(v, extent), v)
                v = ib.let("v", v)
                with ib.if_scope(_op.logical_and(_op.ge(v, 0), _op.lt(v, extent))):
                    target = list(rest)
                    target.insert(axis, _op.cast("int32", v))
                    q = ib.let("q", ravel_index(target, data.shape))
                    out[q] = combine(out[q], upd[p])
        return ib.get()
    return extern(data.shape, [data, indices, updates],
                  lambda ins, outs: ir(ins[0], ins[1], ins[2], outs[0]), name=op,
                  dtype=data.dtype)


__all__ = ["scatter_nd", "scatter_elements"]
