"""x86 schedules of pooling, softmax and reductions: the independent outer loops fused and
parallel, per-row intermediates computed at that loop."""
from __future__ import annotations

from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ...tir.expr import IntImm
from ..generic.schedules import Outs, _default_schedule, _outs
from .injective import _PARALLEL_MIN, _vector_split
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


def _parallel_outer(s: Schedule, out: Tensor, n_outer: int, parallel: bool = True):
    axes = list(s[out].op.axis)
    outer = s[out].fuse(*axes[:n_outer]) if n_outer > 1 else axes[0]
    if parallel:
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
    """softmax / fast_softmax / log_softmax along the last axis: rows fused (parallel when
    the tensor is large enough to pay for a parallel region), each row's max, exponentials
    and sum computed inside the row loop; the row reductions vectorized (rfactor into a
    vector of partial results, reduced across lanes at the end of the row), exponentials and
    normalisation vectorized."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        axis = out.op.attrs.get("axis")
        if axis != out.ndim - 1 or out.ndim < 2:
            continue
        outer, rest = _parallel_outer(s, out, out.ndim - 1, _const_size(out) >= _PARALLEL_MIN)
        for op in _softmax_stages(out):
            if op.reduce_axis:
                _vectorize_reduction(s, op, out, outer)
            s[op].compute_at(s[out], outer)
            if op.name == "T_softmax_exp":
                _vectorize_last(s, op.output(0), s[op].op.axis[-1])
        _vectorize_last(s, out, rest[-1])
    return s


def _const_size(t: Tensor) -> int:
    n = 1
    for d in t.shape:
        if not isinstance(d, IntImm):
            return 1 << 62  # symbolic: assume large
        n *= d.value
    return n


def _vectorize_reduction(s: Schedule, op, out: Tensor, outer) -> None:
    """Split ``op``'s one reduction axis by a vector width that divides it and rfactor the
    inner part: a vector of partial results updated once per outer step (no serial
    dependency chain through one scalar), reduced across its lanes at the end."""
    if len(op.reduce_axis) != 1:
        return
    k = op.reduce_axis[0]
    ext = k.dom.extent
    if not isinstance(ext, IntImm):
        return
    # one vector register of partials: a wider one would leave a longer serial tail
    lanes = vector_lanes(op.output(0).dtype)
    width = next((w for w in (lanes, lanes // 2, lanes // 4) if w > 1 and ext.value % w == 0
                  and ext.value > w), None)
    if width is None:
        return
    _, ki = s[op].split(k, factor=width)
    rf = s.rfactor(op.output(0), ki)
    s[rf].compute_at(s[out], outer)
    lane, *spatial = s[rf].op.axis
    (ko,) = s[rf].op.reduce_axis
    s[rf].reorder(*spatial, ko, lane)
    s[rf].vectorize(lane)


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
