"""x86 schedules of pooling, softmax and reductions: the independent outer loops fused and
parallel, per-row intermediates computed at that loop."""
from __future__ import annotations

from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ...tir.expr import IntImm
from ..generic.schedules import Outs, _default_schedule, _outs
from .injective import _vector_split
from .utils import vector_lanes


def _find(out: Tensor, pred):
    stack, seen = [out.op], set()
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if pred(op):
            return op
        stack.extend(t.op for t in op.input_tensors)
    return None


def _parallel_outer(s: Schedule, out: Tensor, n_outer: int):
    axes = list(s[out].op.axis)
    outer = s[out].fuse(*axes[:n_outer]) if n_outer > 1 else axes[0]
    s[out].parallel(outer)
    return outer, axes[n_outer:]


def _vectorize_last(s: Schedule, out: Tensor, axis) -> None:
    ext = axis.dom.extent
    if not isinstance(ext, IntImm):
        return
    width = _vector_split(ext.value, vector_lanes(out.dtype))
    if width is None:
        return
    if width < ext.value:
        _, axis = s[out].split(axis, factor=width)
    s[out].vectorize(axis)


def schedule_pool(outs: Outs, layout: str = "NCHW") -> Schedule:
    """Pooling: padding inlined; all axes but the innermost fused and parallel; the window
    reduction (and the average's sum) computed there. A packed layout (``NCHW16c``) also
    vectorizes its channel block."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        pool = _find(out, lambda op: "pool_" in op.tag)
        if pool is None or out.ndim < 2:
            continue
        outer, rest = _parallel_outer(s, out, out.ndim - 1)
        if pool is not out.op:
            s[pool].compute_at(s[out], outer)
        if out.ndim >= 5:
            _vectorize_last(s, out, rest[-1])
    return s


schedule_adaptive_pool = schedule_pool


def schedule_softmax(outs: Outs) -> Schedule:
    """softmax / fast_softmax / log_softmax along the last axis: rows parallel, each row's
    max, exponentials and sum computed inside the row loop, exponentials and normalisation
    vectorized."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        axis = out.op.attrs.get("axis")
        if axis != out.ndim - 1 or out.ndim < 2:
            continue
        outer, rest = _parallel_outer(s, out, out.ndim - 1)
        for op in _softmax_stages(out):
            s[op].compute_at(s[out], outer)
            if op.name == "T_softmax_exp":
                _vectorize_last(s, op.output(0), s[op].op.axis[-1])
        _vectorize_last(s, out, rest[-1])
    return s


def _softmax_stages(out: Tensor):
    names = ("T_softmax_maxelem", "T_softmax_exp", "T_softmax_expsum")
    found, stack, seen = [], [out.op], set()
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.name in names:
            found.append(op)
        stack.extend(t.op for t in op.input_tensors)
    return found


def schedule_reduce(outs: Outs) -> Schedule:
    """Reductions: injective producers inlined, the output's axes fused and parallel."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        if out.ndim >= 1:
            _parallel_outer(s, out, out.ndim)
    return s
