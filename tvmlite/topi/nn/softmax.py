"""Softmax along one axis (``topi.nn.softmax``)."""
from __future__ import annotations

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``; four stages ``T_softmax_*``."""
    n = x.ndim
    if not -n <= axis < n:
        raise ValueError(f"softmax: axis {axis} is out of range for {n} dimension(s)")
    axis = axis + n if axis < 0 else axis
    red_shape = [d for k, d in enumerate(x.shape) if k != axis]
    k1 = reduce_axis((0, x.shape[axis]), name="k")
    k2 = reduce_axis((0, x.shape[axis]), name="k")

    def full(idx, v):
        return list(idx[:axis]) + [v] + list(idx[axis:])

    names = [f"i{k}" for k in range(n - 1)]
    maxelem = compute(red_shape, lambda *i: _op.max(x(*full(i, k1.var)), axis=k1),
                      name="T_softmax_maxelem", varargs_names=names)
    exp = compute(x.shape, lambda *i: _op.exp(_op.sub(
        x(*i), maxelem(*(list(i[:axis]) + list(i[axis + 1:]))))), name="T_softmax_exp")
    expsum = compute(red_shape, lambda *i: _op.sum(exp(*full(i, k2.var)), axis=k2),
                     name="T_softmax_expsum", varargs_names=names)
    return compute(x.shape, lambda *i: _op.div(
        exp(*i), expsum(*(list(i[:axis]) + list(i[axis + 1:])))),
        name="T_softmax_norm", tag="softmax_output", attrs={"axis": axis})
