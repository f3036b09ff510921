"""``cache_read`` and ``cache_write``: stage a buffer through a copy in another storage
scope."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

from .. import op as _op
from ..buffer import Buffer
from ..expr import IntImm, IterVar, IterVarType, Range, Var
from ..functor import substitute
from ..stmt import (
    ALLOCATE_CONST_DATA,
    Allocate,
    Block,
    BlockRealize,
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    IfThenElse,
    SeqStmt,
    Stmt,
)
from .error import fail
from .state import (
    BlockRV,
    ReplaceBuffer,
    ScheduleState,
    access_region,
    buffers_read,
    buffers_written,
    can_prove,
    child_blocks,
    children,
    ensure_root_block,
    find_path,
    is_one,
    is_true,
    loop_domains,
    realize_accesses,
    rebuild,
    relax_indices,
    replace,
    scope_index,
    simplify,
    union_regions,
    walk_stmts,
    with_block,
    with_loop_body,
)

VALID_SCOPES = ("global", "shared", "shared.dyn", "local", "warp", "global.texture")


def check_scope(prim: str, what: str, scope) -> None:
    if not isinstance(scope, str) or not (scope in VALID_SCOPES or scope.startswith("wmma.")
                                          or scope.startswith("local.")
                                          or scope.startswith("global.")):
        raise fail(prim, what, f"{scope!r} is not a storage scope (expected one of "
                   f"{', '.join(VALID_SCOPES)}, wmma.*)")


def cache_buffer(buf: Buffer, scope: str) -> Buffer:
    """A compact buffer like ``buf`` in ``scope``, named ``<buf>_<scope>``."""
    name = f"{buf.name}_{scope.replace('.', '_')}"
    return Buffer(Var(name, "handle"), buf.dtype, buf.shape, (), IntImm("int32", 0), name,
                  buf.data_alignment, buf.offset_factor, scope, buf.axis_separators)


def _scope(state: ScheduleState, path):
    """(scope realize, path to it) of the block at ``path[-1]`` (the function has a root
    block: call ``ensure_root_block`` first)."""
    si = scope_index(path)
    return path[si], list(path[:si + 1])


def _copy_nest(src: Buffer, dst: Buffer, region: List[Range], name: str,
               outer) -> Stmt:
    """``for ax...: with block(name): dst[v] = src[v]`` over ``region``."""
    ivs, loops, vals = [], [], []
    dom = dict(outer)
    for k, (r, extent) in enumerate(zip(region, src.shape)):
        # classic dtypes: the block iterator takes the buffer dimension's, the loop the extent's
        dt = getattr(extent, "dtype", "int32")
        v = Var(f"v{k}", dt)
        ivs.append(IterVar(Range(IntImm(dt, 0), extent), v, IterVarType.DataPar))
        ax = Var(f"ax{k}", getattr(r.extent, "dtype", "int32"))
        dom[ax] = Range(IntImm(ax.dtype, 0), r.extent)
        loops.append((ax, r.extent))
        vals.append(simplify(_op.add(r.min, ax), dom))
    idx = tuple(iv.var for iv in ivs)
    one = [Range(i, IntImm(i.dtype, 1)) for i in idx]
    body = BufferStore(dst, src[idx] if idx else src[()], idx)
    block = Block(tuple(ivs), (BufferRegion(src, tuple(one)),),
                  (BufferRegion(dst, tuple(one)),), name, body)
    nest: Stmt = BlockRealize(tuple(vals), IntImm("bool", 1), block)
    for ax, ext in reversed(loops):
        nest = For(ax, IntImm(ax.dtype, 0), ext, ForKind.SERIAL, nest)
    return nest


def _region_in_scope(scope_node, realizes, buf, writes, outer):
    regs = []
    for r in realizes:
        rpath = find_path(scope_node, lambda s, r=r: s is r)
        relax = loop_domains(rpath[1:-1])
        reg = access_region(realize_accesses(r), buf, relax, outer, writes=writes)
        if reg is not None:
            regs.append(reg)
    if not regs:
        return [Range(IntImm(s.dtype, 0), s) for s in buf.shape]
    reg = union_regions(regs, outer)
    # never copy outside the buffer
    out = []
    for r, s in zip(reg, buf.shape):
        lo = simplify(_op.max(r.min, 0), outer)
        hi = simplify(_op.min(_op.add(r.min, r.extent), s), outer)
        out.append(Range(lo, simplify(_op.sub(hi, lo), outer)))
    return out


def _top_index(items: Sequence[Stmt], realize: BlockRealize) -> int:
    return next(i for i, s in enumerate(items)
                if find_path(s, lambda x: x is realize) is not None)


def _cache_read_top(state: ScheduleState, block_rv: BlockRV, read_buffer_index: int,
                    storage_scope: str, consumer_blocks: Optional[Sequence[BlockRV]] = None
                    ) -> BlockRV:
    """:func:`cache_read` with the copy at the scope's top level, before the consumers' nests
    (the placement when the classic one cannot be shown right): the copy covers the region the
    consumers read; ``compute_at`` of the copy block later shrinks it to a tile."""
    prim = "cache_read"
    path = state.block_path(block_rv, prim)
    block = path[-1].block
    what = f'block "{block.name_hint}"'
    check_scope(prim, what, storage_scope)
    if not isinstance(read_buffer_index, int) or not 0 <= read_buffer_index < len(block.reads):
        raise fail(prim, what, f"read_buffer_index {read_buffer_index!r} is out of range (the "
                   f"block reads {len(block.reads)} buffers)")
    buf = block.reads[read_buffer_index].buffer
    ensure_root_block(state)  # the new buffer is allocated in the root block
    path = state.block_path(block_rv, prim)
    scope_node, spath = _scope(state, path)
    sibs = child_blocks(scope_node)
    if consumer_blocks is not None:
        names = {b.name if isinstance(b, BlockRV) else b for b in consumer_blocks}
        consumers = [r for r in sibs if r.block.name_hint in names]
        if len(consumers) != len(names):
            raise fail(prim, what, "a consumer block given is not in the block's scope")
    else:  # the buffer's writers keep it
        consumers = [r for r in sibs if any(b is buf for b in buffers_read(r.block))
                     and not any(b is buf for b in buffers_written(r.block))]
    for r in consumers:
        if any(b is buf for b in buffers_written(r.block)):
            raise fail(prim, what, f'block "{r.block.name_hint}" both reads and writes '
                       f'"{buf.name}"; cache_write is the primitive for that')
        if not any(b is buf for b in buffers_read(r.block)):
            raise fail(prim, what, f'block "{r.block.name_hint}" does not read "{buf.name}"')
    outer = loop_domains(spath)
    region = _region_in_scope(scope_node, consumers, buf, False, outer)
    new = cache_buffer(buf, storage_scope)
    name = state.fresh_block_name(new.name)
    nest = _copy_nest(buf, new, region, name, outer)

    body = scope_node.block.body
    items = list(body.seq) if isinstance(body, SeqStmt) else [body]
    writers = [r for r in sibs if any(w is buf for w in buffers_written(r.block))]
    pos = 0
    if writers:
        pos = max(_top_index(items, r) for r in writers) + 1
    first_consumer = min(_top_index(items, r) for r in consumers)
    if first_consumer < pos:
        raise fail(prim, what, f'a consumer of "{buf.name}" shares a loop nest with its '
                   "producer; the copy cannot be placed between them")
    rb = ReplaceBuffer({buf: new})
    new_items = []
    for s in items:
        for r in consumers:
            p = find_path(s, lambda x, r=r: x is r)
            if p is not None:
                s = rebuild(p, rb(r))
        new_items.append(s)
    new_body = SeqStmt.flatten(*new_items[:pos], nest, *new_items[pos:])
    new_scope = with_block(scope_node, body=new_body,
                           alloc_buffers=scope_node.block.alloc_buffers + (new,))
    replace(state, find_path(state.body, lambda x: x is scope_node), new_scope)
    return BlockRV(name, block_rv.func_name)


def check_update_has_init(prim: str, what: str, block, buf: Buffer) -> None:
    """A write cache of a block that reads ``buf`` (which it writes) without an init of its
    own would start from values nobody put in the cache (an outer block's init fills ``buf``):
    refused."""
    if block.init is None and any(b is buf for b in buffers_read(block)):
        raise fail(prim, what, f'the block reads "{buf.name}", which it writes, without an '
                   "init of its own (its initial values come from elsewhere, e.g. an outer "
                   "block's init); the cache is never filled from it")


def _cache_write_top(state: ScheduleState, block_rv: BlockRV, write_buffer_index: int,
                     storage_scope: str, consumer_blocks: Optional[Sequence[BlockRV]] = None
                     ) -> BlockRV:
    """:func:`cache_write` with the copy-back right after the block's outermost loop (the
    placement when the classic one cannot be shown right). With ``consumer_blocks``, those
    consumers read the cache directly; the others keep reading the buffer, which the copy
    block still writes."""
    prim = "cache_write"
    path = state.block_path(block_rv, prim)
    block = path[-1].block
    what = f'block "{block.name_hint}"'
    check_scope(prim, what, storage_scope)
    if not isinstance(write_buffer_index, int) or not 0 <= write_buffer_index < len(
            block.writes):
        raise fail(prim, what, f"write_buffer_index {write_buffer_index!r} is out of range "
                   f"(the block writes {len(block.writes)} buffers)")
    buf = block.writes[write_buffer_index].buffer
    check_update_has_init(prim, what, block, buf)
    ensure_root_block(state)  # the new buffer is allocated in the root block
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    scope_node, spath = _scope(state, path)
    sibs = child_blocks(scope_node)
    for r in sibs:
        if r is not realize and any(w is buf for w in buffers_written(r.block)):
            raise fail(prim, what, f'block "{r.block.name_hint}" also writes "{buf.name}"; '
                       "the block must be its only writer")
    outer = loop_domains(spath)
    region = _region_in_scope(scope_node, [realize], buf, True, outer)
    new = cache_buffer(buf, storage_scope)
    name = state.fresh_block_name(new.name)
    nest = _copy_nest(new, buf, region, name, outer)
    body = scope_node.block.body
    items = list(body.seq) if isinstance(body, SeqStmt) else [body]
    pos = _top_index(items, realize)
    top = items[pos]
    for r in sibs:
        if r is not realize and any(b is buf for b in buffers_read(r.block)) \
                and _top_index(items, r) <= pos:
            raise fail(prim, what, f'block "{r.block.name_hint}" reads "{buf.name}" inside '
                       "or before the loop nest of the block; the copy-out cannot be placed "
                       "between them")
    rb = ReplaceBuffer({buf: new})
    p = find_path(top, lambda x: x is realize)
    items[pos] = rebuild(p, rb(realize))
    for r in _cache_consumers(prim, what, sibs, realize, buf, consumer_blocks):
        k = _top_index(items, r)
        items[k] = rebuild(find_path(items[k], lambda x, r=r: x is r), rb(r))
    new_body = SeqStmt.flatten(*items[:pos + 1], nest, *items[pos + 1:])
    new_scope = with_block(scope_node, body=new_body,
                           alloc_buffers=scope_node.block.alloc_buffers + (new,))
    replace(state, find_path(state.body, lambda x: x is scope_node), new_scope)
    return BlockRV(name, block_rv.func_name)


def _cache_consumers(prim: str, what: str, sibs: Sequence[BlockRealize], realize: BlockRealize,
                     buf: Buffer, consumer_blocks: Optional[Sequence[BlockRV]]
                     ) -> List[BlockRealize]:
    """The sibling blocks named in ``consumer_blocks`` (each must read ``buf``)."""
    if consumer_blocks is None:
        return []
    if isinstance(consumer_blocks, BlockRV) or not isinstance(consumer_blocks, (list, tuple)):
        raise TypeError(f"{prim}: consumer_blocks must be a list of BlockRVs, got "
                        f"{type(consumer_blocks).__name__}")
    out = []
    for rv in consumer_blocks:
        if not isinstance(rv, (BlockRV, str)):
            raise TypeError(f"{prim}: consumer_blocks must hold BlockRVs or block names, got "
                            f"{type(rv).__name__}")
        rname = rv.name if isinstance(rv, BlockRV) else rv
        found = [r for r in sibs if r.block.name_hint == rname]
        if not found:
            raise fail(prim, what, f'consumer block "{rname}" is not in the block\'s scope')
        r = found[0]
        if r is realize or not any(b is buf for b in buffers_read(r.block)):
            raise fail(prim, what, f'block "{rname}" does not read "{buf.name}", so it is '
                       "not a consumer")
        if all(x is not r for x in out):
            out.append(r)
    return out


# --------------------------------------------------------------------------- classic placement
def _access_index(prim: str, what: str, regions, index, kind: str) -> int:
    """The position in ``regions`` (a block's reads or writes) of ``index``: an int, a buffer
    name or a Buffer (classic accepts all three). ``kind``: "read", "write" or "access"."""
    verb = {"read": "reads", "write": "writes"}.get(kind, "accesses")
    if not isinstance(index, int):
        named = [k for k, r in enumerate(regions)
                 if r.buffer is index or (isinstance(index, str) and r.buffer.name == index)]
        if not named:
            raise fail(prim, what, f"the block {verb} no buffer "
                       f"{getattr(index, 'name', index)!r}")
        return named[0]
    if not 0 <= index < len(regions):
        raise fail(prim, what, f"{kind}_buffer_index {index!r} is out of range (the block "
                   f"{verb} {len(regions)} buffers)")
    return index


def _unwrap_const(body: Stmt) -> Stmt:
    """``body`` under its ``T.allocate_const`` wrappers (classic inserts inside them)."""
    while isinstance(body, Allocate) and ALLOCATE_CONST_DATA in (body.annotations or {}):
        body = body.body
    return body


def _insert(body: Stmt, pos: int, stage: Stmt) -> Stmt:
    """``body`` with ``stage`` inserted at ``pos`` of its statement list."""
    if isinstance(body, Allocate) and ALLOCATE_CONST_DATA in (body.annotations or {}):
        return dataclasses.replace(body, body=_insert(body.body, pos, stage))
    items = list(body.seq) if isinstance(body, SeqStmt) else [body]
    return SeqStmt(tuple(items[:pos] + [stage] + items[pos:]))


class _LocDetector:
    """Classic TVM's insertion point of a cache stage: under the lowest loop (or the scope
    block) holding ``block`` and the first of ``related`` after it, just before that related
    block's statement."""

    def __init__(self, scope: BlockRealize, block: Optional[BlockRealize],
                 related: Sequence[BlockRealize]):
        self.scope, self.block, self.related = scope, block, related
        self.visited_block = self.visited_related = False
        self.loc: Optional[Stmt] = None
        self.pos = -1
        self.seq: Optional[SeqStmt] = None  # the statement list ``pos`` indexes

    def visit(self, s: Stmt) -> None:
        if isinstance(s, SeqStmt):
            prev, self.visited_block = self.visited_block, False
            for i, item in enumerate(s.seq):
                if self.pos != -1:
                    break
                self.visit(item)
                if self.visited_block and self.visited_related and self.pos == -1:
                    self.pos, self.seq = i, s
                    break
                if self.visited_related:
                    break
            self.visited_block = self.visited_block or prev
        elif isinstance(s, BlockRealize):
            if s is self.scope:
                self.visit(s.block.body)
                if self.visited_related and self.loc is None:
                    self.loc = s
                    if not self.visited_block and self.pos == -1:
                        self.pos = 0
            elif s is self.block:
                self.visited_block = True
            elif any(s is r for r in self.related):
                self.visited_related = True
        elif isinstance(s, For):
            self.visit(s.body)
            if self.visited_block and self.visited_related and self.loc is None \
                    and self.pos != -1:
                self.loc = s
        else:
            for c in children(s):
                self.visit(c)


def _locate(scope: BlockRealize, block: Optional[BlockRealize],
            related: Sequence[BlockRealize]) -> Optional[Tuple[Stmt, int]]:
    """(loop or scope realize, position in its body) for the new stage; None when classic's
    point is not a plain statement list of a loop or of the scope block."""
    body = _unwrap_const(scope.block.body)
    if not related:
        return scope, len(body.seq) if isinstance(body, SeqStmt) else 1
    d = _LocDetector(scope, block, related)
    d.visit(scope)
    if d.loc is None or d.pos == -1:
        return None
    loc_body = _unwrap_const(d.loc.block.body if d.loc is scope else d.loc.body)
    if d.seq is not None and d.seq is not loc_body:
        return None
    if d.seq is None and d.pos != 0:
        return None
    return d.loc, d.pos


def _written_region(realize: BlockRealize, buf: Buffer, path_to_loc: Sequence[Stmt],
                    outer: Dict[Var, Range]) -> List[Range]:
    """The region of ``buf`` ``realize`` declares to write, its loops below the insertion
    point relaxed (classic RelaxBufferRegion), clipped to the buffer."""
    relax = loop_domains(path_to_loc)
    dom = {**outer, **relax}
    decl = [r for r in realize.block.writes if r.buffer is buf]
    if not decl:  # written without a declared region: its accesses say where
        reg = access_region(realize_accesses(realize), buf, relax, outer, writes=True)
        return _clip(reg or [Range(IntImm(n.dtype, 0), n) for n in buf.shape], buf, dom)
    bind = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
    ranges = [Range(substitute(r.min, bind), r.extent) for r in decl[0].region]
    out = []
    for r, n in zip(ranges, buf.shape):
        try:
            rr = relax_indices([r.min], relax, outer)[0] if is_one(r.extent) else \
                relax_indices([Range(r.min, r.extent)], relax, outer)[0]
        except ValueError:
            out.append(Range(IntImm(n.dtype, 0), n))
            continue
        out.append(rr)
    return _clip(out, buf, dom)


def _clip(region: Sequence[Range], buf: Buffer, dom: Dict[Var, Range]) -> List[Range]:
    """``region`` cut to the buffer's bounds (a copy never reads outside them)."""
    out = []
    for r, n in zip(region, buf.shape):
        lo = r.min if can_prove(_op.ge(r.min, 0), dom) else simplify(_op.max(r.min, 0), dom)
        hi = _op.add(r.min, r.extent)
        if not can_prove(_op.le(hi, n), dom):
            hi = _op.min(hi, n)
        out.append(Range(lo, simplify(_op.sub(hi, lo), dom)))
    return out


def _lca(root: Stmt, a: Stmt, b: Stmt):
    """(paths to ``a`` and ``b``, index where they part) under ``root``."""
    pa = find_path(root, lambda x: x is a)
    pb = find_path(root, lambda x: x is b)
    k = 0
    while k < min(len(pa), len(pb)) and pa[k] is pb[k]:
        k += 1
    return pa, pb, k


def _item_index(seq: SeqStmt, node: Stmt) -> int:
    return _item_index_of(seq.seq, node)


def _item_index_of(items: Sequence[Stmt], node: Stmt) -> int:
    return next(i for i, x in enumerate(items) if x is node)


def _guarded(realize: BlockRealize) -> bool:
    """Whether some access under ``realize`` may not happen (a predicate or a branch), so
    that its relaxed region over-approximates what it does."""
    hit = []
    walk_stmts(realize, lambda x: hit.append(1) if isinstance(x, IfThenElse) or (
        isinstance(x, BlockRealize) and not is_true(x.predicate)) else None)
    return bool(hit)


def _precedes_covering(root: Stmt, outer: Dict[Var, Range], a: BlockRealize, abuf: Buffer,
                       b: BlockRealize, bbuf: Buffer, a_reads: bool = False) -> bool:
    """Whether, in every iteration of the loops around both, ``a`` runs before ``b`` and
    ``a`` writes (``a_reads``: reads) every element of ``abuf`` that ``b`` reads of
    ``bbuf`` (provable by interval arithmetic)."""
    pa, pb, k = _lca(root, a, b)
    parent = pa[k - 1]
    if not isinstance(parent, SeqStmt) or k >= len(pa) or k >= len(pb):
        return False
    if _item_index(parent, pa[k]) >= _item_index(parent, pb[k]):
        return False
    if not a_reads and _guarded(a):
        return False
    dom = {**outer, **loop_domains(pa[:k])}
    ra = access_region(realize_accesses(a), abuf, loop_domains(pa[k:]), dom,
                       writes=not a_reads)
    rb = access_region(realize_accesses(b), bbuf, loop_domains(pb[k:]), dom, writes=False)
    if rb is None:
        return True
    if ra is None:
        return False
    return all(can_prove(_op.ge(y.min, x.min), dom)
               and can_prove(_op.le(_op.add(y.min, y.extent), _op.add(x.min, x.extent)), dom)
               for x, y in zip(ra, rb))


def _not_between(root: Stmt, outer, w: BlockRealize, buf: Buffer, c: BlockRealize,
                 r: BlockRealize) -> bool:
    """Whether no write of ``w`` to ``buf`` runs between the copy ``c`` and its reader
    ``r`` (``c`` precedes ``r`` in their common statement list)."""
    pc, pr, k = _lca(root, c, r)
    seq = pc[k - 1]
    pw = find_path(root, lambda x: x is w)
    if len(pw) <= k or pw[k - 1] is not seq:
        return True  # w runs outside the common list: before or after all of it
    iw, ic, ir = _item_index(seq, pw[k]), _item_index(seq, pc[k]), _item_index(seq, pr[k])
    if iw < ic or iw > ir:
        return True
    if iw == ir:
        # w after r inside r's statement, in the one iteration of the loops between
        pw2, pr2, k2 = _lca(root, w, r)
        seq2 = pw2[k2 - 1]
        return isinstance(seq2, SeqStmt) and \
            _item_index(seq2, pr2[k2]) < _item_index(seq2, pw2[k2]) and \
            all(is_one(x.extent) for x in pw2[k:k2] if isinstance(x, For))
    # w under the copy's statement: every write must be copied after it
    return iw == ic and _covers_writes(root, outer, w, c, buf)


def _covers_writes(root: Stmt, outer, w: BlockRealize, c: BlockRealize, buf: Buffer) -> bool:
    """Whether the copy ``c`` (after ``w`` in their common list) reads every element of
    ``buf`` ``w`` writes there."""
    pw, pc, k = _lca(root, w, c)
    seq = pw[k - 1]
    if not isinstance(seq, SeqStmt) or _item_index(seq, pw[k]) >= _item_index(seq, pc[k]):
        return False
    dom = {**outer, **loop_domains(pw[:k])}
    rw = access_region(realize_accesses(w), buf, loop_domains(pw[k:]), dom, writes=True)
    rc = access_region(realize_accesses(c), buf, loop_domains(pc[k:]), dom, writes=False)
    if rw is None:
        return True
    if rc is None:
        return False
    return all(can_prove(_op.le(y.min, x.min), dom)
               and can_prove(_op.ge(_op.add(y.min, y.extent), _op.add(x.min, x.extent)), dom)
               for x, y in zip(rw, rc))


def _rewrite_reads(r: BlockRealize, old: Buffer, new: Buffer) -> BlockRealize:
    """``r`` reading ``new`` where it read ``old`` (also through ``old``'s data pointer)."""
    return substitute(ReplaceBuffer({old: new})(r), {old.data: new.data})


def _scope_and_writers(state: ScheduleState, block_rv: BlockRV, prim: str, buf: Buffer):
    path = state.block_path(block_rv, prim)
    scope_node, spath = _scope(state, path)
    sibs = child_blocks(scope_node)
    writers = [r for r in sibs if any(w is buf for w in buffers_written(r.block))]
    outer = {**loop_domains(spath), **{iv.var: iv.dom for iv in scope_node.block.iter_vars}}
    return path, scope_node, outer, sibs, writers


def cache_read(state: ScheduleState, block_rv: BlockRV, read_buffer_index: int,
               storage_scope: str, consumer_blocks: Optional[Sequence[BlockRV]] = None
               ) -> BlockRV:
    """Copy the ``read_buffer_index``-th buffer ``block`` reads (or the buffer of that name)
    into a new ``storage_scope`` buffer, and make the consumers read the copy. Returns the
    copy block.

    Before::

        for i, j in T.grid(8, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * 2.0

    After ``cache_read(B, 0, "shared")``::

        A_shared = T.alloc_buffer((8, 8), scope="shared")
        for ax0, ax1 in T.grid(8, 8):
            with T.block("A_shared"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                A_shared[v0, v1] = A[v0, v1]
        for i, j in T.grid(8, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A_shared[vi, vj] * 2.0

    As in classic TVM, the copy goes right after the buffer's only writer in the scope, under
    the lowest loop it shares with the first consumer, and copies what one iteration of that
    loop writes (the whole buffer when the scope does not write it). Where that placement
    could not be shown to give every consumer the values it read before, the copy goes
    after the writer's outermost loop and covers what the consumers read.
    """
    prim = "cache_read"
    block = state.block_path(block_rv, prim)[-1].block
    what = f'block "{block.name_hint}"'
    check_scope(prim, what, storage_scope)
    index = _access_index(prim, what, block.reads, read_buffer_index, "read")
    buf = block.reads[index].buffer
    ensure_root_block(state)
    _, scope_node, outer, sibs, writers = _scope_and_writers(state, block_rv, prim, buf)
    if len(writers) > 1:
        raise fail(prim, what, f'"{buf.name}" has {len(writers)} writers in the scope '
                   f'({", ".join(w.block.name_hint for w in writers)}); cache_read needs at '
                   "most one")
    writer = writers[0] if writers else None
    if consumer_blocks is not None:
        names = {b.name if isinstance(b, BlockRV) else b for b in consumer_blocks}
        consumers = [r for r in sibs if r.block.name_hint in names]
        if len(consumers) != len(names):
            raise fail(prim, what, "a consumer block given is not in the block's scope")
        related = consumers
    else:
        consumers = [r for r in sibs if r is not writer
                     and any(b is buf for b in buffers_read(r.block))]
        after = sibs[_item_index_of(sibs, writer) + 1:] if writer is not None else []
        related = [r for r in consumers if any(r is x for x in after)]
    if writer is None:
        loc = (scope_node, 0)
    else:
        loc = _locate(scope_node, writer, related)
    if loc is not None and not any(c is writer for c in consumers):
        new = cache_buffer(buf, storage_scope)
        name = state.fresh_block_name(new.name)
        if writer is None:
            decl = [r for r in scope_node.block.reads if r.buffer is buf]
            region = _clip(decl[0].region, buf, outer) if decl else \
                [Range(IntImm(n.dtype, 0), n) for n in buf.shape]
            loc_outer = outer
        else:
            wpath = find_path(scope_node, lambda x: x is writer)
            k = next(i for i, x in enumerate(wpath) if x is loc[0])
            loc_outer = {**outer, **loop_domains(wpath[:k + 1])}
            region = _written_region(writer, buf, wpath[k + 1:-1], loc_outer)
        nest = _copy_nest(buf, new, region, name, loc_outer)
        copy = nest
        while isinstance(copy, For):
            copy = copy.body
        new_scope = scope_node
        rewritten = []
        for r in consumers:
            nr = _rewrite_reads(r, buf, new)
            rewritten.append(nr)
            new_scope = rebuild(find_path(new_scope, lambda x, r=r: x is r), nr)
        new_scope = _insert_at(new_scope, loc, nest)
        if all(_precedes_covering(new_scope, outer, copy, new, r, new)
               and (writer is None or _not_between(new_scope, outer, writer, buf, copy, r))
               for r in rewritten):
            new_scope = with_block(new_scope,
                                   alloc_buffers=new_scope.block.alloc_buffers + (new,))
            replace(state, find_path(state.body, lambda x: x is scope_node), new_scope)
            return BlockRV(name, block_rv.func_name)
    return _cache_read_top(state, block_rv, index, storage_scope, consumer_blocks)


def _insert_at(new_scope: BlockRealize, loc: Tuple[Stmt, int], nest: Stmt) -> BlockRealize:
    """``new_scope`` with ``nest`` inserted at ``loc`` (a loop found by its variable, since
    rewriting consumers rebuilt it, or the scope block)."""
    node, pos = loc
    if isinstance(node, BlockRealize):
        return with_block(new_scope, body=_insert(new_scope.block.body, pos, nest))
    p = find_path(new_scope, lambda x: isinstance(x, For) and x.loop_var is node.loop_var)
    return rebuild(p, with_loop_body(p[-1], _insert(p[-1].body, pos, nest)))


def cache_write(state: ScheduleState, block_rv: BlockRV, write_buffer_index: int,
                storage_scope: str, consumer_blocks: Optional[Sequence[BlockRV]] = None
                ) -> BlockRV:
    """Make ``block`` write the ``write_buffer_index``-th buffer it writes (or the buffer of
    that name) into a new ``storage_scope`` buffer, copied back by a new block. Returns the
    copy block.

    Before::

        for i, j in T.grid(8, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * 2.0

    After ``cache_write(C, 0, "local")``::

        C_local = T.alloc_buffer((8, 8), scope="local")
        for i, j in T.grid(8, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C_local[vi, vj] = A[vi, vj] * 2.0
        for ax0, ax1 in T.grid(8, 8):
            with T.block("C_local"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                C[v0, v1] = C_local[v0, v1]

    As in classic TVM, the copy goes under the lowest loop the block shares with the first
    later reader of the buffer, just before that reader (at the end of the scope when none
    reads it), and copies what one iteration of that loop writes. With ``consumer_blocks``,
    those consumers read ``C_local`` directly; the others keep reading ``C``. Where that
    placement could not be shown to keep every reader's values, the copy goes right after
    the block's outermost loop.
    """
    prim = "cache_write"
    path = state.block_path(block_rv, prim)
    block = path[-1].block
    what = f'block "{block.name_hint}"'
    check_scope(prim, what, storage_scope)
    index = _access_index(prim, what, block.writes, write_buffer_index, "write")
    buf = block.writes[index].buffer
    ensure_root_block(state)
    path, scope_node, outer, sibs, writers = _scope_and_writers(state, block_rv, prim, buf)
    realize = path[-1]
    if block.init is None and any(b is buf for b in buffers_read(block)) and \
            not _reads_own_writes(realize, buf, {**outer, **loop_domains(path)}):
        return _cache_write_top(state, block_rv, index, storage_scope, consumer_blocks)
    for r in writers:
        if r is not realize:
            raise fail(prim, what, f'block "{r.block.name_hint}" also writes "{buf.name}"; '
                       "the block must be its only writer")
    chosen = _cache_consumers(prim, what, sibs, realize, buf, consumer_blocks)
    after = sibs[_item_index_of(sibs, realize) + 1:]
    readers = [r for r in sibs if r is not realize
               and any(b is buf for b in buffers_read(r.block))]
    related = [r for r in readers if any(r is x for x in after)
               and all(r is not c for c in chosen)]
    loc = _locate(scope_node, realize, related)
    if loc is not None:
        new = cache_buffer(buf, storage_scope)
        name = state.fresh_block_name(new.name)
        wpath = find_path(scope_node, lambda x: x is realize)
        k = next(i for i, x in enumerate(wpath) if x is loc[0])
        loc_outer = {**outer, **loop_domains(wpath[:k + 1])}
        region = _written_region(realize, buf, wpath[k + 1:-1], loc_outer)
        nest = _copy_nest(new, buf, region, name, loc_outer)
        copy = nest
        while isinstance(copy, For):
            copy = copy.body
        rb = ReplaceBuffer({buf: new})
        new_w = substitute(rb(realize), {buf.data: new.data})
        new_scope = rebuild(find_path(scope_node, lambda x: x is realize), new_w)
        new_chosen = []
        for r in chosen:
            nr = _rewrite_reads(r, buf, new)
            new_chosen.append(nr)
            new_scope = rebuild(find_path(new_scope, lambda x, r=r: x is r), nr)
        new_scope = _insert_at(new_scope, loc, nest)
        ok = _precedes_covering(new_scope, outer, new_w, new, copy, new) and all(
            _precedes_covering(new_scope, outer, new_w, new, r, new) for r in new_chosen)
        for r in readers:
            if not ok:
                break
            if any(r is c for c in chosen):
                continue
            ok = _precedes_covering(new_scope, outer, copy, buf, r, buf) or \
                _top_index(list(_seq_of(new_scope)), r) < _top_index(list(_seq_of(new_scope)),
                                                                    new_w)
        if ok:
            new_scope = with_block(new_scope,
                                   alloc_buffers=new_scope.block.alloc_buffers + (new,))
            replace(state, find_path(state.body, lambda x: x is scope_node), new_scope)
            return BlockRV(name, block_rv.func_name)
    return _cache_write_top(state, block_rv, index, storage_scope, consumer_blocks)


def _reads_own_writes(realize: BlockRealize, buf: Buffer, outer: Dict[Var, Range]) -> bool:
    """Whether every read of ``buf`` inside ``realize`` (a block without init) is of an
    element an inner block wrote earlier in the same instance, so that the block never needs
    the values ``buf`` held before it (classic caches such a block's writes)."""
    inner = child_blocks(realize)
    dom = {**outer, **{iv.var: iv.dom for iv in realize.block.iter_vars}}

    def n_reads(r):
        return sum(1 for a in realize_accesses(r) if a.buffer is buf and not a.is_write)

    if not inner or n_reads(realize) != sum(n_reads(r) for r in inner):
        return False  # the block itself reads buf outside its inner blocks
    for r in inner:
        if not any(b is buf for b in buffers_read(r.block)) or r.block.init is not None:
            continue
        writers = [w for w in inner if w is not r
                   and any(b is buf for b in buffers_written(w.block))]
        if not any(_precedes_covering(realize, dom, w, buf, r, buf) for w in writers):
            return False
    return True


def _seq_of(scope: BlockRealize):
    body = scope.block.body
    return body.seq if isinstance(body, SeqStmt) else (body,)


def cache_inplace(state: ScheduleState, block_rv: BlockRV, read_buffer_index: int,
                  storage_scope: str) -> Tuple[BlockRV, BlockRV]:
    """Make ``block``, which reads and writes a buffer, work on a ``storage_scope`` copy:
    a block copying the elements it touches in goes right before it, one copying what it
    writes back right after it. Returns (copy-in block, copy-out block).

    Before::

        for i in range(1):
            with T.block("ext_call"):
                T.reads(D[0:64])
                T.writes(D[0:64])
                T.evaluate(T.call_extern("call_impl", D.data, dtype=""))

    After ``cache_inplace(ext_call, 0, "local")``::

        D_local = T.alloc_buffer((64,), scope="local")
        for i in range(1):
            for ax0 in range(64):
                with T.block("D_local"):
                    v0 = T.axis.spatial(64, ax0)
                    D_local[v0] = D[v0]
            with T.block("ext_call"):
                T.reads(D_local[0:64])
                T.writes(D_local[0:64])
                T.evaluate(T.call_extern("call_impl", D_local.data, dtype=""))
            for ax0 in range(64):
                with T.block("D_local_1"):
                    v0 = T.axis.spatial(64, ax0)
                    D[v0] = D_local[v0]
    """
    prim = "cache_inplace"
    block = state.block_path(block_rv, prim)[-1].block
    what = f'block "{block.name_hint}"'
    check_scope(prim, what, storage_scope)
    if isinstance(read_buffer_index, int):
        buf = block.reads[_access_index(prim, what, block.reads, read_buffer_index,
                                        "read")].buffer
    else:  # a reduction's update reads what it writes without listing it among its reads
        regions = block.writes + block.reads
        buf = regions[_access_index(prim, what, regions, read_buffer_index, "access")].buffer
    if not any(b is buf for b in buffers_written(block)):
        raise fail(prim, what, f'the block reads "{buf.name}" but does not write it; '
                   "cache_inplace needs a buffer read and written in place")
    if not any(b is buf for b in buffers_read(block)):
        raise fail(prim, what, f'the block writes "{buf.name}" but does not read it; '
                   "cache_write is the primitive for that")
    ensure_root_block(state)
    path, scope_node, outer, _, _ = _scope_and_writers(state, block_rv, prim, buf)
    realize = path[-1]
    dom = {**outer, **loop_domains(path)}
    accesses = realize_accesses(realize)
    # the copy-in takes every element the block touches, so that what it leaves unwritten
    # goes back unchanged
    touched = access_region(accesses, buf, {}, dom)
    written = access_region(accesses, buf, {}, dom, writes=True)
    if touched is None or written is None:
        raise fail(prim, what, f'the accesses to "{buf.name}" cannot be bounded')
    new = cache_buffer(buf, storage_scope)
    in_name = state.fresh_block_name(new.name)
    copy_in = _copy_nest(buf, new, touched, in_name, dom)
    names = state.block_names() | {in_name}
    out_name, k = new.name, 1
    while out_name in names:
        out_name, k = f"{new.name}_{k}", k + 1
    copy_out = _copy_nest(new, buf, written, out_name, dom)
    rewritten = substitute(ReplaceBuffer({buf: new})(realize), {buf.data: new.data})
    # around the block, in the statement list holding it (made when there is none)
    parent = path[-2]
    if isinstance(parent, SeqStmt):
        items = []
        for s in parent.seq:
            items += [copy_in, rewritten, copy_out] if s is realize else [s]
        replace(state, path[:-1], SeqStmt.flatten(*items))
    else:
        replace(state, path, SeqStmt.flatten(copy_in, rewritten, copy_out))
    add_alloc_in(state, scope_node, new)
    return BlockRV(in_name, block_rv.func_name), BlockRV(out_name, block_rv.func_name)


def add_alloc_in(state: ScheduleState, scope_node: BlockRealize, buf: Buffer) -> None:
    """Allocate ``buf`` in the scope block ``scope_node`` (found again by its block name)."""
    name = scope_node.block.name_hint
    p = find_path(state.body, lambda x: isinstance(x, BlockRealize)
                  and x.block.name_hint == name)
    replace(state, p, with_block(p[-1], alloc_buffers=p[-1].block.alloc_buffers + (buf,)))
