"""Elementwise activations (``topi.nn.relu`` …)."""
from __future__ import annotations

from ...te.operation import compute
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag


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
