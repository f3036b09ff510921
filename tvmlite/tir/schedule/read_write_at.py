"""``read_at`` and ``write_at``: stage the part of a buffer that one iteration of a loop
reads (or writes) through a copy in another storage scope, copied by a block placed directly
under that loop."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from ...arith.linear import detect_linear_equation
from .. import op as _op
from ..buffer import Buffer
from ..expr import BufferLoad, IntImm, IterVar, IterVarType, PrimExpr, Range, Var
from ..functor import Visitor, collect_vars, substitute
from ..stmt import (
    Block,
    BlockRealize,
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    SeqStmt,
)
from .cache_read_write import cache_buffer, check_scope
from .error import fail
from .state import (
    BlockRV,
    LoopRV,
    ReplaceBuffer,
    ScheduleState,
    access_region,
    add_alloc,
    can_prove,
    collect_accesses,
    const_value,
    ensure_root_block,
    find_path,
    is_true,
    realize_accesses,
    relax_indices,
    replace,
    simplify,
    union_regions,
)

# classic's storage ranks, and the thread ranks a storage scope is shared across
_STORAGE_RANK = {"global": 0, "shared": 1, "shared.dyn": 1, "warp": 2, "local": 3}


def read_at(state: ScheduleState, loop_rv: LoopRV, block_rv: BlockRV, read_buffer_index: int,
            storage_scope: str) -> BlockRV:
    """Copy the region of the ``read_buffer_index``-th buffer ``block`` reads that one
    iteration of ``loop`` reads into a ``storage_scope`` buffer, by a block placed under
    ``loop`` before the first reader; every reader under ``loop`` reads the copy.

    Before::

        for k0 in range(16):
            for k1, i in T.grid(8, 4):
                with T.block("C"):
                    ...
                    C[vi] = C[vi] + A[vi, k0 * 8 + k1]

    After ``read_at(k0, C, 1, "shared")``::

        for k0 in range(16):
            with T.block("A_shared"):
                v0 = T.axis.S(16, k0)
                T.block_attr({"auto_copy": 1})
                for ax0, ax1 in T.grid(4, 8):
                    A_shared[ax0, v0 * 8 + ax1] = A[ax0, v0 * 8 + ax1]
            for k1, i in T.grid(8, 4):
                with T.block("C"):
                    ...
                    C[vi] = C[vi] + A_shared[vi, k0 * 8 + k1]

    Returns the copy block.
    """
    return _read_write_at(state, loop_rv, block_rv, read_buffer_index, storage_scope, True)


def write_at(state: ScheduleState, loop_rv: LoopRV, block_rv: BlockRV, write_buffer_index: int,
             storage_scope: str) -> BlockRV:
    """Make the writers of the ``write_buffer_index``-th buffer ``block`` writes under ``loop``
    write a ``storage_scope`` buffer, copied back by a block placed under ``loop`` after the
    last writer (the mirror of :func:`read_at`). The writes of one iteration must cover the
    region copied back exactly. Returns the copy block.
    """
    return _read_write_at(state, loop_rv, block_rv, write_buffer_index, storage_scope, False)


def _read_write_at(state: ScheduleState, loop_rv: LoopRV, block_rv: BlockRV, index: int,
                   storage_scope: str, is_read: bool) -> BlockRV:
    prim = "read_at" if is_read else "write_at"
    path = state.block_path(block_rv, prim)
    block = path[-1].block
    what = f'block "{block.name_hint}"'
    check_scope(prim, what, storage_scope)
    regions = block.reads if is_read else block.writes
    kind = "read" if is_read else "write"
    if not isinstance(index, int) or not 0 <= index < len(regions):
        raise fail(prim, what, f"{kind}_buffer_index {index!r} is out of range (the block "
                   f"{kind}s {len(regions)} buffers)")
    src = regions[index].buffer
    ensure_root_block(state)
    lpath = state.loop_path(loop_rv, prim)
    loop = lpath[-1]
    lwhat = f'loop "{loop.loop_var.name}"'
    if find_path(loop, lambda s: isinstance(s, BlockRealize)
                 and s.block.name_hint == block.name_hint) is None:
        raise fail(prim, what, f"the block is not under {lwhat}")
    subtrees = list(loop.body.seq) if isinstance(loop.body, SeqStmt) else [loop.body]

    # which subtrees read / write the buffer, and the region the chosen accesses cover
    outer: Dict[Var, Range] = {}
    for s in lpath:
        if isinstance(s, For):
            outer[s.loop_var] = Range(s.min, s.extent)
    threads = _thread_relax(lpath, storage_scope)
    r_pos: List[int] = []
    w_pos: List[int] = []
    relaxed: List[List[Range]] = []
    accessors: List[BlockRealize] = []
    for k, sub in enumerate(subtrees):
        has_r = has_w = False
        for realize, inner in _top_blocks(sub):
            b = realize.block
            r = _reads(b, src)
            w = any(x.buffer is src for x in b.writes)
            has_r, has_w = has_r or r, has_w or w
            if not (r if is_read else w):
                continue
            if not is_true(realize.predicate):
                raise fail(prim, what, f'block "{b.name_hint}" under {lwhat} has a predicate; '
                           f'the region of "{src.name}" it accesses may reach past what it '
                           "touches (split with a factor that divides the extent)")
            if _conditional(b):
                raise fail(prim, what, f'block "{b.name_hint}" under {lwhat} accesses '
                           f'"{src.name}" under a condition; tvmlite does not stage guarded '
                           "accesses")
            accessors.append(realize)
            bind = {iv.var: v for iv, v in zip(b.iter_vars, realize.iter_values)}
            relax = {**threads, **inner}
            # the accesses themselves too: a declared region may be tighter than a guarded
            # access (padding through if_then_else)
            acc = access_region(realize_accesses(realize), src, relax, outer,
                                writes=None if is_read else True)
            if acc is not None:
                relaxed.append(acc)
            for reg in (b.reads if is_read else b.writes):
                if reg.buffer is not src:
                    continue
                rng = [Range(substitute(x.min, bind), x.extent) for x in reg.region]
                try:
                    relaxed.append(relax_indices(rng, relax, {**outer, **relax}))
                except ValueError:
                    raise fail(prim, what, f'the region of "{src.name}" the block accesses '
                               f"cannot be bounded under {lwhat}") from None
        if has_r:
            r_pos.append(k)
        if has_w:
            w_pos.append(k)
        if _loose_access(sub, src):
            raise fail(prim, what, f'"{src.name}" is accessed outside any block under {lwhat}')
    if is_read:
        if w_pos and w_pos[-1] >= r_pos[0]:
            raise fail(prim, what, f'"{src.name}" is written under {lwhat} after (or where) it '
                       "is first read; the copy would be stale")
        insert, st, ed = r_pos[0], r_pos[0], len(subtrees)
    else:
        if r_pos and r_pos[-1] > w_pos[-1]:
            raise fail(prim, what, f'"{src.name}" is read under {lwhat} after its last write')
        insert, st, ed = w_pos[-1] + 1, 0, w_pos[-1] + 1
        _check_write_cover(prim, what, lwhat, src, accessors, subtrees, lpath, threads)
    domain = union_regions(relaxed, outer)
    domain = [_clip(Range(simplify(r.min, outer), simplify(r.extent, outer)), n, outer)
              for r, n in zip(domain, src.shape)]

    dst = cache_buffer(src, storage_scope)
    name = state.fresh_block_name(f"{src.name}_{storage_scope.replace('.', '_')}")
    copy = _copy_block(src, dst, domain, name, outer, is_read)
    rb = ReplaceBuffer({src: dst})
    for k in range(st, ed):
        subtrees[k] = rb(subtrees[k])
    subtrees.insert(insert, copy)
    replace(state, lpath, For(loop.loop_var, loop.min, loop.extent, loop.kind,
                              SeqStmt.flatten(*subtrees), loop.thread_binding,
                              loop.annotations))
    add_alloc(state, dst)
    return BlockRV(name, block_rv.func_name)


def _clip(r: Range, n: PrimExpr, outer: Dict[Var, Range]) -> Range:
    """``r`` cut to ``[0, n)`` where it is not provably inside (a non-divisible split's
    relaxed region reaches past the buffer; the copy must never touch what is not there)."""
    lo, hi = r.min, _op.add(r.min, r.extent)
    lo_in, hi_in = can_prove(_op.ge(lo, 0), outer), can_prove(_op.le(hi, n), outer)
    if lo_in and hi_in:
        return r
    lo = lo if lo_in else simplify(_op.max(lo, 0), outer)
    hi = hi if hi_in else simplify(_op.min(hi, n), outer)
    return Range(lo, simplify(_op.sub(hi, lo), outer))


def _thread_relax(lpath: Sequence, scope: str) -> Dict[Var, Range]:
    """Thread-bound loops above the target whose threads all share a ``scope`` buffer
    (classic's rule: "shared" spans threadIdx and vthread, "warp" threadIdx.x; a "global" or
    "local" copy is per thread)."""
    rank = _STORAGE_RANK.get(scope, 3)
    out: Dict[Var, Range] = {}
    if rank == 0:
        return out
    for lp in lpath:
        tb = getattr(lp, "thread_binding", None)
        if not isinstance(lp, For) or tb is None:
            continue
        tag = tb.thread_tag
        trank = 0 if tag.startswith("blockIdx") else 1
        if (tag == "threadIdx.x") if rank == 2 else rank <= trank:
            out[lp.loop_var] = Range(lp.min, lp.extent)
    return out


def _top_blocks(s, inner: Optional[Dict[Var, Range]] = None):
    """(realize, ranges of the loops between ``s`` and it) for the outermost blocks under
    ``s``."""
    inner = dict(inner or {})
    if isinstance(s, BlockRealize):
        yield s, inner
    elif isinstance(s, For):
        inner[s.loop_var] = Range(s.min, s.extent)
        yield from _top_blocks(s.body, inner)
    elif isinstance(s, SeqStmt):
        for x in s.seq:
            yield from _top_blocks(x, inner)
    else:
        for name in ("then_case", "else_case", "body"):
            x = getattr(s, name, None)
            if x is not None:
                yield from _top_blocks(x, inner)


def _reads(block: Block, buf: Buffer) -> bool:
    """Whether ``block`` reads ``buf`` (declared, or loaded in its body: a reduction block
    made from TE does not declare the output it accumulates into)."""
    return any(x.buffer is buf for x in block.reads) or any(
        a.buffer is buf and not a.is_write for a in collect_accesses(block))


def _conditional(block: Block) -> bool:
    """Whether ``block``'s body holds a condition (``if``, ``if_then_else``, ``select``)."""
    found = []

    class _V(Visitor):
        def visit_IfThenElse(self, x):
            found.append(True)

        def visit_Select(self, x):
            found.append(True)

        def visit_Call(self, x):
            if str(getattr(x.op, "name", x.op)).endswith("if_then_else"):
                found.append(True)
            self.generic(x)

    _V().visit(block.body)
    return bool(found)


def _loose_access(s, buf: Buffer) -> bool:
    """Whether ``s`` loads or stores ``buf`` outside every block."""
    found = []

    class _V(Visitor):
        def visit_BlockRealize(self, r):
            return

        def visit_BufferLoad(self, e):
            found.append(e.buffer is buf)
            self.generic(e)

        def visit_BufferStore(self, st):
            found.append(st.buffer is buf)
            self.generic(st)

    _V().visit(s)
    return any(found)


def _check_write_cover(prim, what, lwhat, src, writers, subtrees, lpath, threads) -> None:
    """The copy back writes every point of the relaxed region, so each iteration of the loop
    must write all of them: one writer, no predicate, single-point writes whose indices walk
    the region as a mixed-radix number of the relaxed loops (each loop in one dimension).
    A writer that also reads the buffer must initialise it within the iteration."""
    if len(writers) != 1:
        raise fail(prim, what, f'{len(writers)} blocks write "{src.name}" under {lwhat}; '
                   "write_at needs a single writer")
    realize = writers[0]
    b = realize.block
    if not is_true(realize.predicate):
        raise fail(prim, what, f'the writer of "{src.name}" has a predicate; its writes may '
                   "not cover the region copied back")
    inner: Dict[Var, Range] = {}
    for sub in subtrees:
        for r, rng in _top_blocks(sub):
            if r is realize:
                inner = rng
    relax = {**threads, **inner}
    bind = {iv.var: v for iv, v in zip(b.iter_vars, realize.iter_values)}
    used: List[Var] = []
    for reg in b.writes:
        if reg.buffer is not src:
            continue
        for x in reg.region:
            if const_value(x.extent) != 1:
                raise fail(prim, what, f'the writer writes a multi-point region of '
                           f'"{src.name}"; write_at needs single-point writes')
            idx = simplify(substitute(x.min, bind))
            vs = [v for v in relax if v in collect_vars(idx)]
            coeffs = detect_linear_equation(idx, vs)
            terms = []
            for v, c in zip(vs, coeffs):
                cv = const_value(c)
                if cv is None or cv <= 0 or const_value(relax[v].extent) is None:
                    terms = None
                    break
                terms.append((cv, const_value(relax[v].extent)))
            if terms is None or not coeffs:
                raise fail(prim, what, f'the write index of "{src.name}" is not a dense '
                           "affine walk of the loops under the target loop")
            stride = 1
            for cv, ext in sorted(terms):
                if cv != stride:
                    raise fail(prim, what, f'the writes of "{src.name}" leave holes in the '
                               "region copied back")
                stride *= ext
            used += vs
    if len(set(used)) != len(used):
        raise fail(prim, what, f'a loop moves more than one index of "{src.name}"; the writes '
                   "do not cover the region copied back")
    if _reads(b, src):
        reduce_vars = set()
        for iv, v in zip(b.iter_vars, realize.iter_values):
            if iv.iter_type == IterVarType.CommReduce:
                reduce_vars |= collect_vars(v)
        if b.init is None or any(v not in inner for v in reduce_vars):
            raise fail(prim, what, f'the writer reads "{src.name}" without initialising it '
                       f"within one iteration of {lwhat}; the copy would start undefined")


def _ordered_vars(exprs: Sequence[PrimExpr], allowed: Dict[Var, Range]) -> List[Var]:
    out: List[Var] = []

    class _V(Visitor):
        def visit_Var(self, v):
            if v in allowed and v not in out:
                out.append(v)

    for e in exprs:
        _V().visit(e)
    return out


def _copy_block(src: Buffer, dst: Buffer, domain: List[Range], name: str,
                outer: Dict[Var, Range], is_read: bool) -> BlockRealize:
    """A block over the loops ``domain`` depends on (iterators ``v0, v1, ...``), copying
    ``domain`` of ``src`` to ``dst`` (or back) with loops inside its body."""
    loop_vars = _ordered_vars([e for r in domain for e in (r.min, r.extent)], outer)
    ivs, vmap = [], {}
    for k, lv in enumerate(loop_vars):
        v = Var(f"v{k}", lv.dtype)
        vmap[lv] = v
        ivs.append(IterVar(outer[lv], v, IterVarType.DataPar))
    domain = [Range(substitute(r.min, vmap), substitute(r.extent, vmap)) for r in domain]
    axes = [Var(f"ax{k}", r.min.dtype) for k, r in enumerate(domain)]
    idx = tuple(_op.add(r.min, ax) for r, ax in zip(domain, axes))
    frm, to = (src, dst) if is_read else (dst, src)
    body = BufferStore(to, BufferLoad(frm, idx), idx)
    for ax, r in reversed(list(zip(axes, domain))):
        body = For(ax, IntImm(ax.dtype, 0), r.extent, ForKind.SERIAL, body)
    block = Block(tuple(ivs), (BufferRegion(frm, tuple(domain)),),
                  (BufferRegion(to, tuple(domain)),), name, body,
                  annotations={"auto_copy": 1})
    return BlockRealize(tuple(loop_vars), IntImm("bool", 1), block)

