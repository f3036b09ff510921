"""Elementwise activations (``topi.nn.relu``, ``leaky_relu``, ``prelu``)."""
from __future__ import annotations

from ...te.operation import compute
from ...te.tensor import Tensor, _dim_equal
from ...tir import op as _op
from .. import tag
from ..utils import TopiError


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)`` elementwise (stage ``compute``)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"relu expects a Tensor, got {x!r}")
    return compute(x.shape, lambda *i: _op._max(x(*i), _op.const(0, x.dtype)),
                   tag=tag.ELEMWISE)


def leaky_relu(x: Tensor, alpha: float) -> Tensor:
    """``x if x > 0 else alpha * x`` elementwise (stage ``compute``)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"leaky_relu expects a Tensor, got {x!r}")

    def f(*i):
        v = x(*i)
        return _op.if_then_else(_op.gt(v, 0), v, _op.mul(v, _op.const(alpha, v.dtype)))
    return compute(x.shape, f, tag=tag.ELEMWISE)


def prelu(x: Tensor, slope: Tensor, axis: int = 1) -> Tensor:
    """``x if x > 0 else slope[c] * x`` with ``c`` the index along ``axis`` (tag
    "broadcast")."""
    if not isinstance(x, Tensor) or not isinstance(slope, Tensor):
        raise TopiError("prelu: x and slope must be Tensors")
    if not -x.ndim <= axis < x.ndim:
        raise TopiError(f"prelu: axis {axis} is out of range for {x.ndim} dimension(s)")
    axis = axis + x.ndim if axis < 0 else axis
    if slope.ndim != 1 or not _dim_equal(slope.shape[0], x.shape[axis]):
        raise TopiError(f"prelu: slope must be 1-D of length {x.shape[axis]} (x axis {axis}), "
                        f"got shape {list(slope.shape)}")

    def f(*i):
        v = x(*i)
        return _op.if_then_else(_op.gt(v, 0), v, _op.mul(v, slope(i[axis])))
    return compute(x.shape, f, tag=tag.BROADCAST)
