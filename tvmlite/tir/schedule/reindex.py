"""``reindex``: let a block access a buffer through a copy indexed by its own iterators."""
from __future__ import annotations

import dataclasses
from typing import Tuple

from ...ir.structural import structural_equal
from ..analysis.regions import block_regions
from ..buffer import decl_buffer
from ..expr import BufferLoad, IntImm, IterVar, IterVarType, Range, Var
from ..functor import Mutator, collect_vars, substitute
from ..stmt import Block, BlockRealize, BufferRegion, BufferStore, For, ForKind, SeqStmt
from .error import fail
from .state import (
    BlockRV,
    ScheduleState,
    add_alloc,
    collect_accesses,
    exclusive_subtree,
    find_path,
    replace,
    scope_index,
)
from .transform_layout import BufferSpec, resolve_buffer, simplify_nontrivial


def reindex(state: ScheduleState, block_rv: BlockRV, buffer: BufferSpec
            ) -> Tuple[BlockRV, Tuple[str, int]]:
    """Make ``block`` access a buffer through a new buffer indexed by the block iterators
    its accesses use, filled (read) or written back (write) by a new block beside it.

    Every access of the block to the buffer must use the same indices.

    Before::

        for i, j in T.grid(128, 128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vj, vi] * 2.0

    After ``reindex(block_B, ("read", 0))``::

        A_reindex = T.alloc_buffer((128, 128))
        for i, j in T.grid(128, 128):
            with T.block("A_reindex"):
                vi, vj = T.axis.remap("SS", [i, j])
                A_reindex[vi, vj] = A[vj, vi]
        for i, j in T.grid(128, 128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A_reindex[vi, vj] * 2.0

    Returns the new block and the buffer as the trace records it.
    """
    prim = "reindex"
    block, buf = resolve_buffer(state, block_rv, buffer, prim)
    what = f'block "{block.name_hint}"'
    is_write = any(r.buffer is buf for r in block.writes)
    if isinstance(buffer, (tuple, list)):
        is_write = buffer[0] == "write"
    dom = {iv.var: iv.dom for iv in block.iter_vars}
    accesses = [a for a in collect_accesses(block) if a.buffer is buf]
    if not accesses:
        raise fail(prim, what, f'the block does not access buffer "{buf.name}" in its body')
    indices = [simplify_nontrivial(i, dom) for i in accesses[0].indices]
    for a in accesses[1:]:
        if not all(structural_equal(simplify_nontrivial(i, dom), j, map_free_vars=False)
                   for i, j in zip(a.indices, indices)):
            raise fail(prim, what, f'the block accesses buffer "{buf.name}" at more than one '
                       "index; reindex needs a single access pattern")
    if any(a.inner for a in accesses):
        raise fail(prim, what, f'buffer "{buf.name}" is accessed inside a loop of the block '
                   "body; reindex needs the access to depend on block iterators only")
    used = set()
    for i in indices:
        used |= collect_vars(i)
    ivs = [iv for iv in block.iter_vars if iv.var in used]
    stray = [v for v in used if v not in dom]
    if stray:
        raise fail(prim, what, f'the index of buffer "{buf.name}" uses "{stray[0].name}", '
                   "which is not a block iterator")
    for iv in ivs:
        if not isinstance(iv.dom.min, IntImm) or iv.dom.min.value != 0:
            raise fail(prim, what, f'iterator "{iv.var.name}" does not start at 0')

    # the new buffer, and the block's accesses rewritten to it
    new_buf = decl_buffer(tuple(iv.dom.extent for iv in ivs) or (IntImm("int32", 1),),
                          buf.dtype, f"{buf.name}_reindex", scope=buf.scope())
    point = tuple(iv.var for iv in ivs) or (IntImm("int32", 0),)
    new_block = _Redirect(buf, new_buf, point).visit(block)
    region = BufferRegion(new_buf, tuple(Range(p, IntImm(p.dtype, 1)) for p in point))
    reads, writes = ([region if r.buffer is buf else r for r in rs]
                     for rs in (block.reads, block.writes))
    path = state.block_path(block_rv, prim)
    path = list(path)
    realize = path[-1]
    # the copy block, over the used iterators' full domains
    new_vars = [Var(f"v{k}", iv.var.dtype) for k, iv in enumerate(ivs)]
    vmap = {iv.var: nv for iv, nv in zip(ivs, new_vars)}
    copy_ivs = tuple(IterVar(Range(iv.dom.min, iv.dom.extent), nv, IterVarType.DataPar)
                     for iv, nv in zip(ivs, new_vars))
    inner = tuple(new_vars) or (IntImm("int32", 0),)
    orig = tuple(substitute(i, vmap) for i in indices)
    if is_write:
        body = BufferStore(buf, BufferLoad(new_buf, inner), orig)
    else:
        body = BufferStore(new_buf, BufferLoad(buf, orig), inner)
    copy = Block(copy_ivs, (), (), state.fresh_block_name(new_buf.name), body)
    creads, cwrites = block_regions(copy)
    copy = dataclasses.replace(copy, reads=creads, writes=cwrites)
    loop_vars = [Var(f"ax{k}", nv.dtype) for k, nv in enumerate(new_vars)]
    stmt = BlockRealize(tuple(loop_vars), IntImm("bool", 1), copy)
    for lv, iv in reversed(list(zip(loop_vars, copy_ivs))):
        stmt = For(lv, iv.dom.min, iv.dom.extent, ForKind.SERIAL, stmt)

    # insert beside the block's loop nest, directly in its scope
    k = exclusive_subtree(path)
    si = scope_index(path)
    between = path[si + 1:k]
    if any(not isinstance(s, (Block, SeqStmt)) for s in between):
        raise fail(prim, what, "the block's loop nest is not directly in its scope block "
                   "(it shares a loop with other statements)")
    replace(state, path, dataclasses.replace(realize, block=dataclasses.replace(
        new_block, reads=tuple(reads), writes=tuple(writes))))
    path = find_path(state.body, lambda s: isinstance(s, BlockRealize)
                     and s.block.name_hint == block.name_hint)
    k = exclusive_subtree(path)
    nest = path[k]
    replace(state, path[:k + 1], SeqStmt.flatten(nest, stmt) if is_write
            else SeqStmt.flatten(stmt, nest))
    add_alloc(state, new_buf)
    return BlockRV(copy.name_hint, state.func_name), (("write" if is_write else "read"),
                                                     _index_of(block, buf, is_write))


def _index_of(block: Block, buf, is_write: bool) -> int:
    regions = block.writes if is_write else block.reads
    return next(k for k, r in enumerate(regions) if r.buffer is buf)


class _Redirect(Mutator):
    """Accesses of ``old`` become accesses of ``new`` at ``point``."""

    def __init__(self, old, new, point):
        self.old, self.new, self.point = old, new, point

    def visit_BufferLoad(self, e):
        e2 = self.generic(e)
        return BufferLoad(self.new, self.point) if e2.buffer is self.old else e2

    def visit_BufferStore(self, s):
        s2 = self.generic(s)
        return BufferStore(self.new, s2.value, self.point) if s2.buffer is self.old else s2

    def visit_BufferRegion(self, r: BufferRegion):
        return r

    def visit_Block(self, b: Block):
        return dataclasses.replace(b, body=self.visit(b.body),  # regions: by the caller
                                   init=self.visit(b.init) if b.init is not None else None)

