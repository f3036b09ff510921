"""``reindex_cache_read`` and ``reindex_cache_write``: a cache in another storage scope laid
out by an index map of the block's iterators, filled (or written back) by a copy of the
block's own loop nest."""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, Sequence, Tuple, Union

import numpy as np

from ...arith.int_set import relax_region
from ...ir.structural import structural_equal
from .. import op as _op
from ..expr import (
    Add,
    BufferLoad,
    FloorDiv,
    FloorMod,
    IntImm,
    IterVar,
    IterVarType,
    Max,
    Min,
    Mul,
    PrimExpr,
    Range,
    Sub,
    Var,
)
from ..functor import collect_vars, substitute
from ..index_map import IndexMap, as_index_map
from ..stmt import Block, BlockRealize, BufferRegion, BufferStore, For, ForKind, SeqStmt
from .cache_read_write import cache_buffer, check_scope, check_update_has_init
from .error import fail
from .reindex import _Redirect
from .state import (
    BlockRV,
    ScheduleState,
    add_alloc,
    can_prove,
    child_blocks,
    collect_accesses,
    const_value,
    ensure_root_block,
    find_path,
    is_true,
    rebuild,
    replace,
    scope_index,
    simplify,
)

_MAX_POINTS = 1 << 22  # the injectivity check enumerates the iterators' domain


def reindex_cache_read(state: ScheduleState, block_rv: BlockRV, read_buffer_index: int,
                       storage_scope: str, index_map: Union[IndexMap, Callable]
                       ) -> Tuple[BlockRV, IndexMap]:
    """Make ``block`` read a buffer through a ``storage_scope`` cache at ``index_map(block
    iterators)``, filled by a copy of the block's loop nest placed after the buffer's writer.

    Before::

        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + 1.0

    After ``reindex_cache_read(C, 0, "shared", lambda i, j: (j, i))``::

        B_shared = T.alloc_buffer((128, 128), scope="shared")
        for i, j in T.grid(128, 128):
            with T.block("B_shared"):
                vi, vj = T.axis.remap("SS", [i, j])
                B_shared[vj, vi] = B[vi, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B_shared[vj, vi] + 1.0

    Returns the copy block and the index map as the trace records it.
    """
    return _reindex_cache(state, block_rv, read_buffer_index, storage_scope, index_map, True)


def reindex_cache_write(state: ScheduleState, block_rv: BlockRV, write_buffer_index: int,
                        storage_scope: str, index_map: Union[IndexMap, Callable]
                        ) -> Tuple[BlockRV, IndexMap]:
    """Make ``block`` write a buffer into a ``storage_scope`` cache at ``index_map(block
    iterators)``, written back by a copy of the block's loop nest placed before the
    buffer's readers (the mirror of :func:`reindex_cache_read`). Returns the copy block and
    the index map as the trace records it.
    """
    return _reindex_cache(state, block_rv, write_buffer_index, storage_scope, index_map, False)


def _reindex_cache(state, block_rv, index, storage_scope, index_map, is_read):
    prim = "reindex_cache_read" if is_read else "reindex_cache_write"
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    check_scope(prim, what, storage_scope)
    regions = block.reads if is_read else block.writes
    kind = "read" if is_read else "write"
    if not isinstance(index, int) or not 0 <= index < len(regions):
        raise fail(prim, what, f"{kind}_buffer_index {index!r} is out of range (the block "
                   f"{kind}s {len(regions)} buffers)")
    buf = regions[index].buffer
    region = regions[index].region
    if not is_read:
        check_update_has_init(prim, what, block, buf)
    if any(const_value(r.extent) != 1 for r in region):
        raise fail(prim, what, f'the region of "{buf.name}" the block accesses is not a '
                   "single point")
    old_idx = [r.min for r in region]
    dom = {iv.var: iv.dom for iv in block.iter_vars}
    for a in collect_accesses(block):
        if a.buffer is buf and (a.inner or not all(
                structural_equal(simplify(x, dom), simplify(y, dom), map_free_vars=False)
                for x, y in zip(a.indices, old_idx))):
            raise fail(prim, what, f'the block accesses "{buf.name}" at an index other than '
                       "its declared single point")
    if not is_true(realize.predicate):
        raise fail(prim, what, "the block has a predicate; the copy of its loop nest would "
                   "visit iterations the block skips")

    # the cache's indices and shape, from the index map of the block iterators
    ivars = [iv.var for iv in block.iter_vars]
    try:
        imap, _ = as_index_map(index_map, len(ivars),
                               ivars[0].dtype if ivars else "int32")
    except ValueError as err:
        raise fail(prim, what, str(err)) from None
    if len(imap.initial_indices) != len(ivars):
        raise fail(prim, what, f"the index map takes {len(imap.initial_indices)} indices, "
                   f"the block has {len(ivars)} iterators")
    new_idx = [simplify(e) for e in imap.map_indices(ivars)]
    used_old = set().union(*(collect_vars(e) for e in old_idx)) if old_idx else set()
    used_new = set().union(*(collect_vars(e) for e in new_idx)) if new_idx else set()
    for v in ivars:
        if (v in used_old) != (v in used_new):
            raise fail(prim, what, f'iterator "{v.name}" appears in the '
                       f"{'old' if v in used_old else 'new'} indices of \"{buf.name}\" only; "
                       "the index map must use the iterators the access uses")
    used = [iv for iv in block.iter_vars if iv.var in used_new]
    try:
        boxes = relax_region(new_idx, {iv.var: iv.dom for iv in used})
    except ValueError:
        raise fail(prim, what, "the index map's outputs have no bounds") from None
    for k, b in enumerate(boxes):
        if not can_prove(_op.ge(b.min, 0)):
            raise fail(prim, what, f"output index {k} of the index map can be negative")
    _check_injective(prim, what, new_idx, used)
    # the copy visits every iteration unguarded: the access must stay inside the buffer
    # (a padding block reads past it under an if_then_else)
    try:
        inside = [can_prove(_op.ge(r.min, 0)) and can_prove(_op.le(_op.add(r.min, r.extent), n))
                  for r, n in zip(relax_region(old_idx, dom), buf.shape)]
    except ValueError:
        inside = [False]
    if not all(inside):
        raise fail(prim, what, f'the block\'s index of "{buf.name}" leaves the buffer over '
                   "the block's domain (a guarded access); the copy would run unguarded")
    shape = tuple(simplify(_op.add(b.min, b.extent)) for b in boxes)
    new_buf = dataclasses.replace(cache_buffer(buf, storage_scope), shape=shape)

    # where the copy goes: beside the block, after the writer (read) / before the readers
    ensure_root_block(state)
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    si = scope_index(path)
    scope_node = path[si]
    others = [r for r in child_blocks(scope_node) if r is not realize]
    if is_read:
        writers = [r for r in others if any(w.buffer is buf for w in r.block.writes)]
        if any(w.buffer is buf for w in block.writes):
            raise fail(prim, what, f'the block also writes "{buf.name}"')
        if len(writers) > 1:
            raise fail(prim, what, f'{len(writers)} blocks write "{buf.name}"; the copy needs '
                       "a single writer to follow")
        anchors = writers
    else:
        if any(any(w.buffer is buf for w in r.block.writes) for r in others):
            raise fail(prim, what, f'another block also writes "{buf.name}"; the block must '
                       "be its only writer")
        anchors = [r for r in others if any(a.buffer is buf and not a.is_write
                                            for a in collect_accesses(r.block))]
    cpath, pos = _location(prim, what, path, si, scope_node, anchors, is_read)
    container = cpath[-1]

    # the copy: the block's loops below the location that its used iterators' bindings use
    bind_vars = set()
    for iv, v in zip(block.iter_vars, realize.iter_values):
        if iv.var in used_new:
            bind_vars |= collect_vars(v)
    below = len(cpath) if isinstance(cpath[-1], SeqStmt) else len(cpath) - 1
    loops = [s for s in path[below:-1] if isinstance(s, For) and s.loop_var in bind_vars]
    vmap: Dict[Var, PrimExpr] = {}
    for lp in loops:
        vmap[lp.loop_var] = Var(lp.loop_var.name, lp.loop_var.dtype)
    civs, cvals = [], []
    for iv, v in zip(block.iter_vars, realize.iter_values):
        if iv.var in used_new:
            nv = Var(iv.var.name, iv.var.dtype)
            vmap[iv.var] = nv
            civs.append(IterVar(iv.dom, nv, IterVarType.DataPar))
            cvals.append(substitute(v, vmap))
    o_idx = tuple(substitute(e, vmap) for e in old_idx)
    n_idx = tuple(substitute(e, vmap) for e in new_idx)
    frm, fi, to, ti = (buf, o_idx, new_buf, n_idx) if is_read else (new_buf, n_idx, buf, o_idx)
    copy = Block(tuple(civs), (BufferRegion(frm, _points(fi)),),
                 (BufferRegion(to, _points(ti)),), state.fresh_block_name(new_buf.name),
                 BufferStore(to, BufferLoad(frm, fi), ti))
    stmt = BlockRealize(tuple(cvals), IntImm("bool", 1), copy)
    for lp in reversed(loops):
        stmt = For(vmap[lp.loop_var], lp.min, lp.extent, ForKind.SERIAL, stmt)

    # the block reads (writes) the cache; then the copy goes in
    new_region = BufferRegion(new_buf, _points(new_idx))
    new_block = _Redirect(buf, new_buf, tuple(new_idx)).visit(block)
    new_block = dataclasses.replace(
        new_block,
        reads=tuple(new_region if r.buffer is buf else r for r in block.reads),
        writes=tuple(new_region if r.buffer is buf else r for r in block.writes))
    sub = path[len(cpath) - 1:]
    container = rebuild(sub, dataclasses.replace(realize, block=new_block))
    items = list(container.seq) if isinstance(container, SeqStmt) else [container]
    items.insert(pos, stmt)
    replace(state, cpath, SeqStmt.flatten(*items))
    add_alloc(state, new_buf)
    return BlockRV(copy.name_hint, block_rv.func_name), imap


def _points(idx: Sequence[PrimExpr]) -> Tuple[Range, ...]:
    return tuple(Range(i, IntImm(i.dtype, 1)) for i in idx)


def _location(prim, what, path, si, scope_node, anchors, is_read):
    """(path to the statement list the copy joins, position in it): the lowest common
    statement list of the block and the anchors (writer / readers), after the writer's
    entry, before every reader's entry."""
    ppaths = [find_path(scope_node, lambda s, r=r: s is r) for r in anchors]
    own = path[si:]
    depth = len(own) - 1
    for p in ppaths:
        k = 0
        while k < min(len(p), len(own)) - 1 and p[k] is own[k]:
            k += 1
        depth = min(depth, k - 1)
    # the deepest common node must hold a statement list (or be the scope block's body)
    node = own[depth]
    cpath = list(path[:si + depth + 1])
    if isinstance(node, SeqStmt):
        items = list(node.seq)
        mine = next(i for i, s in enumerate(items) if s is own[depth + 1])
    elif not anchors:
        # no writer (read of an input) / no reader (write of an output): right beside the
        # block's own nest at the scope's top level
        cpath = list(path[:si + 3])
        body = own[2]
        mine = next(i for i, s in enumerate(body.seq) if s is own[3]) \
            if isinstance(body, SeqStmt) else 0
        return cpath, (mine if is_read else mine + 1)
    else:
        raise fail(prim, what, "the block shares its loop nest with the buffer's "
                   f"{'writer' if is_read else 'readers'} without a statement list between "
                   "them")
    if not anchors:
        return cpath, (mine if is_read else mine + 1)
    idx = [next(i for i, s in enumerate(items) if find_path(s, lambda x, r=r: x is r))
           for r in anchors]
    if is_read:
        if max(idx) >= mine:
            raise fail(prim, what, "the writer of the buffer does not come before the block")
        return cpath, max(idx) + 1
    if min(idx) <= mine:
        raise fail(prim, what, "a reader of the buffer does not come after the block")
    return cpath, mine + 1


def _check_injective(prim, what, idx: List[PrimExpr], used: List[IterVar]) -> None:
    """Distinct iterator values must land on distinct cache elements (else the copy block
    would overwrite one element with another's value): checked by enumeration."""
    exts = [const_value(iv.dom.extent) for iv in used]
    mins = [const_value(iv.dom.min) for iv in used]
    if any(e is None for e in exts + mins) or int(np.prod(exts or [1])) > _MAX_POINTS:
        raise fail(prim, what, "tvmlite checks the index map's injectivity by enumeration "
                   "and the iterators' domain is symbolic or too large")
    grids = np.meshgrid(*[np.arange(m, m + e, dtype=np.int64) for m, e in zip(mins, exts)],
                        indexing="ij") if used else []
    env = {iv.var: g.ravel() for iv, g in zip(used, grids)}
    try:
        cols = [np.broadcast_to(_eval(e, env), (int(np.prod(exts or [1])),)) for e in idx]
    except NotImplementedError:
        raise fail(prim, what, "the index map uses an operation tvmlite cannot check for "
                   "injectivity") from None
    keys = np.stack(cols, axis=1) if cols else np.zeros((1, 0), np.int64)
    if len(np.unique(keys, axis=0)) != len(keys):
        raise fail(prim, what, "the index map is not injective over the block iterators: two "
                   "iterations would share one cache element")


def _eval(e: PrimExpr, env: Dict[Var, np.ndarray]):
    if isinstance(e, IntImm):
        return np.int64(e.value)
    if isinstance(e, Var):
        if e not in env:
            raise NotImplementedError
        return env[e]
    ops = {Add: np.add, Sub: np.subtract, Mul: np.multiply, FloorDiv: np.floor_divide,
           FloorMod: np.mod, Min: np.minimum, Max: np.maximum}
    f = ops.get(type(e))
    if f is None:
        raise NotImplementedError
    a, b = _eval(e.a, env), _eval(e.b, env)
    if f in (np.floor_divide, np.mod) and np.any(b == 0):
        raise NotImplementedError
    return f(a, b)
