"""Reductions over axes: ``topi.sum``, ``max``, ``min``, ``prod`` (stage ``<input>_red``,
reduce axes ``k<dim>``, tag "comm_reduce")."""
from __future__ import annotations

from ..te.operation import compute, reduce_axis
from ..te.tensor import Tensor
from ..tir import op as _op
from ..tir.expr import Select
from . import tag
from .utils import TopiError, ravel_index

_prod = _op.comm_reducer(lambda x, y: _op.mul(x, y), lambda t: _op.const(1, t), name="prod")


def _axes(axis, ndim: int):
    if axis is None:
        return list(range(ndim))
    axis = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axis:
        a = int(a)
        if not -ndim <= a < ndim:
            raise TopiError(f"reduction axis {a} is out of range for {ndim} dimension(s)")
        a = a + ndim if a < 0 else a
        if a in out:
            raise TopiError(f"reduction axis {a} given twice")
        out.append(a)
    return sorted(out)


def _comm_reduce(data: Tensor, axis, keepdims: bool, reducer, what: str) -> Tensor:
    if not isinstance(data, Tensor):
        raise TypeError(f"topi.{what} expects a Tensor, got {data!r}")
    n = data.ndim
    red = _axes(axis, n)
    raxes = {k: reduce_axis((0, data.shape[k]), name=f"k{k}") for k in red}
    shape = []
    for k in range(n):
        if k not in raxes:
            shape.append(data.shape[k])
        elif keepdims:
            shape.append(1)

    def f(*i):
        idx, pos = [], 0
        for k in range(n):
            if k in raxes:
                idx.append(raxes[k].var)
                if keepdims:
                    pos += 1
            else:
                idx.append(i[pos])
                pos += 1
        return reducer(data(*idx), axis=[raxes[k] for k in red])

    if not red:
        return compute(data.shape, lambda *i: data(*i), name=data.op.name + "_red",
                       tag=tag.COMM_REDUCE, varargs_names=[f"ax{k}" for k in range(n)])
    return compute(shape, f, name=data.op.name + "_red", tag=tag.COMM_REDUCE,
                   varargs_names=[f"ax{k}" for k in range(len(shape))])


def sum(data: Tensor, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (all axes by default)."""
    return _comm_reduce(data, axis, keepdims, _op.sum, "sum")


def max(data: Tensor, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Maximum over ``axis`` (all axes by default)."""
    return _comm_reduce(data, axis, keepdims, _op.max, "max")


def min(data: Tensor, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Minimum over ``axis`` (all axes by default)."""
    return _comm_reduce(data, axis, keepdims, _op.min, "min")


def prod(data: Tensor, axis=None, keepdims: bool = False) -> Tensor:
    """Product over ``axis`` (all axes by default)."""
    return _comm_reduce(data, axis, keepdims, _prod, "prod")


_all = _op.comm_reducer(lambda x, y: _op.logical_and(x, y), lambda t: _op.const(True, t),
                       name="all")
_any = _op.comm_reducer(lambda x, y: _op.logical_or(x, y), lambda t: _op.const(False, t),
                       name="any")


def _bool_reduce(data: Tensor, axis, keepdims: bool, reducer, what: str) -> Tensor:
    if isinstance(data, Tensor) and data.dtype != "bool":
        raise TopiError(f"{what}: data must be bool, got {data.dtype}")
    return _comm_reduce(data, axis, keepdims, reducer, what)


def all(data: Tensor, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Logical AND of a bool tensor over ``axis`` (all axes by default)."""
    return _bool_reduce(data, axis, keepdims, _all, "all")


def any(data: Tensor, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Logical OR of a bool tensor over ``axis`` (all axes by default)."""
    return _bool_reduce(data, axis, keepdims, _any, "any")


def _arg_reduce(data: Tensor, axis, keepdims: bool, select_last_index: bool, is_max: bool,
                what: str) -> Tensor:
    if not isinstance(data, Tensor):
        raise TypeError(f"topi.{what} expects a Tensor, got {data!r}")
    n = data.ndim
    red = _axes(axis, n)
    raxes = {k: reduce_axis((0, data.shape[k]), name=f"k{k}") for k in red}
    shape = [1 if k in raxes else data.shape[k] for k in range(n) if keepdims or k not in raxes]
    better = _op.gt if is_max else _op.lt

    def fcombine(x, y):
        take_x = better(x[1], y[1])
        tie = _op.eq(x[1], y[1])
        earlier = _op.gt(x[0], y[0]) if select_last_index else _op.lt(x[0], y[0])
        pick = _op.logical_or(take_x, _op.logical_and(tie, earlier))
        # equal values are equal: the value needs no tie-break (classic TOPI's form)
        return Select(pick, x[0], y[0]), Select(take_x, x[1], y[1])

    def fidentity(t0, t1):
        return _op.const(-1, t0), (_op.min_value(t1) if is_max else _op.max_value(t1))

    reducer = _op.comm_reducer(fcombine, fidentity, name=what)

    def f(*i):
        idx, pos = [], 0
        for k in range(n):
            if k in raxes:
                idx.append(raxes[k].var)
                pos += keepdims
            else:
                idx.append(i[pos])
                pos += 1
        flat = ravel_index([raxes[k].var for k in red], [data.shape[k] for k in red])
        return reducer((_op.cast("int32", flat), data(*idx)), axis=[raxes[k] for k in red])

    names = [f"ax{k}" for k in range(len(shape))]
    temp = compute(shape, f, name=data.op.name + "_red_temp", tag=tag.COMM_REDUCE_IDX,
                   varargs_names=names)
    # as in classic TOPI, a stage of its own takes the index out of the (index, value) pair
    return compute(shape, lambda *i: temp[0](*i), name=data.op.name + "_red",
                   tag=tag.COMM_REDUCE_IDX, varargs_names=names)


def argmax(data: Tensor, axis=None, keepdims: bool = False,
           select_last_index: bool = False) -> Tensor:
    """Index (int32, row-major over the reduced axes) of the maximum over ``axis``; ties
    give the first index (the last with ``select_last_index``)."""
    return _arg_reduce(data, axis, keepdims, select_last_index, True, "argmax")


def argmin(data: Tensor, axis=None, keepdims: bool = False,
           select_last_index: bool = False) -> Tensor:
    """Index (int32) of the minimum over ``axis``; ties as in :func:`argmax`."""
    return _arg_reduce(data, axis, keepdims, select_last_index, False, "argmin")


def collapse_sum(data: Tensor, target_shape) -> Tensor:
    """Sum ``data`` down to ``target_shape``, the inverse of broadcasting it there: the
    leading axes ``target_shape`` lacks, and the axes where it has 1 and ``data`` more, are
    summed (stage ``<input>_red``, tag "comm_reduce")."""
    if not isinstance(data, Tensor):
        raise TopiError(f"collapse_sum: data must be a Tensor, got {data!r}")
    from .utils import get_const_tuple
    shape = get_const_tuple(data.shape)
    target = tuple(int(d) for d in target_shape)
    lead = len(shape) - len(target)
    if lead < 0 or [t for t, d in zip(target, shape[lead:]) if t not in (1, d)]:
        raise TopiError(f"collapse_sum: shape {shape} does not broadcast from {target}")
    squeezed = list(range(lead))
    kept_ones = [lead + k for k, (t, d) in enumerate(zip(target, shape[lead:]))
                 if t == 1 and d != 1]
    return _collapse(data, squeezed, kept_ones)


def _collapse(data: Tensor, dropped, kept_ones) -> Tensor:
    """``data`` summed over ``dropped`` (removed) and ``kept_ones`` (kept as extent 1)."""
    red = sorted(dropped + kept_ones)
    if not red:
        return compute(data.shape, lambda *i: data(*i), name=data.op.name + "_red",
                       tag=tag.COMM_REDUCE)
    raxes = {k: reduce_axis((0, data.shape[k]), name=f"k{k}") for k in red}
    out_shape = [1 if k in kept_ones else data.shape[k] for k in range(data.ndim)
                 if k not in dropped]
    kept = [k for k in range(data.ndim) if k not in dropped]

    def f(*i):
        pos = dict(zip(kept, i))
        return _op.sum(data(*[raxes[k].var if k in raxes else pos[k]
                              for k in range(data.ndim)]), axis=[raxes[k] for k in red])
    return compute(out_shape, f, name=data.op.name + "_red", tag=tag.COMM_REDUCE)


__all__ = ["sum", "max", "min", "prod", "all", "any", "argmax", "argmin", "collapse_sum"]
