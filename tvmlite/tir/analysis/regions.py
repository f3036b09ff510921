"""The read and write regions of a block: the one access-region analysis of tvmlite.

``create_prim_func`` (TE), the TVMScript parser (a block without ``T.reads``/``T.writes``)
and the schedule primitives that recompute a block's regions (rfactor, blockize/tensorize,
compute_inline, reverse_compute_inline, decompose_reduction) take them from here;
``tests/test_tir_analysis_regions.py`` checks that every primitive's blocks agree with it.

Convention (classic TVMScript's)
--------------------------------
- Every buffer the block's ``init`` and ``body`` load or store is listed once, in the order of
  its first access (``init`` first), except buffers allocated inside the block.
- **A block with an init (a reduction) does not list the buffers it writes among its reads**:
  ``C[i] = C[i] + A[i, k]`` under ``T.init()`` reads ``[A]`` and writes ``[C]``. The
  read-modify-write is implied by the init: :func:`read_modify_write_buffers` names it, and
  the schedule's dependence checks (``buffers_read``) take a block's body accesses, which hold
  it. A block without an init that updates a buffer in place (``decompose_reduction``'s
  update) lists it in both.
- Regions are in terms of the block's iterators (and variables free in the block). Loops inside
  the block are relaxed to their ranges; a nested block contributes its declared regions with
  its bindings substituted.
- Per dimension: when every access agrees and uses no inner loop, the index as written (a
  point, not simplified, so TE's and the parser's regions print as their accesses);
  otherwise the union of the relaxed accesses when its extent is a constant or there is one
  access; otherwise the whole dimension.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ...arith import Analyzer
from ...arith.int_set import relax_region
from ...ir.structural import structural_equal
from .. import op as _op
from ..buffer import Buffer
from ..expr import IntImm, Ramp, Range, Var
from ..functor import Visitor, collect_vars, substitute
from ..stmt import Block, BufferRegion, Stmt

Regions = Tuple[Tuple[BufferRegion, ...], Tuple[BufferRegion, ...]]


class _Accesses(Visitor):
    """Accesses of a block's statements per buffer (first-access order), each a tuple of
    Ranges, and the ranges of the loops inside the block."""

    def __init__(self):
        self.reads: Dict[int, Tuple[Buffer, List[tuple]]] = {}
        self.writes: Dict[int, Tuple[Buffer, List[tuple]]] = {}
        self.loops: Dict[Var, Range] = {}
        self.local: set = set()

    @staticmethod
    def _add(table, buf: Buffer, ranges) -> None:
        entry = table.get(id(buf))
        if entry is None:
            table[id(buf)] = (buf, [tuple(ranges)])
        else:
            entry[1].append(tuple(ranges))

    @staticmethod
    def _point(indices) -> List[Range]:
        out = []
        for i in indices:
            if isinstance(i, Ramp) and isinstance(i.stride, IntImm) and i.stride.value >= 0:
                n = i.stride.value * (i.lanes - 1) + 1
                out.append(Range(i.base, _op.const(n, i.base.dtype)))
            else:
                out.append(Range(i, _op.const(1, i.dtype)))
        return out

    def visit_BufferLoad(self, e):
        self.generic(e)
        self._add(self.reads, e.buffer, self._point(e.indices))

    def visit_BufferStore(self, s):
        self.visit(s.value)
        self.visit(s.indices)
        self._add(self.writes, s.buffer, self._point(s.indices))

    def visit_For(self, f):
        self.loops[f.loop_var] = Range(f.min, f.extent)
        self.generic(f)

    def visit_BlockRealize(self, r):
        self.visit(r.iter_values)
        self.visit(r.predicate)
        blk = r.block
        vmap = {iv.var: v for iv, v in zip(blk.iter_vars, r.iter_values)}
        self.local.update(id(b) for b in blk.alloc_buffers)
        for table, regions in ((self.reads, blk.reads), (self.writes, blk.writes)):
            for reg in regions:
                self._add(table, reg.buffer, [Range(substitute(x.min, vmap),
                                                    substitute(x.extent, vmap))
                                              for x in reg.region])


def union_ranges(ranges: Sequence[Range], analyzer: Analyzer) -> Range:
    """The smallest range holding every range of ``ranges``, simplified by ``analyzer``."""
    lo, hi = ranges[0].min, _op.add(ranges[0].min, ranges[0].extent)
    for r in ranges[1:]:
        lo, hi = _op.min(lo, r.min), _op.max(hi, _op.add(r.min, r.extent))
    lo = analyzer.simplify(lo)
    return Range(lo, analyzer.simplify(_op.sub(hi, lo)))


def _cover(buf: Buffer, accesses: List[tuple], loops: Dict[Var, Range],
           analyzer: Callable[[], Analyzer]) -> BufferRegion:
    """The region covering ``accesses`` (tuples of Ranges) of ``buf``."""
    ranges = []
    for d, shape in enumerate(buf.shape):
        rs = [acc[d] for acc in accesses]
        first = rs[0]
        inner = {v: loops[v] for r in rs for v in collect_vars(r.min) | collect_vars(r.extent)
                 if v in loops} if loops else {}
        if not inner and all(structural_equal(r, first, map_free_vars=False) for r in rs[1:]):
            ranges.append(first)
            continue
        ana = analyzer()
        try:
            relaxed = relax_region(rs, inner, ana) if inner else rs
        except ValueError:
            relaxed = None
        if relaxed:
            box = union_ranges(relaxed, ana)
            if len(rs) == 1 or isinstance(box.extent, IntImm):
                ranges.append(box)
                continue
        ranges.append(Range(_op.const(0, shape.dtype), shape))
    return BufferRegion(buf, tuple(ranges))


def block_access_regions(body: Stmt, init: Optional[Stmt] = None,
                         alloc_buffers: Sequence[Buffer] = (),
                         dom: Optional[Mapping[Var, Range]] = None) -> Regions:
    """The ``(reads, writes)`` of a block with ``body``, ``init`` and ``alloc_buffers``.

    Parameters
    ----------
    body, init : the block's statements (``init`` None for a block without ``T.init()``).
    alloc_buffers : buffers the block allocates; they are not listed.
    dom : ranges of the block's iterators and outer variables (they only help to simplify).

    Returns
    -------
    reads, writes : tuples of BufferRegion, by the convention of this module.
    """
    col = _Accesses()
    if init is not None:
        col.visit(init)
    col.visit(body)
    local = col.local | {id(b) for b in alloc_buffers}
    made: List[Analyzer] = []

    def ana() -> Analyzer:  # made on first use: most regions need no arithmetic
        if not made:
            made.append(Analyzer())
            for v, r in (dom or {}).items():
                made[0].bind(v, r)
        return made[0]

    writes = tuple(_cover(buf, accs, col.loops, ana) for k, (buf, accs) in col.writes.items()
                   if k not in local)
    reads = tuple(_cover(buf, accs, col.loops, ana) for k, (buf, accs) in col.reads.items()
                  if k not in local and (init is None or k not in col.writes))
    return reads, writes


def block_regions(block: Block, dom: Optional[Mapping[Var, Range]] = None) -> Regions:
    """:func:`block_access_regions` of ``block`` (its iterators' domains are known)."""
    full = {iv.var: iv.dom for iv in block.iter_vars}
    full.update(dom or {})
    return block_access_regions(block.body, block.init, block.alloc_buffers, full)


def read_modify_write_buffers(block: Block) -> List[Buffer]:
    """The buffers a reduction block reads back as well as writes (those its init stores):
    the read-modify-write its ``reads`` leave out. Empty for a block without an init."""
    if block.init is None:
        return []
    col = _Accesses()
    col.visit(block.init)
    return [buf for buf, _ in col.writes.values()]


__all__ = ["block_access_regions", "block_regions", "read_modify_write_buffers", "union_ranges"]

