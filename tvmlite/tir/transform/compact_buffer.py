"""Move each intermediate buffer's allocation to the innermost loop that holds all its accesses
and shrink it to the region accessed there (TVM's buffer-allocation planning + compaction).

This is what makes a cache ``compute_at``-ed into a tile loop a per-tile buffer (the GEMM write
cache of book §4.6). Before (``C_local`` allocated for the whole matrix at the top)::

    C_local = T.allocate([64, 64], "float32", "local")
    for xy in T.parallel(4):
        for xc, yc in T.grid(32, 32):
            C_local[xy // 2 * 32 + xc, xy % 2 * 32 + yc] = ...
        for xi, yi in T.grid(32, 32):
            C[...] = C_local[xy // 2 * 32 + xi, xy % 2 * 32 + yi]

After::

    for xy in T.parallel(4):
        C_local = T.allocate([32, 32], "float32", "local")
        for xc, yc in T.grid(32, 32):
            C_local[xc, yc] = ...
        for xi, yi in T.grid(32, 32):
            C[...] = C_local[xi, yi]

Runs on loop-level IR (after block lowering), before flattening.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ...arith import Analyzer, relax_region, union
from ...arith.int_set import IntSet
from .. import op as _op
from ..analysis.verify_gpu_code import VIRTUAL_THREADS
from ..buffer import Buffer
from ..expr import BufferLoad, Call, IntImm, Range, Var
from ..functor import Mutator, Visitor, collect_vars
from ..stmt import Allocate, BufferStore, For
from ..stmt_util import ALIGN_ATTR, aligned_strides
from .flatten_buffer import flat_extent
from .lower_blocks import CARRY_ATTR


class _Accesses(Visitor):
    """Every access of one buffer variable with the loops around it."""

    def __init__(self, data: Var):
        self.data = data
        self.loops: List[For] = []
        self.guards: list = []  # conditions of the enclosing ifs
        # (buffer, indices, loops, is_write, guards)
        self.found: List[Tuple[Buffer, tuple, List[For], bool, tuple]] = []

    def visit_For(self, s):
        self.loops.append(s)
        self.generic(s)
        self.loops.pop()

    def visit_IfThenElse(self, s):
        self.visit(s.condition)
        self.guards.append(s.condition)
        self.visit(s.then_case)
        self.guards.pop()
        if s.else_case is not None:
            self.guards.append(_op.logical_not(s.condition))
            self.visit(s.else_case)
            self.guards.pop()

    def visit_BufferLoad(self, e):
        if e.buffer.data is self.data:
            self.found.append((e.buffer, e.indices, list(self.loops), False, tuple(self.guards)))
        self.generic(e)

    def visit_BufferStore(self, s):
        if s.buffer.data is self.data:
            self.found.append((s.buffer, s.indices, list(self.loops), True, tuple(self.guards)))
        self.generic(s)

    def visit_Call(self, e):
        if any(a is self.data for a in e.args) or any(
                isinstance(a, Buffer) and a.data is self.data for a in e.args):
            self.opaque = True  # passed by address: leave the buffer alone
        self.generic(e)


class _Rewrite(Mutator):
    def __init__(self, old: Var, new: Buffer, offsets, anchor, alloc):
        self.old, self.new, self.offsets = old, new, offsets
        self.anchor, self.alloc = anchor, alloc

    def _idx(self, indices):
        return tuple(_op.sub(i, o) for i, o in zip(indices, self.offsets))

    def visit_BufferLoad(self, e):
        idx = self.visit(e.indices)
        if e.buffer.data is self.old:
            return BufferLoad(self.new, self._idx(idx))
        return e if idx is e.indices else BufferLoad(e.buffer, idx)

    def visit_BufferStore(self, s):
        idx, value = self.visit(s.indices), self.visit(s.value)
        if s.buffer.data is self.old:
            return BufferStore(self.new, value, self._idx(idx))
        if idx is s.indices and value is s.value:
            return s
        return BufferStore(s.buffer, value, idx)

    def visit_For(self, s):
        new = self.generic(s)
        if s is self.anchor:
            body = Allocate(self.alloc.buffer_var, self.alloc.dtype, self.alloc.extents,
                            self.alloc.condition, new.body, self.alloc.annotations,
                            self.alloc.scope)
            new = For(new.loop_var, new.min, new.extent, new.kind, body, new.thread_binding,
                      new.annotations)
        return new


class _Compact(Mutator):
    def __init__(self, analyzer):
        self.ana = analyzer
        # the relaxed region of each access of the buffer being compacted, by (access, depth):
        # whenever one is asked for, the loops above ``depth`` (the common ones) are bound
        self._relaxed: dict = {}

    def _region(self, accesses, depth: int):
        return _region_of(self.ana, accesses, depth, memo=self._relaxed)

    def _clips_to_buffer(self, access, guard) -> bool:
        """Does ``guard`` hold whenever the accessed element lies inside the buffer?"""
        buf, indices, loops = access[0], access[1], access[2]
        inside = IntImm("bool", 1)
        for i, n in zip(indices, buf.shape):
            inside = _op.logical_and(inside, _op.logical_and(_op.le(0, i), _op.lt(i, n)))
        with self.ana.constraint_scope(True):
            self._bind_loops(loops)
            with self.ana.constraint_scope(inside):
                return self.ana.can_prove(_strip_likely(guard))

    def _bind_loops(self, loops) -> None:
        """Bind each of ``loops`` to its range, inside a constraint scope of the caller: a
        range with non-constant bounds also says that its loop runs, which holds only in the
        body of that loop (an empty ``range(2 - j)`` says ``j <= 1``, fuzz seed 11 case 3193's
        pattern), so it must not outlive the question asked about that body."""
        for lp in loops:
            self.ana.bind(lp.loop_var, Range(lp.min, lp.extent), allow_override=True)

    def _self_contained(self, accesses, depth: int) -> bool:
        """Within one iteration of the loop at ``depth``, is every element read also
        written? (Then a fresh buffer per iteration computes the same values.)"""
        reads = [a for a in accesses if not a[3]]
        if not reads:
            return True
        writes = [a for a in accesses if a[3]]
        # a write under a guard on this loop or an inner one may skip some iterations, unless
        # the guard only keeps the written element inside the buffer (a non-divisible tile)
        inner = {lp.loop_var for a in accesses for lp in a[2][depth - 1:]}
        for a in writes:
            for g in a[4]:
                if collect_vars(g) & inner and not self._clips_to_buffer(a, g):
                    return False
        with self.ana.constraint_scope(True):
            self._bind_loops(accesses[0][2][:depth])  # the loops kept fixed bound the regions
            r, w = self._region(reads, depth), self._region(writes, depth)
            if r is None or w is None:
                return False
            return all(
                self.ana.can_prove(_op.le(wr.min, rr.min))
                and self.ana.can_prove(_op.le(_op.add(rr.min, rr.extent),
                                              _op.add(wr.min, wr.extent)))
                for rr, wr in zip(r, w))

    def visit_Allocate(self, a):
        body = self.visit(a.body)
        # what is learnt about one buffer's loops is forgotten before the next buffer
        with self.ana.constraint_scope(True):
            self._relaxed = {}
            return self._compact(a, body)

    def _compact(self, a, body):
        # storage_align's (axis, factor, offset) entries, left here by lower_blocks: the
        # shrunk buffer is aligned again
        anns = a.annotations or {}
        aligns = anns.get(ALIGN_ATTR)
        carry = set(anns.get(CARRY_ATTR, ()))
        if aligns is not None or carry:
            rest = {k: v for k, v in anns.items() if k not in (ALIGN_ATTR, CARRY_ATTR)} or None
            a = Allocate(a.buffer_var, a.dtype, a.extents, a.condition, a.body, rest, a.scope)
        col = _Accesses(a.buffer_var)
        col.opaque = False
        col.visit(body)
        buf = col.found[0][0] if col.found else None
        # opaque, unused, or laid out on purpose without a known alignment: keep it
        if col.opaque or buf is None or (buf.strides and not aligns):
            return a if body is a.body else Allocate(
                a.buffer_var, a.dtype, a.extents, a.condition, body, a.annotations, a.scope)
        # the innermost loop enclosing every access ...
        common: List[For] = col.found[0][2]
        for _, _, loops, _, _ in col.found[1:]:
            n = 0
            while n < min(len(common), len(loops)) and common[n] is loops[n]:
                n += 1
            common = common[:n]
        # ... through which no value flows from one iteration to the next: not a loop that
        # accumulates into the buffer, and each iteration reads only what it writes
        for n, lp in enumerate(common):
            # GPU memory holds no value from one block, thread or shared-cache tile to the
            # next (classic TE allocates such caches at their attach point)
            gpu = lp.thread_binding is not None or a.scope == "shared"
            if lp.loop_var in carry or not (gpu or self._self_contained(col.found, n + 1)):
                common = common[:n]
                break
        anchor = common[-1] if common else None
        # the region accessed below the anchor, the loops above it fixed (they enclose every
        # access, so their ranges hold wherever the buffer is used) -- except, for shared
        # memory, the thread and virtual-thread loops: one copy serves the whole thread block
        # (classic InferBound relaxes them for shared storage), so it holds what every thread
        # and virtual thread accesses (fuzz seed 12: a read_at/write_at copy under a vthread)
        self._bind_loops(common)
        relaxed = [lp for lp in common if _block_wide(lp)] if _is_shared(a.scope) else []
        region = _region_of(self.ana, col.found, len(common), relaxed,
                            None if relaxed else self._relaxed)
        full_shape = tuple(buf.shape) if buf.strides else tuple(a.extents)
        shape, offsets = list(full_shape), [IntImm(e.dtype, 0) for e in full_shape]
        if region is not None and len(region) == len(shape):
            for d, r in enumerate(region):
                ext = self.ana.simplify(r.extent)
                full = shape[d]
                if isinstance(ext, IntImm) and (not isinstance(full, IntImm)
                                                or ext.value < full.value):
                    shape[d] = ext
                    offsets[d] = self.ana.simplify(r.min)
        if anchor is None and all(o is None or (isinstance(o, IntImm) and o.value == 0)
                                  for o in offsets) and tuple(shape) == full_shape:
            return a if body is a.body else Allocate(
                a.buffer_var, a.dtype, a.extents, a.condition, body, a.annotations, a.scope)
        strides = tuple(aligned_strides(shape, aligns)) if aligns else ()
        new_buf = Buffer(buf.data, buf.dtype, tuple(shape), strides, buf.elem_offset, buf.name,
                         buf.data_alignment, buf.offset_factor, buf.scope_name)
        extents = (flat_extent(new_buf),) if strides else tuple(shape)
        new_alloc = Allocate(a.buffer_var, a.dtype, extents, a.condition, body,
                             a.annotations, a.scope)
        out = _Rewrite(a.buffer_var, new_buf, offsets, anchor, new_alloc).visit(body)
        if anchor is None:
            return Allocate(a.buffer_var, a.dtype, extents, a.condition, out,
                            a.annotations, a.scope)
        return out


def _strip_likely(e):
    return e.args[0] if isinstance(e, Call) and e.op == "likely" else e


def _is_shared(scope: str) -> bool:
    return scope.startswith("shared")


def _block_wide(lp: For) -> bool:
    """A loop over the threads or virtual threads of one thread block."""
    tb = lp.thread_binding
    return tb is not None and (tb.thread_tag.startswith("threadIdx")
                               or tb.thread_tag in VIRTUAL_THREADS)


def _region_of(ana, accesses, depth: int, relaxed=(), memo: Optional[dict] = None):
    """The union region of ``accesses`` with the loops below ``depth`` and the loops
    ``relaxed`` relaxed, or None. ``memo`` keeps each access's relaxed region by depth."""
    sets = None
    try:
        for access in accesses:
            cur = memo.get((id(access), depth)) if memo is not None else None
            if cur is None:
                _, indices, loops, _, _ = access
                dom = {lp.loop_var: Range(lp.min, lp.extent)
                       for lp in (*relaxed, *loops[depth:])}
                cur = [IntSet.from_range(r) for r in relax_region(indices, dom, ana)]
                if memo is not None:
                    memo[(id(access), depth)] = cur
            sets = cur if sets is None else [union([x, y], ana) for x, y in zip(sets, cur)]
        return [x.to_range(ana) for x in sets] if sets is not None else None
    except (ValueError, TypeError):
        return None


def compact_buffer_allocation(body, func=None):
    """Relocate and shrink intermediate buffers (see the module docstring)."""
    return _Compact(Analyzer()).visit(body)
