"""Softmax and log-softmax along one axis (``topi.nn.softmax``, ``topi.nn.log_softmax``)."""
from __future__ import annotations

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from ..math import _fast_exp_expr
from ..utils import TopiError


def _max_and_expsum(x: Tensor, axis: int, op: str):
    """The stages both softmaxes share: ``T_softmax_maxelem`` and the sum of exponentials."""
    if not isinstance(x, Tensor):
        raise TopiError(f"{op}: x must be a Tensor, got {x!r}")
    n = x.ndim
    if not -n <= axis < n:
        raise TopiError(f"{op}: axis {axis} is out of range for {n} dimension(s)")
    axis = axis + n if axis < 0 else axis
    red_shape = [d for k, d in enumerate(x.shape) if k != axis]
    k1 = reduce_axis((0, x.shape[axis]), name="k")
    k2 = reduce_axis((0, x.shape[axis]), name="k")

    def full(idx, v):
        return list(idx[:axis]) + [v] + list(idx[axis:])

    def red(idx):
        return list(idx[:axis]) + list(idx[axis + 1:])

    names = [f"i{k}" for k in range(n - 1)]
    maxelem = compute(red_shape, lambda *i: _op.max(x(*full(i, k1.var)), axis=k1),
                      name="T_softmax_maxelem", varargs_names=names)
    return axis, red_shape, k2, full, red, names, maxelem


def _softmax(x: Tensor, axis: int, fexp, op: str, out_tag: str) -> Tensor:
    axis, red_shape, k2, full, red, names, maxelem = _max_and_expsum(x, axis, op)
    exp = compute(x.shape, lambda *i: fexp(_op.sub(x(*i), maxelem(*red(i)))),
                  name="T_softmax_exp")
    expsum = compute(red_shape, lambda *i: _op.sum(exp(*full(i, k2.var)), axis=k2),
                     name="T_softmax_expsum", varargs_names=names)
    return compute(x.shape, lambda *i: _op.div(exp(*i), expsum(*red(i))),
                   name="T_softmax_norm", tag=out_tag, attrs={"axis": axis})


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``; four stages ``T_softmax_*``, the
    last tagged "softmax_output"."""
    return _softmax(x, axis, _op.exp, "softmax", "softmax_output")


def fast_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """:func:`softmax` with ``topi.fast_exp``'s vectorizable polynomial exponential (float32;
    tag "fast_softmax_output")."""
    if isinstance(x, Tensor) and x.dtype != "float32":
        raise TopiError(f"fast_softmax: float32 only, got {x.dtype}")
    return _softmax(x, axis, _fast_exp_expr, "fast_softmax", "fast_softmax_output")


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``x - max - log(sum(exp(x - max)))`` along ``axis`` (tag "log_softmax_output")."""
    axis, red_shape, k2, full, red, names, maxelem = _max_and_expsum(x, axis, "log_softmax")
    expsum = compute(red_shape, lambda *i: _op.sum(
        _op.exp(_op.sub(x(*full(i, k2.var)), maxelem(*i))), axis=k2),
        name="T_softmax_expsum", varargs_names=names)
    return compute(x.shape, lambda *i: _op.sub(_op.sub(x(*i), maxelem(*red(i))),
                                               _op.log(expsum(*red(i)))),
                   name="T_log_softmax_norm", tag="log_softmax_output", attrs={"axis": axis})
