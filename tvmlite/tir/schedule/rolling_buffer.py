"""``rolling_buffer``: keep only a window of an intermediate buffer, indexed circularly."""
from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from .. import op as _op
from ..analysis import block_regions
from ..expr import (
    FloorDiv,
    IntImm,
    IterVar,
    IterVarType,
    Mul,
    PrimExpr,
    Range,
    Var,
)
from ..functor import Mutator, collect_vars, substitute
from ..stmt import Block, BlockRealize, BufferStore, For, ForKind
from .error import allocated_write, fail
from .state import (
    BlockRV,
    ScheduleState,
    buffers_read,
    buffers_written,
    can_prove,
    conj,
    find_path,
    relax_indices,
    simplify,
    walk_stmts,
)

PRIM = "rolling_buffer"


def rolling_buffer(state: ScheduleState, block_rv: BlockRV, write_buffer_index: int) -> None:
    """Shrink the ``write_buffer_index``-th buffer ``block`` writes to the window one iteration
    of a tile loop produces on its outermost rolling axis, index that axis modulo the window
    (``B[.., h % 6, ..]``), and skip, from the second tile on, the elements the previous tile
    already produced (the overlap of adjacent windows). The block must sit, with its consumers,
    under a serial tile loop (``compute_at``), and the tile windows must overlap along a
    dimension indexed ``loop * stride + inner`` (or ``loop * stride // d + inner``). The
    rolling axis's iterator of every block in the scope becomes opaque (classic TVM).

    Before::

        B = T.alloc_buffer((4, 10))
        for c, i_0 in T.grid(4, 2):
            for ax0, ax1 in T.grid(6, 3):
                with T.block("B"):
                    cc = T.axis.spatial(4, c)
                    vi = T.axis.spatial(10, i_0 * 4 + ax0)
                    vk = T.axis.reduce(3, ax1)
                    ...  B[cc, vi] = B[cc, vi] + A[cc, vi + vk]
            for i_1, k in T.grid(4, 3):
                with T.block("C"):
                    ... C[cc, vi] = C[cc, vi] + B[cc, vi + vk]

    After ``rolling_buffer(B, 0)``::

        B = T.alloc_buffer((4, 6))
        for c, i_0 in T.grid(4, 2):
            for ax0, ax1 in T.grid(6, 3):
                with T.block("B"):
                    T.where(i_0 < 1 or 2 <= ax0)
                    vi = T.axis.opaque(10, i_0 * 4 + ax0)
                    ...  B[cc, vi % 6] = B[cc, vi % 6] + A[cc, vi + vk]
            for i_1, k in T.grid(4, 3):
                with T.block("C"):
                    vi = T.axis.opaque(8, i_0 * 4 + i_1)
                    ... C[cc, vi] = C[cc, vi] + B[cc, (vi + vk) % 6]

    Trace instruction ``RollingBuffer`` (input block; attribute ``write_buffer_index``).
    """
    path = state.block_path(block_rv, PRIM)
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    buf = allocated_write(state, block, write_buffer_index, PRIM, what, "roll")
    write = next(w for w in block.writes if w.buffer is buf)

    # only RAW dependencies on the buffer: this block is its one writer, reading it back at
    # most at the element it stores (a reduction's update)
    writers, consumers = [], []

    def collect(s):
        if isinstance(s, BlockRealize) and s.block is not block and s.block.iter_vars:
            if buf in buffers_written(s.block):
                writers.append(s)
            elif buf in buffers_read(s.block):
                consumers.append(s)
    walk_stmts(state.body, collect)
    if writers:
        raise fail(PRIM, what, f'the target block is required to have only RAW dependencies: '
                   f'block "{writers[0].block.name_hint}" also writes "{buf.name}"')
    store = block.body
    if not isinstance(store, BufferStore) or store.buffer is not buf:
        raise fail(PRIM, what, f'the block body must be one store to "{buf.name}"')
    _check_self_reads(block, store, buf, what)
    if not consumers:
        raise fail(PRIM, what, f'no block reads "{buf.name}"')

    # the lowest loop holding the block and all its consumers
    paths = [path] + [find_path(state.body, lambda s, c=c: s is c) for c in consumers]
    lca: Optional[For] = None
    n = min(len(p) for p in paths)
    for k in range(n):
        node = paths[0][k]
        if any(p[k] is not node for p in paths):
            break
        if isinstance(node, (For, BlockRealize)):
            lca = node if isinstance(node, For) else None
    if lca is None:
        raise fail(PRIM, what, f'rolling_buffer injection is invalid: the lowest common '
                   f'ancestor of the accesses to "{buf.name}" is not a loop (compute_at the '
                   "block under a tile loop of its consumers first)")
    loops = [s for s in path if isinstance(s, For)]
    cons = []
    for c, p in zip(consumers, paths[1:]):
        k = next(j for j, x in enumerate(p) if x is lca)
        cons.append((c, {x.loop_var: Range(x.min, x.extent) for x in p[k + 1:]
                         if isinstance(x, For)}))
    k_lca = next(i for i, lp in enumerate(loops) if lp is lca)
    outer = {lp.loop_var: Range(lp.min, lp.extent) for lp in loops[:k_lca + 1]}
    inner = {lp.loop_var: Range(lp.min, lp.extent) for lp in loops[k_lca + 1:]}
    bind = {iv.var: v for iv, v in zip(block.iter_vars, realize.iter_values)}
    indices = [substitute(r.min, bind) for r in write.region]
    extents = [substitute(r.extent, bind) for r in write.region]
    region = _relax_write(indices, extents, inner, outer, buf)

    by_var = {lp.loop_var: lp for lp in loops}
    # match each dimension's window start against ``var * stride (// d)``
    axis_var: List[Optional[Var]] = []
    overlaps: List[int] = []
    for r in region:
        var, stride = _match_start(r.min, by_var)
        ov = 0
        if var is not None:
            if not isinstance(r.extent, IntImm):
                var = None
            else:
                ov = r.extent.value - stride
                if ov <= 0:
                    var = None
        axis_var.append(var)
        overlaps.append(ov)
    roll_axis = None
    for lp in loops:
        hit = [k for k, v in enumerate(axis_var) if v is lp.loop_var]
        if hit:
            roll_axis = hit[0]
            break
    if roll_axis is None:
        raise fail(PRIM, what, f'the region of "{buf.name}" one tile writes, '
                   f"{_show(region)}, has no dimension matching the rolling pattern "
                   "(outer * stride + inner, with windows of adjacent tiles overlapping)")
    store_idx = [substitute(i, bind) for i in store.indices]
    for i, var in enumerate(axis_var):
        if var is None:
            continue
        _check_axis(i, var, by_var[var], region[i], store_idx[i], overlaps[i], cons,
                    buf, inner, outer, what)
    _check_order(state, path, cons, what)

    ext = region[roll_axis].extent
    new_buf = dataclasses.replace(
        buf, shape=tuple(ext if i == roll_axis else s for i, s in enumerate(buf.shape)))
    cond = realize.predicate
    for i, var in enumerate(axis_var):
        if var is None:
            continue
        term = simplify(substitute(store_idx[i], {var: IntImm(var.dtype, 0)}))
        cond = conj(cond, simplify(_op.logical_or(var < 1, term >= overlaps[i])))
    state.set_body(_Rewriter(buf, new_buf, roll_axis, ext, block, cond).visit(state.body))


def _show(region) -> str:
    return "[" + ", ".join(f"{r.min}:{r.min + r.extent}" for r in region) + "]"


def _relax_write(indices, extents, inner, outer, buf) -> List[Range]:
    lo = relax_indices(indices, inner, outer)
    out = []
    for k, (r, e) in enumerate(zip(lo, extents)):
        extent = simplify(r.extent + e - 1, {**outer, **inner})
        mn = r.min
        # clip to the buffer (classic covers the relaxed set within the buffer's shape)
        shape = buf.shape[k]
        if isinstance(shape, IntImm) and isinstance(extent, IntImm) and \
                extent.value > shape.value:
            mn, extent = IntImm(mn.dtype, 0), shape
        out.append(Range(mn, extent))
    return out


def _match_start(e: PrimExpr, by_var) -> Tuple[Optional[Var], int]:
    """The tile loop variable a window start ``e`` moves with, and its stride: classic's
    patterns ``v``, ``v * s``, ``v * s // d`` (stride ``ceil(s / d)``), or any expression of one
    loop variable of constant extent (stride: its largest step from one tile to the next)."""
    if isinstance(e, Var):
        return e, 1
    if isinstance(e, Mul) and isinstance(e.a, Var) and isinstance(e.b, IntImm):
        return e.a, e.b.value
    if isinstance(e, FloorDiv) and isinstance(e.b, IntImm) and e.b.value > 0 and \
            isinstance(e.a, Mul) and isinstance(e.a.a, Var) and isinstance(e.a.b, IntImm):
        return e.a.a, -(-e.a.b.value // e.b.value)
    vs = collect_vars(e)
    if len(vs) != 1:
        return None, 0
    var = next(iter(vs))
    lp = by_var.get(var)
    if lp is None or not isinstance(lp.extent, IntImm) or lp.extent.value < 2 or \
            lp.extent.value > 4096:
        return None, 0
    starts = [simplify(substitute(e, {var: IntImm(var.dtype, t)}))
              for t in range(lp.extent.value)]
    if not all(isinstance(x, IntImm) for x in starts):
        return None, 0
    return var, max(b.value - a.value for a, b in zip(starts, starts[1:]))


def _check_self_reads(block: Block, store: BufferStore, buf, what: str) -> None:
    bad = []

    class _V(Mutator):
        def visit_BufferLoad(self, e):
            if e.buffer is buf and not all(
                    can_prove(_op.eq(a, b)) for a, b in zip(e.indices, store.indices)):
                bad.append(e)
            return self.generic(e)
    _V().visit(store.value)
    if bad:
        raise fail(PRIM, what, f'the block reads "{buf.name}" at another element than the one '
                   "it stores (a loop-carried dependence rolling would break)")


def _check_axis(i, var, loop: For, r: Range, idx: PrimExpr, overlap: int, consumers, buf,
                inner, outer, what) -> None:
    """What makes skipping the overlap and indexing circularly right: the tile loop runs
    serially from 0, windows move forward by at most the stride (so the skipped head of a
    window lies in the previous one), each element's index is the window start plus an
    offset, and every consumer reads inside the current window."""
    name = loop.loop_var.name
    if loop.kind != ForKind.SERIAL or loop.thread_binding is not None or \
            not isinstance(loop.min, IntImm) or loop.min.value != 0 or \
            not isinstance(loop.extent, IntImm):
        raise fail(PRIM, what, f'tile loop "{name}" must be serial, start at 0 and have a '
                   "constant extent")
    stride = r.extent.value - overlap
    prev = None
    for t in range(loop.extent.value):
        s = simplify(substitute(r.min, {var: IntImm(var.dtype, t)}))
        if not isinstance(s, IntImm):
            raise fail(PRIM, what, f"the window start {r.min} is not constant per tile")
        if prev is not None and not 0 <= s.value - prev <= stride:
            raise fail(PRIM, what, f'windows of adjacent tiles of loop "{name}" move by more '
                       f"than the stride {stride} or backwards")
        prev = s.value
    offset = simplify(idx - substitute(idx, {var: IntImm(var.dtype, 0)}) - r.min)
    if not (isinstance(offset, IntImm) and offset.value == 0):
        raise fail(PRIM, what, f"the stored index {idx} on axis {i} is not the window start "
                   "plus an offset independent of the tile")
    for c, cdom in consumers:
        cbind = {iv.var: v for iv, v in zip(c.block.iter_vars, c.iter_values)}
        reads, _ = block_regions(c.block)
        for rr in reads:
            if rr.buffer is not buf:
                continue
            cr = relax_indices([substitute(rr.region[i].min, cbind)], cdom, outer)[0]
            hi = simplify(cr.min + cr.extent + substitute(rr.region[i].extent, cbind) - 1,
                          {**outer, **cdom})
            if not (can_prove(cr.min >= r.min, outer) and
                    can_prove(hi <= r.min + r.extent, {**outer, **cdom})):
                raise fail(PRIM, what, f'consumer block "{c.block.name_hint}" reads '
                           f'"{buf.name}" outside the window one tile produces on axis {i}')


def _check_order(state: ScheduleState, path, consumers, what: str) -> None:
    """Each consumer runs after the producer within a tile (program order)."""
    order: List[BlockRealize] = []
    walk_stmts(state.body, lambda s: order.append(s) if isinstance(s, BlockRealize) else None)
    pos = {id(s): k for k, s in enumerate(order)}
    me = pos[id(path[-1])]
    for c, _ in consumers:
        if pos[id(c)] < me:
            raise fail(PRIM, what, f'consumer block "{c.block.name_hint}" runs before the '
                       "block inside a tile")


class _Rewriter(Mutator):
    def __init__(self, old, new, axis: int, ext: PrimExpr, target: Block, cond: PrimExpr):
        self.old, self.new, self.axis, self.ext = old, new, axis, ext
        self.target, self.cond = target, cond

    def _idx(self, indices):
        return tuple(_op.floormod(x, self.ext) if k == self.axis else x
                     for k, x in enumerate(indices))

    def visit_BufferLoad(self, e):
        e2 = self.generic(e)
        if e2.buffer is self.old:
            return dataclasses.replace(e2, buffer=self.new, indices=self._idx(e2.indices))
        return e2

    def visit_BufferStore(self, s):
        s2 = self.generic(s)
        if s2.buffer is self.old:
            return dataclasses.replace(s2, buffer=self.new, indices=self._idx(s2.indices))
        return s2

    def visit_BlockRealize(self, r):
        target = r.block is self.target
        r2 = self.generic(r)
        if target:
            r2 = dataclasses.replace(r2, predicate=self.cond)
        return r2

    def visit_Block(self, b):
        b2 = self.generic(b)
        if not b2.iter_vars:  # the scope root: its allocation
            allocs = tuple(self.new if x is self.old else x for x in b2.alloc_buffers)
            return dataclasses.replace(b2, alloc_buffers=allocs)
        ivs = tuple(IterVar(iv.dom, iv.var, IterVarType.Opaque) if k == self.axis else iv
                    for k, iv in enumerate(b2.iter_vars))
        reads, writes = block_regions(b2)
        new_r = [x for x in reads if x.buffer is self.new]
        new_w = [x for x in writes if x.buffer is self.new]

        def fix(regions, inferred):
            return tuple(inferred[0] if x.buffer is self.old and inferred else x
                         for x in regions)
        return dataclasses.replace(b2, iter_vars=ivs, reads=fix(b2.reads, new_r),
                                   writes=fix(b2.writes, new_w))
