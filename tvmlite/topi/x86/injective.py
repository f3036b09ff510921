"""x86 schedule of injective operators: outer axes fused and parallel, innermost
vectorized."""
from __future__ import annotations

from ...te.schedule import Schedule
from ...tir.expr import IntImm
from ..generic.schedules import Outs, _default_schedule, _outs
from .utils import vector_lanes

# below this many elements a parallel region costs more than it saves
_PARALLEL_MIN = 1 << 14


def schedule_injective_from_existing(sch: Schedule, out) -> Schedule:
    """Fuse all but the innermost axis of ``out`` into one parallel loop and vectorize the
    innermost one by the vector width."""
    axes = list(sch[out].op.axis)
    lanes = vector_lanes(out.dtype)
    total = 1
    for a in axes:
        ext = a.dom.extent
        total = total * ext.value if isinstance(ext, IntImm) and total else 0
    inner = axes[-1]
    ext = inner.dom.extent
    if len(axes) == 1:
        if isinstance(ext, IntImm) and ext.value > lanes:
            outer, vec = sch[out].split(inner, factor=lanes)
            sch[out].vectorize(vec)
            if total >= _PARALLEL_MIN:
                sch[out].parallel(outer)
        return sch
    outer = sch[out].fuse(*axes[:-1]) if len(axes) > 2 else axes[0]
    if total >= _PARALLEL_MIN:
        sch[out].parallel(outer)
    if isinstance(ext, IntImm) and ext.value > 1:
        if ext.value > lanes:
            _, inner = sch[out].split(inner, factor=lanes)
        sch[out].vectorize(inner)
    return sch


def schedule_injective(outs: Outs) -> Schedule:
    """Injective operators on x86: producers inlined, outer axes parallel, inner vectorized."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        schedule_injective_from_existing(s, out)
    return s


schedule_concatenate = schedule_injective
schedule_elemwise = schedule_injective
schedule_broadcast = schedule_injective
