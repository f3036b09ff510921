"""CUDA schedule of injective operators: the output's axes fused into one loop, split by the
target's threads per block, bound to ``blockIdx.x`` / ``threadIdx.x``."""
from __future__ import annotations

from ...error import TVMError
from ...target import Target
from ...te import thread_axis
from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ...tir.expr import IntImm
from ..generic.schedules import Outs, injective_schedule


def max_threads() -> int:
    """Threads per block of the current target (1024 outside any GPU target scope)."""
    tgt = Target.current(allow_none=True)
    if tgt is None or "gpu" not in tuple(tgt.keys):
        return 1024
    return int(tgt.max_num_threads)


def bind_threads(sch: Schedule, out: Tensor, num_thread: int = 0) -> None:
    """Fuse the axes of ``out``'s stage and bind them to blocks of ``num_thread`` threads
    (the target's maximum when 0)."""
    stage = sch[out]
    axes = list(stage.op.axis)
    if not axes:
        raise TVMError(f"topi.cuda: stage {out.op.name} is 0-D and not a reduction; there is "
                       "no axis to bind to GPU threads")
    total = 1
    for iv in axes:
        total = total * iv.dom.extent.value if isinstance(iv.dom.extent, IntImm) else -1
    num_thread = num_thread or max_threads()
    if 0 < total < num_thread:  # one block of just the threads needed
        num_thread = total
    fused = stage.fuse(*axes) if len(axes) > 1 else axes[0]
    bx, tx = stage.split(fused, factor=num_thread)
    stage.bind(bx, thread_axis("blockIdx.x"))
    stage.bind(tx, thread_axis("threadIdx.x"))


def schedule_injective_from_existing(sch: Schedule, out: Tensor) -> Schedule:
    """Bind ``out``'s fused axes to GPU blocks and threads in ``sch``."""
    bind_threads(sch, out)
    return sch


def schedule_injective(outs: Outs) -> Schedule:
    """Injective operators on a GPU: producers inlined, each output one kernel over all of
    its elements."""
    return injective_schedule(outs, schedule_injective_from_existing)


schedule_elemwise = schedule_injective
schedule_broadcast = schedule_injective
schedule_concatenate = schedule_injective
