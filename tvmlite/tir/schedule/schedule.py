"""``tvm.tir.Schedule``: TVM's TensorIR schedule API over the engine's primitives.

Every primitive lives in its own module; this class resolves handles, forwards, and records
the call in the trace. Methods named ``*_loops`` (:meth:`Schedule.compute_at_loops`,
:meth:`Schedule.reverse_compute_at_loops`) are the engine's extension returning the loops a
primitive created, for the TE facade.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from ...ir.module import IRModule
from ..function import PrimFunc
from ..stmt import BlockRealize
from . import (
    annotate as _annotate,
)
from . import (
    blockize_tensorize as _bt,
)
from . import (
    cache_read_write as _cache,
)
from . import (
    compute_at as _ca,
)
from . import (
    compute_inline as _ci,
)
from . import (
    decompose_reduction as _dr,
)
from . import (
    fuse as _fuse,
)
from . import (
    loop_kind as _lk,
)
from . import (
    reorder as _reorder,
)
from . import (
    rfactor as _rf,
)
from . import (
    set_scope as _ss,
)
from . import (
    split as _split,
)
from . import (
    storage_align as _sa,
)
from .error import ScheduleError, fail
from .state import (
    BlockRV,
    LoopRV,
    ScheduleState,
    buffers_read,
    buffers_written,
    child_blocks,
    loops_above,
    scope_index,
)
from .trace import Trace


class Schedule:
    """A TensorIR schedule over an IRModule or PrimFunc (``tvm.tir.Schedule``)."""

    def __init__(self, mod: Union[IRModule, PrimFunc], *, seed: Optional[int] = None,
                 debug_mask: Union[str, int] = "none", error_render_level: str = "detail",
                 enable_check: bool = True):
        if isinstance(mod, PrimFunc):
            mod = IRModule({"main": mod})
        if not isinstance(mod, IRModule):
            raise TypeError(f"Schedule expects an IRModule or a PrimFunc, got "
                            f"{type(mod).__name__}")
        names = [k for k, f in mod.functions.items() if isinstance(f, PrimFunc)]
        if not names:
            raise ValueError("Schedule: the module has no PrimFunc")
        func_name = "main" if "main" in names else names[0]
        self._state = ScheduleState(mod.copy(), func_name)
        self._trace = Trace()
        self._names: Dict[int, str] = {}

    # ------------------------------------------------------------------ basics
    @property
    def mod(self) -> IRModule:
        """The scheduled module."""
        return self._state.mod

    @property
    def state(self) -> ScheduleState:
        return self._state

    @property
    def trace(self) -> Trace:
        """The primitives applied so far (printable as Python)."""
        return self._trace

    @property
    def func_working_on(self):
        from ...ir.module import GlobalVar

        return GlobalVar(self._state.func_name)

    def work_on(self, func_name: str) -> None:
        """Make later ``get_block`` calls look in ``func_name``."""
        if func_name not in self._state.mod or not isinstance(self._state.mod[func_name],
                                                              PrimFunc):
            raise ValueError(f"work_on: {func_name!r} is not a PrimFunc of the module")
        self._state.func_name = func_name
        self._trace.record("work_on", [func_name], None)

    def copy(self) -> "Schedule":
        """An independent schedule with the same state; handles remain valid in both."""
        new = Schedule.__new__(Schedule)
        new._state = self._state.copy()
        new._trace = self._trace.copy()
        new._names = dict(self._names)
        return new

    def show(self) -> None:
        print(self.mod.script())

    def _func_of(self, rv) -> None:
        fn = getattr(rv, "func_name", None)
        if fn is not None and fn != self._state.func_name and fn in self._state.mod:
            self._state.func_name = fn

    def get(self, rv: Union[BlockRV, LoopRV]):
        """The current Block or For node of a handle."""
        self._func_of(rv)
        if isinstance(rv, BlockRV):
            return self._state.block_path(rv, "get")[-1].block
        if isinstance(rv, LoopRV):
            return self._state.loop_path(rv, "get")[-1]
        raise TypeError(f"get: expected a BlockRV or LoopRV, got {type(rv).__name__}")

    def get_sref(self, rv):
        return self.get(rv)

    def remove_rv(self, rv) -> None:
        pass

    # ------------------------------------------------------------------ queries
    def get_block(self, name: str, func_name: Optional[str] = None) -> BlockRV:
        """The block called ``name`` in ``func_name`` (default: the function worked on)."""
        if func_name is not None:
            if func_name not in self._state.mod:
                raise ValueError(f"get_block: no function {func_name!r} in the module")
            self._state.func_name = func_name
        fn = self._state.func_name
        count = []
        from .state import walk_stmts

        walk_stmts(self._state.body, lambda s: count.append(s) if isinstance(
            s, BlockRealize) and s.block.name_hint == name else None)
        if not count:
            raise fail("get_block", f'block "{name}"', f'no block of that name in function '
                       f'"{fn}"')
        if len(count) > 1:
            raise fail("get_block", f'block "{name}"', f"{len(count)} blocks have that name")
        rv = BlockRV(name, fn)
        self._trace.record("get_block", [name], rv, {"func_name": fn})
        return rv

    def get_loops(self, block: BlockRV) -> List[LoopRV]:
        """The loops above ``block`` up to its enclosing block, outermost first."""
        self._func_of(block)
        path = self._state.block_path(block, "get_loops")
        out = [LoopRV(lp.loop_var, block.func_name) for lp in loops_above(path)]
        self._trace.record("get_loops", [block], out)
        return out

    def get_child_blocks(self, rv: Union[BlockRV, LoopRV]) -> List[BlockRV]:
        """The blocks directly under a block or loop."""
        self._func_of(rv)
        node = (self._state.block_path(rv, "get_child_blocks")[-1] if isinstance(rv, BlockRV)
                else self._state.loop_path(rv, "get_child_blocks")[-1])
        fn = self._state.func_name
        out = [BlockRV(r.block.name_hint, fn) for r in child_blocks(node)]
        self._trace.record("get_child_blocks", [rv], out)
        return out

    def _scope_siblings(self, rv: BlockRV, prim: str):
        self._func_of(rv)
        path = self._state.block_path(rv, prim)
        si = scope_index(path)
        scope = path[si] if si >= 0 else None
        sibs = child_blocks(scope) if scope is not None else child_blocks(self._state.body)
        return path[-1], sibs

    def get_producers(self, block: BlockRV) -> List[BlockRV]:
        """Blocks of the same scope, before ``block`` in program order, that write a buffer
        ``block`` reads (TVM's read-after-write dependences)."""
        me, sibs = self._scope_siblings(block, "get_producers")
        reads = buffers_read(me.block)
        pos = next(k for k, r in enumerate(sibs) if r is me)
        out = [BlockRV(r.block.name_hint, block.func_name) for r in sibs[:pos]
               if any(any(b is w for w in buffers_written(r.block)) for b in reads)]
        self._trace.record("get_producers", [block], out)
        return out

    def get_consumers(self, block: BlockRV) -> List[BlockRV]:
        """Blocks of the same scope, after ``block`` in program order, that read a buffer
        ``block`` writes."""
        me, sibs = self._scope_siblings(block, "get_consumers")
        writes = buffers_written(me.block)
        pos = next(k for k, r in enumerate(sibs) if r is me)
        out = [BlockRV(r.block.name_hint, block.func_name) for r in sibs[pos + 1:]
               if any(any(b is w for w in buffers_read(r.block)) for b in writes)]
        self._trace.record("get_consumers", [block], out)
        return out

    # ------------------------------------------------------------------ loops
    def split(self, loop: LoopRV, factors: Sequence[Optional[Any]],
              preserve_unit_iters: bool = True) -> List[LoopRV]:
        """Split ``loop`` by ``factors`` (one may be None); returns the new loops."""
        self._func_of(loop)
        out = _split.split(self._state, loop, list(factors), preserve_unit_iters)
        self._trace.record("split", [loop], out, {"factors": list(factors),
                                                   "preserve_unit_iters": preserve_unit_iters})
        return out

    def fuse(self, *loops: LoopRV, preserve_unit_iters: bool = True) -> LoopRV:
        """Fuse consecutive loops; returns the fused loop."""
        if len(loops) == 1 and isinstance(loops[0], (list, tuple)):
            loops = tuple(loops[0])
        if loops:
            self._func_of(loops[0])
        out = _fuse.fuse(self._state, loops, preserve_unit_iters)
        self._trace.record("fuse", list(loops), out,
                           {"preserve_unit_iters": preserve_unit_iters})
        return out

    def reorder(self, *ordered_loops: LoopRV) -> None:
        """Reorder loops of one nest into the given order."""
        if len(ordered_loops) == 1 and isinstance(ordered_loops[0], (list, tuple)):
            ordered_loops = tuple(ordered_loops[0])
        if ordered_loops:
            self._func_of(ordered_loops[0])
        _reorder.reorder(self._state, ordered_loops)
        self._trace.record("reorder", list(ordered_loops), None)

    def parallel(self, loop: LoopRV) -> None:
        self._func_of(loop)
        _lk.parallel(self._state, loop)
        self._trace.record("parallel", [loop], None)

    def vectorize(self, loop: LoopRV) -> None:
        self._func_of(loop)
        _lk.vectorize(self._state, loop)
        self._trace.record("vectorize", [loop], None)

    def unroll(self, loop: LoopRV) -> None:
        self._func_of(loop)
        _lk.unroll(self._state, loop)
        self._trace.record("unroll", [loop], None)

    def bind(self, loop: LoopRV, thread_axis: str) -> None:
        self._func_of(loop)
        _lk.bind(self._state, loop, thread_axis)
        self._trace.record("bind", [loop], None, {"thread_axis": thread_axis})

    def annotate(self, block_or_loop: Union[BlockRV, LoopRV], ann_key: str,
                 ann_val: Any) -> None:
        self._func_of(block_or_loop)
        _annotate.annotate(self._state, block_or_loop, ann_key, ann_val)
        self._trace.record("annotate", [block_or_loop], None,
                           {"ann_key": ann_key, "ann_val": ann_val})

    def unannotate(self, block_or_loop: Union[BlockRV, LoopRV], ann_key: str) -> None:
        self._func_of(block_or_loop)
        _annotate.unannotate(self._state, block_or_loop, ann_key)
        self._trace.record("unannotate", [block_or_loop], None, {"ann_key": ann_key})

    # ------------------------------------------------------------------ compute location
    def compute_at_loops(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False,
                         index: int = -1) -> List[LoopRV]:
        """``compute_at`` returning the loops it created for the block, outermost first."""
        self._func_of(block)
        out = _ca.compute_at(self._state, block, loop, preserve_unit_loops)
        self._trace.record("compute_at", [block, loop], None,
                           {"preserve_unit_loops": preserve_unit_loops})
        return out

    def compute_at(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False,
                   index: int = -1) -> None:
        """Move a producer block under ``loop`` of its consumers, computing only the region
        they need there."""
        self.compute_at_loops(block, loop, preserve_unit_loops, index)

    def reverse_compute_at_loops(self, block: BlockRV, loop: LoopRV,
                                 preserve_unit_loops: bool = False,
                                 index: int = -1) -> List[LoopRV]:
        """``reverse_compute_at`` returning the loops it created, outermost first."""
        self._func_of(block)
        out = _ca.reverse_compute_at(self._state, block, loop, preserve_unit_loops)
        self._trace.record("reverse_compute_at", [block, loop], None,
                           {"preserve_unit_loops": preserve_unit_loops})
        return out

    def reverse_compute_at(self, block: BlockRV, loop: LoopRV,
                           preserve_unit_loops: bool = False, index: int = -1) -> None:
        """Move a consumer block under ``loop`` of its producers."""
        self.reverse_compute_at_loops(block, loop, preserve_unit_loops, index)

    def compute_inline(self, block: BlockRV) -> None:
        """Inline a producer block into its consumers."""
        self._func_of(block)
        _ci.compute_inline(self._state, block)
        self._trace.record("compute_inline", [block], None)

    def reverse_compute_inline(self, block: BlockRV) -> None:
        """Inline a consumer block into its producer."""
        self._func_of(block)
        _ci.reverse_compute_inline(self._state, block)
        self._trace.record("reverse_compute_inline", [block], None)

    # ------------------------------------------------------------------ caches & buffers
    def cache_read(self, block: BlockRV, read_buffer_index: int, storage_scope: str,
                   consumer_blocks: Optional[Sequence[BlockRV]] = None) -> BlockRV:
        """Add a block copying a buffer ``block`` reads into ``storage_scope``; returns it."""
        self._func_of(block)
        out = _cache.cache_read(self._state, block, read_buffer_index, storage_scope,
                                consumer_blocks)
        attrs = {"read_buffer_index": read_buffer_index, "storage_scope": storage_scope}
        if consumer_blocks is not None:
            attrs["consumer_blocks"] = list(consumer_blocks)
        self._trace.record("cache_read", [block], out, attrs)
        return out

    def cache_write(self, block: BlockRV, write_buffer_index: int, storage_scope: str,
                    consumer_blocks: Optional[Sequence[BlockRV]] = None) -> BlockRV:
        """Make ``block`` write into a ``storage_scope`` cache copied out by a new block;
        returns the copy block.

        The blocks in ``consumer_blocks`` read the cache directly; the other consumers keep
        reading the original buffer, which the copy block writes back."""
        self._func_of(block)
        out = _cache.cache_write(self._state, block, write_buffer_index, storage_scope,
                                 consumer_blocks)
        attrs = {"write_buffer_index": write_buffer_index, "storage_scope": storage_scope}
        if consumer_blocks is not None:
            attrs["consumer_blocks"] = list(consumer_blocks)
        self._trace.record("cache_write", [block], out, attrs)
        return out

    def storage_align(self, block: BlockRV, buffer_index: int, axis: int, factor: int,
                      offset: int) -> None:
        """Pad the stride of ``axis`` of a buffer ``block`` writes to ``k * factor + offset``."""
        self._func_of(block)
        _sa.storage_align(self._state, block, buffer_index, axis, factor, offset)
        self._trace.record("storage_align", [block], None,
                           {"buffer_index": buffer_index, "axis": axis, "factor": factor,
                            "offset": offset})

    def set_scope(self, block: BlockRV, buffer_index: int, storage_scope: str) -> None:
        """Set the storage scope of a buffer ``block`` writes."""
        self._func_of(block)
        _ss.set_scope(self._state, block, buffer_index, storage_scope)
        self._trace.record("set_scope", [block], None,
                           {"buffer_index": buffer_index, "storage_scope": storage_scope})

    # ------------------------------------------------------------------ reductions
    def decompose_reduction(self, block: BlockRV, loop: LoopRV) -> BlockRV:
        """Move the init of a reduction block into its own block before ``loop``; returns
        the init block."""
        self._func_of(block)
        out = _dr.decompose_reduction(self._state, block, loop)
        self._trace.record("decompose_reduction", [block, loop], out)
        return out

    def rfactor(self, loop: LoopRV, factor_axis: int) -> BlockRV:
        """Factor a reduction over ``loop`` into a partial-result block; returns it."""
        self._func_of(loop)
        out = _rf.rfactor(self._state, loop, factor_axis)
        self._trace.record("rfactor", [loop], out, {"factor_axis": factor_axis})
        return out

    # ------------------------------------------------------------------ tensorization
    def blockize(self, loop: LoopRV, preserve_unit_iters: bool = True) -> BlockRV:
        """Wrap the loops from ``loop`` down to their single block in a new outer block;
        returns it. ``preserve_unit_iters`` keeps block iterators of extent 1."""
        self._func_of(loop)
        out = _bt.blockize(self._state, loop, preserve_unit_iters)
        self._trace.record("blockize", [loop], out,
                           {"preserve_unit_iters": preserve_unit_iters})
        return out

    def tensorize(self, block_or_loop: Union[BlockRV, LoopRV], tensor_intrin,
                  preserve_unit_iters: bool = True) -> None:
        """Replace a block (or the block ``blockize`` makes of a loop) by an intrinsic.

        ``tensor_intrin`` is the name of a registered ``tir.TensorIntrin`` (or the object
        itself, or a ``te.decl_tensor_intrin`` result)."""
        from ..tensor_intrin import TensorIntrin

        self._func_of(block_or_loop)
        intrin = (TensorIntrin.get(tensor_intrin) if isinstance(tensor_intrin, str)
                  else tensor_intrin)
        state = self._state.copy()
        block = (_bt.blockize(state, block_or_loop, preserve_unit_iters)
                 if isinstance(block_or_loop, LoopRV)
                 else block_or_loop)
        if isinstance(intrin, TensorIntrin):
            impl = intrin.impl
            bufs = [impl.buffer_map.get(p) for p in impl.params]
            _bt.tensorize_block(state, block, intrin.desc, bufs, impl)
        elif hasattr(intrin, "as_engine_intrin"):
            desc, bufs, body, reset, update = intrin.as_engine_intrin()
            _bt.tensorize_block(state, block, desc, bufs, body, reset, update)
        else:
            raise TypeError(f"tensorize: expected a TensorIntrin or its registered name, got "
                            f"{type(tensor_intrin).__name__}")
        self._state.mod = state.mod
        # The trace names a registered intrinsic, so that its Python replays.
        recorded = tensor_intrin if isinstance(tensor_intrin, str) else TensorIntrin.name_of(
            intrin) or intrin
        self._trace.record("tensorize", [block_or_loop], None,
                           {"tensor_intrin": recorded,
                            "preserve_unit_iters": preserve_unit_iters})


__all__ = ["Schedule", "ScheduleError", "BlockRV", "LoopRV"]
