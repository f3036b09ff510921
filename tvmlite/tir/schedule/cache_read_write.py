"""``cache_read`` and ``cache_write``: stage a buffer through a copy in another storage
scope."""
from __future__ import annotations

from typing import List, Optional, Sequence

from .. import op as _op
from ..buffer import Buffer
from ..expr import IntImm, IterVar, IterVarType, Range, Var
from ..stmt import Block, BlockRealize, BufferRegion, BufferStore, For, ForKind, SeqStmt, Stmt
from .error import fail
from .state import (
    BlockRV,
    ReplaceBuffer,
    ScheduleState,
    access_region,
    buffers_read,
    buffers_written,
    child_blocks,
    ensure_root_block,
    find_path,
    loop_domains,
    realize_accesses,
    rebuild,
    replace,
    scope_index,
    simplify,
    union_regions,
    with_block,
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
        dt = r.min.dtype if hasattr(r.min, "dtype") else "int32"
        v = Var(f"v{k}", dt)
        ivs.append(IterVar(Range(IntImm(dt, 0), extent), v, IterVarType.DataPar))
        ax = Var(f"ax{k}", dt)
        dom[ax] = Range(IntImm(dt, 0), r.extent)
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


def cache_read(state: ScheduleState, block_rv: BlockRV, read_buffer_index: int,
               storage_scope: str, consumer_blocks: Optional[Sequence[BlockRV]] = None
               ) -> BlockRV:
    """Copy the ``read_buffer_index``-th buffer ``block`` reads into a new ``storage_scope``
    buffer, and make the consumers read the copy. Returns the copy block.

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

    The copy covers the region the consumers read; ``compute_at`` of the copy block later
    shrinks it to a tile.
    """
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
        names = {b.name for b in consumer_blocks}
        consumers = [r for r in sibs if r.block.name_hint in names]
        if len(consumers) != len(names):
            raise fail(prim, what, "a consumer block given is not in the block's scope")
    else:
        consumers = [r for r in sibs if any(b is buf for b in buffers_read(r.block))]
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


def cache_write(state: ScheduleState, block_rv: BlockRV, write_buffer_index: int,
                storage_scope: str, consumer_blocks: Optional[Sequence[BlockRV]] = None
                ) -> BlockRV:
    """Make ``block`` write the ``write_buffer_index``-th buffer it writes into a new
    ``storage_scope`` buffer, copied back by a new block right after it. Returns the copy
    block.

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

    With ``consumer_blocks``, those consumers (blocks of the same scope after ``block``)
    read ``C_local`` directly; the other consumers keep reading ``C``, which the copy block
    still writes.
    """
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
    if block.init is None and any(b is buf for b in buffers_read(block)):
        raise fail(prim, what, f'the block reads "{buf.name}", which it writes, without an '
                   "init of its own (its initial values come from elsewhere, e.g. an outer "
                   "block's init); the cache is never filled from it")
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
        if not isinstance(rv, BlockRV):
            raise TypeError(f"{prim}: consumer_blocks must hold BlockRVs, got "
                            f"{type(rv).__name__}")
        found = [r for r in sibs if r.block.name_hint == rv.name]
        if not found:
            raise fail(prim, what, f'consumer block "{rv.name}" is not in the block\'s scope')
        r = found[0]
        if r is realize or not any(b is buf for b in buffers_read(r.block)):
            raise fail(prim, what, f'block "{rv.name}" does not read "{buf.name}", so it is '
                       "not a consumer")
        if all(x is not r for x in out):
            out.append(r)
    return out
