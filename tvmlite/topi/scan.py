"""Cumulative operators (``topi.cumsum``, ``topi.cumprod``, ``topi.scanop``).

Each output element combines its prefix along the axis by a reduction over the whole axis
whose terms past the position are the identity: quadratic in the axis' extent, meant for the
short axes of inference graphs, not for long scans; any schedule of reductions applies.
"""
from __future__ import annotations

from typing import Callable, Optional

from ..ir import dtype as _dt
from ..te.operation import compute, reduce_axis
from ..te.tensor import Tensor
from ..tir import op as _op
from .transform import _ax, _norm_axis, _tensor, reshape
from .utils import prod


def scanop(data: Tensor, binop: Callable, identity_value, op_name: str,
           axis: Optional[int] = None, dtype: Optional[str] = None,
           exclusive: Optional[bool] = None) -> Tensor:
    """Cumulative ``binop`` along ``axis`` (of the flattened data when None):
    ``out[..., j, ...] = data[..., 0, ...] binop ... binop data[..., j, ...]``; ``exclusive``
    leaves out each element itself (the first is then ``identity_value``). Stage
    ``T_{op_name}``, tag ``op_name``.

    Parameters
    ----------
    data : Tensor
        The input.
    binop : callable
        An associative, commutative ``(PrimExpr, PrimExpr) -> PrimExpr``.
    identity_value : number
        ``binop``'s identity.
    op_name : str
        The operator's name.
    axis : int or None
        The axis to accumulate along.
    dtype : str or None
        The output (and accumulation) dtype; ``data``'s by default.
    exclusive : bool or None
        Combine the elements before each position only.
    """
    data = _tensor(data, op_name, "data")
    if axis is None:
        data = reshape(data, [prod(data.shape)])
        axis = 0
    axis = _norm_axis(axis, data.ndim, op_name)
    dt = _dt.canonical(str(dtype)) if dtype else data.dtype
    reducer = _op.comm_reducer(binop, lambda t: _op.const(identity_value, t), name=op_name)
    k = reduce_axis((0, data.shape[axis]), name="k")

    def f(*i):
        idx = list(i)
        idx[axis] = k
        inside = _op.lt(k, i[axis]) if exclusive else _op.le(k, i[axis])
        return reducer(_op.if_then_else(inside, _op.cast(dt, data(*idx)),
                                        _op.const(identity_value, dt)), axis=[k])
    return compute(data.shape, f, name=f"T_{op_name}", tag=op_name,
                   varargs_names=_ax(data.ndim))


def cumsum(data: Tensor, axis: Optional[int] = None, dtype: Optional[str] = None,
           exclusive: Optional[bool] = None) -> Tensor:
    """Cumulative sum along ``axis`` (of the flattened data when None), as ``numpy.cumsum``;
    ``exclusive`` leaves out each element itself (stage ``T_cumsum``, tag "cumsum").

    Parameters
    ----------
    data : Tensor
        The input.
    axis : int or None
        The axis to accumulate along.
    dtype : str or None
        The output (and accumulation) dtype; ``data``'s by default.
    exclusive : bool or None
        Sum the elements before each position only.
    """
    return scanop(data, _op.add, 0, "cumsum", axis, dtype, exclusive)


def cumprod(data: Tensor, axis: Optional[int] = None, dtype: Optional[str] = None,
            exclusive: Optional[bool] = None) -> Tensor:
    """Cumulative product along ``axis`` (of the flattened data when None), as
    ``numpy.cumprod``; ``exclusive`` leaves out each element itself (stage ``T_cumprod``, tag
    "cumprod").

    Parameters
    ----------
    data : Tensor
        The input.
    axis : int or None
        The axis to accumulate along.
    dtype : str or None
        The output (and accumulation) dtype; ``data``'s by default.
    exclusive : bool or None
        Multiply the elements before each position only.
    """
    return scanop(data, _op.mul, 1, "cumprod", axis, dtype, exclusive)


__all__ = ["scanop", "cumsum", "cumprod"]
