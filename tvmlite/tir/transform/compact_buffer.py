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

from typing import List, Tuple

from .. import op as _op
from ..buffer import Buffer
from ..expr import BufferLoad, IntImm, Range, Var
from ..functor import Mutator, Visitor
from ..schedule.storage_align import ATTR as ALIGN_ATTR, aligned_strides
from .lower_blocks import CARRY_ATTR
from ..stmt import Allocate, BufferStore, For
from .flatten_buffer import flat_extent


class _Accesses(Visitor):
    """Every access of one buffer variable with the loops around it."""

    def __init__(self, data: Var):
        self.data = data
        self.loops: List[For] = []
        self.found: List[Tuple[Buffer, tuple, List[For]]] = []

    def visit_For(self, s):
        self.loops.append(s)
        self.generic(s)
        self.loops.pop()

    def visit_BufferLoad(self, e):
        if e.buffer.data is self.data:
            self.found.append((e.buffer, e.indices, list(self.loops)))
        self.generic(e)

    def visit_BufferStore(self, s):
        if s.buffer.data is self.data:
            self.found.append((s.buffer, s.indices, list(self.loops)))
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

    def visit_Allocate(self, a):
        body = self.visit(a.body)
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
        # the innermost loop enclosing every access
        common: List[For] = col.found[0][2]
        for _, _, loops in col.found[1:]:
            n = 0
            while n < min(len(common), len(loops)) and common[n] is loops[n]:
                n += 1
            common = common[:n]
        # never inside a loop that accumulates into the buffer across its iterations
        for n, lp in enumerate(common):
            if lp.loop_var in carry:
                common = common[:n]
                break
        anchor = common[-1] if common else None
        # the region accessed below the anchor
        region = None
        from ...arith import relax_region, union
        from ...arith.int_set import IntSet

        try:
            sets = None
            for _, indices, loops in col.found:
                dom = {lp.loop_var: Range(lp.min, lp.extent) for lp in loops[len(common):]}
                rs = relax_region(indices, dom, self.ana)
                cur = [IntSet.from_range(r) for r in rs]
                sets = cur if sets is None else [union([x, y], self.ana)
                                                 for x, y in zip(sets, cur)]
            region = [s.to_range(self.ana) for s in sets]
        except (ValueError, TypeError):
            region = None
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


def compact_buffer_allocation(body, func=None):
    """Relocate and shrink intermediate buffers (see the module docstring)."""
    from ...arith import Analyzer

    return _Compact(Analyzer()).visit(body)
