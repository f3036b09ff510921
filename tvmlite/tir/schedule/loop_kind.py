"""``parallel``, ``vectorize``, ``unroll`` and ``bind``: set how a loop runs."""
from __future__ import annotations

from ..expr import IterVar, IterVarType, Var
from ..functor import collect_vars, substitute
from ..stmt import For, ForKind
from .error import fail
from .state import (
    LoopRV,
    ScheduleState,
    bound_vars_of_loop,
    child_blocks,
    is_one,
    is_quasi_affine,
    is_reduction_block,
    replace,
)

_THREAD_TAGS = {
    "blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z",
    "vthread", "vthread.x", "vthread.y", "vthread.z", "cthread",
}

_DONE = {ForKind.PARALLEL: "parallelized", ForKind.VECTORIZED: "vectorized"}


def _check_blocks_analyzable(loop: For, prim: str, what: str) -> None:
    """Classic TVM's conditions for running a loop's iterations apart: the bindings of the
    blocks under it are quasi-affine, and a reduction block writes only at data-parallel
    indices (compact dataflow)."""
    for realize in child_blocks(loop):
        block = realize.block
        for iv, value in zip(block.iter_vars, realize.iter_values):
            if not is_quasi_affine(value, collect_vars(value)):
                raise fail(prim, what, f'the binding {value} of iterator "{iv.var.name}" of '
                           f'block "{block.name_hint}" is not quasi-affine')
        reduce_vars = {iv.var for iv in block.iter_vars if iv.iter_type != IterVarType.DataPar}
        if not is_reduction_block(block):
            # the block's signature, as classic's complete-block check reads it
            written = [w.buffer for w in block.writes]
            for buf in (r.buffer for r in block.reads):
                if any(buf is w for w in written):
                    raise fail(prim, what, f'block "{block.name_hint}" reads and writes '
                               f'"{buf.name}" without being a reduction block (its dataflow is '
                               "not compact: an iteration may read what another one writes)")
        for w in block.writes:
            used = set().union(*(collect_vars(r.min) | collect_vars(r.extent) for r in w.region))
            if reduce_vars & used:
                raise fail(prim, what, f'block "{block.name_hint}" writes "{w.buffer.name}" at '
                           "indices that depend on a reduction iterator (its dataflow is not "
                           "compact)")


def _check_no_shared_writes(state: ScheduleState, loop: For, prim: str, what: str) -> None:
    """Refuse a parallel loop under which a block writes the same region of an argument
    buffer in every iteration (e.g. a write-back made for a loop bound to a virtual thread,
    which copies all the threads' elements): the iterations would race, each with its own
    copy of what it did not compute."""
    for realize in child_blocks(loop):
        block = realize.block
        bind = {iv.var: v for iv, v in zip(block.iter_vars, realize.iter_values)}
        for w in block.writes:
            if not state.is_output_buffer(w.buffer):
                continue
            used = set().union(*(collect_vars(substitute(r.min, bind))
                                 | collect_vars(substitute(r.extent, bind)) for r in w.region))
            if loop.loop_var not in used:
                region = ", ".join(f"{r.min}:{r.min + r.extent}" for r in w.region)
                raise fail(prim, what, f'block "{block.name_hint}" writes '
                           f'"{w.buffer.name}"[{region}] in every iteration (the region does '
                           f'not depend on "{loop.loop_var.name}"): parallel iterations would '
                           "race")


def _set_kind(state: ScheduleState, loop_rv: LoopRV, kind: ForKind, prim: str,
              thread: str = "") -> None:
    path = state.loop_path(loop_rv, prim)
    loop: For = path[-1]
    what = f'loop "{loop.loop_var.name}"'
    if kind != ForKind.UNROLLED:
        _check_blocks_analyzable(loop, prim, what)
    cross_thread = kind == ForKind.THREAD_BINDING and thread.startswith("threadIdx.")
    if kind != ForKind.UNROLLED and not cross_thread:
        for realize, ivs in bound_vars_of_loop(loop, loop.loop_var):
            for iv in ivs:
                if iv.iter_type == IterVarType.DataPar:
                    continue
                if kind == ForKind.THREAD_BINDING:
                    # worded as the GPU lowering words it for TE schedules
                    raise fail(prim, what, f"the loop bound to {thread} is a reduction loop "
                               f"of {realize.block.name_hint}: blocks cannot reduce into one "
                               f'element (iterator "{iv.var.name}"; bind the reduction to '
                               "threadIdx, as a cross-thread reduction, or keep it serial)")
                raise fail(prim, what, f'the loop is bound to the reduction iterator '
                           f'"{iv.var.name}" of block "{realize.block.name_hint}"; only '
                           "data-parallel loops can be " + _DONE[kind])
    if kind == ForKind.PARALLEL and not is_one(loop.extent):
        _check_no_shared_writes(state, loop, prim, what)
    binding = None
    if kind == ForKind.THREAD_BINDING:
        binding = IterVar(None, Var(thread, loop.loop_var.dtype),
                          IterVarType.ThreadIndex, thread)
    new = For(loop.loop_var, loop.min, loop.extent, kind, loop.body, binding, loop.annotations)
    replace(state, path, new)


def parallel(state: ScheduleState, loop_rv: LoopRV) -> None:
    """Run the iterations of a data-parallel loop in parallel threads.

    Before: ``for i in range(n):`` — After: ``for i in T.parallel(n):``
    """
    _set_kind(state, loop_rv, ForKind.PARALLEL, "parallel")


def vectorize(state: ScheduleState, loop_rv: LoopRV) -> None:
    """Mark a data-parallel loop to become vector operations.

    Before: ``for i in range(8):`` — After: ``for i in T.vectorized(8):``
    """
    _set_kind(state, loop_rv, ForKind.VECTORIZED, "vectorize")


def unroll(state: ScheduleState, loop_rv: LoopRV) -> None:
    """Mark a loop to be unrolled.

    Before: ``for i in range(4):`` — After: ``for i in T.unroll(4):``
    """
    _set_kind(state, loop_rv, ForKind.UNROLLED, "unroll")


def bind(state: ScheduleState, loop_rv: LoopRV, thread_axis) -> None:
    """Bind a loop to a GPU thread axis.

    Before: ``for i in range(32):`` — After: ``for i in T.thread_binding(32,
    thread="threadIdx.x"):``
    """
    tag = thread_axis
    if isinstance(thread_axis, IterVar):
        tag = thread_axis.thread_tag
    if not isinstance(tag, str) or tag not in _THREAD_TAGS:
        path = state.loop_path(loop_rv, "bind")
        raise fail("bind", f'loop "{path[-1].loop_var.name}"',
                   f"{thread_axis!r} is not a thread axis (expected one of "
                   f"{', '.join(sorted(_THREAD_TAGS))})")
    _set_kind(state, loop_rv, ForKind.THREAD_BINDING, "bind", tag)
