"""CUDA schedules of reductions and of operators built from them (softmax, pooling, dense,
norms…): the one place that binds the stages of such a graph to GPU threads.

Injective producers are inlined; every reduction stage left becomes a kernel of its own: one
GPU thread per output element, or, for few outputs over a long reduction, one block per
output whose threads split the reduction (``rfactor`` + a cross-thread reduction; a 0-D
result is one block). An output that is not a reduction (the division of a mean, the
normalisation of a softmax) is bound as an injective kernel.
"""
from __future__ import annotations

from typing import List

from ...error import TVMError
from ...te import thread_axis
from ...te.operation import ComputeOp, PlaceholderOp
from ...te.schedule import AutoInlineInjective, Schedule, create_schedule
from ...te.stage import INLINE
from ...te.tensor import Tensor
from ...tir.expr import IntImm
from ..generic.schedules import Outs, _outs
from .injective import bind_threads, max_threads

#: a reduction this long over at most ``_FEW_OUTPUTS`` elements uses threads per output
_LONG_REDUCTION = 256
_FEW_OUTPUTS = 64
_CROSS_THREADS = 256


def _extent(ivs) -> int:
    n = 1
    for iv in ivs:
        e = iv.dom.extent
        if not isinstance(e, IntImm):
            return -1
        n *= e.value
    return n


def _cross_thread(sch: Schedule, out: Tensor) -> None:
    stage = sch[out]
    raxes = list(stage.op.reduce_axis)
    r = stage.fuse(*raxes) if len(raxes) > 1 else raxes[0]
    _, ki = stage.split(r, factor=_CROSS_THREADS)
    rf = sch.rfactor(out, ki)
    stage = sch[out]
    axes = list(stage.op.axis)
    if axes:
        fused = stage.fuse(*axes) if len(axes) > 1 else axes[0]
        stage.bind(fused, thread_axis("blockIdx.x"))
    tx = stage.op.reduce_axis[0]
    stage.bind(tx, thread_axis("threadIdx.x"))
    sch[rf].compute_at(stage, tx)


def schedule_reduction_stage(sch: Schedule, out: Tensor) -> None:
    """Bind the reduction stage of ``out`` to GPU threads (see the module docstring)."""
    op = out.op
    spatial = _extent(op.axis)
    reduction = _extent(op.reduce_axis)
    single = op.num_outputs == 1
    if single and (not op.axis or (0 <= spatial <= _FEW_OUTPUTS
                                   and reduction >= _LONG_REDUCTION)):
        _cross_thread(sch, out)
    elif not op.axis:
        raise TVMError(f"topi.cuda: the 0-D reduction {op.name} has {op.num_outputs} outputs; "
                       "a cross-thread reduction takes one")
    else:
        bind_threads(sch, out, min(max_threads(), 256))


def schedule_reduce_graph(outs: Outs) -> Schedule:
    """Schedule a graph of reductions and injective operators for a GPU (module
    docstring)."""
    outs = _outs(outs)
    s = create_schedule([t.op for t in outs])
    AutoInlineInjective(s)
    out_ops = {id(t.op) for t in outs}
    todo: List = []
    for st in s.stages:
        op = st.op
        if isinstance(op, PlaceholderOp) or st.attach_type == INLINE:
            continue
        if not isinstance(op, ComputeOp):
            raise TVMError(f"topi.cuda: stage {op.name} is a {type(op).__name__}; only compute "
                           "stages can be bound to GPU threads")
        if op.reduce_axis or id(op) in out_ops:
            todo.append(op)
    for op in todo:
        t = op.output(0)
        if op.reduce_axis:
            schedule_reduction_stage(s, t)
        else:
            bind_threads(s, t)
    return s


def schedule_reduce(outs: Outs) -> Schedule:
    """Reductions (``sum``, ``max``, ``argmax``…) on a GPU."""
    return schedule_reduce_graph(outs)
