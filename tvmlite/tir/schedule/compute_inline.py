"""``compute_inline`` and ``reverse_compute_inline``: remove an elementwise block by folding its
expression into its consumers (or its consumer's expression into it)."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

from ...ir.structural import structural_equal
from .. import op as _op
from ..analysis import block_regions
from ..buffer import Buffer
from ..expr import BufferLoad, Call, FloorDiv, FloorMod, IterVarType, PrimExpr, Range, Var
from ..functor import Mutator, collect_vars, post_order_visit, pre_order_visit, substitute
from ..stmt import Block, BlockRealize, BufferStore, For, MatchBufferRegion, Stmt
from ..stmt_util import ALIGN_ATTR
from .error import fail
from .state import (
    BlockRV,
    ScheduleState,
    StmtWalker,
    analyzer,
    buffers_read,
    buffers_written,
    can_prove,
    child_blocks,
    collect_accesses,
    conj,
    const_value,
    exclusive_subtree,
    find_path,
    is_leaf_block,
    is_one,
    remove_alloc,
    replace,
    scope_index,
    simplify,
)


def _store_of(block: Block, prim: str, what: str) -> BufferStore:
    if block.init is not None or any(iv.iter_type != IterVarType.DataPar
                                     for iv in block.iter_vars):
        raise fail(prim, what, "the block is a reduction; only a data-parallel block can be "
                   "inlined")
    if not isinstance(block.body, BufferStore):
        raise fail(prim, what, "the block's body is not a single buffer store")
    if block.alloc_buffers or block.match_buffers:
        raise fail(prim, what, "the block allocates or matches buffers")
    return block.body


def _pure_indices(indices, block: Block) -> Optional[List[Var]]:
    """The iterators ``indices`` consist of, when each index is a distinct iterator."""
    ivs = {iv.var for iv in block.iter_vars}
    out = []
    for i in indices:
        if not isinstance(i, Var) or i not in ivs or any(i is o for o in out):
            return None
        out.append(i)
    return out


def _opaque_uses(node) -> Dict[int, Tuple[int, str]]:
    """``id(buffer)`` or ``id(buffer.data)`` -> (order, why) for each buffer ``node`` uses other
    than by loads and stores: its data pointer used directly, passed to a call, or a region of
    it matched to another buffer."""
    found: Dict[int, Tuple[int, str]] = {}

    def f(x):
        if isinstance(x, Var) and x.dtype == "handle":  # a buffer's data pointer
            found.setdefault(id(x), (len(found), "its data pointer is used directly"))
        elif isinstance(x, Call):
            for a in x.args:
                if isinstance(a, (Buffer, Var)):
                    found.setdefault(id(a), (len(found),
                                             f'it is passed to "{x.op}" (an opaque access)'))
        elif isinstance(x, MatchBufferRegion):
            found.setdefault(id(x.source.buffer), (
                len(found), f'a region of it is matched to buffer "{x.buffer.name}"'))

    post_order_visit(node, f)
    return found


def _check_no_opaque_use(state: ScheduleState, buf: Buffer, prim: str, what: str) -> None:
    """Inlining rewrites loads and stores only: refuse when ``buf`` is also used another way.
    The function's opaque uses are found in one walk per body, which compute_inline carries
    to the body it makes (see :func:`compute_inline`)."""
    body = state.body
    cached = state.body_facts.get("opaque_uses")
    if cached is None or cached[0] is not body:
        cached = state.body_facts["opaque_uses"] = (body, _opaque_uses(body))
    uses = cached[1]
    hits = [uses[k] for k in (id(buf), id(buf.data)) if k in uses]
    if hits:
        raise fail(prim, what, f'"{buf.name}" cannot be inlined: {min(hits)[1]}')


def _scope_siblings(state, path):
    si = scope_index(path)
    scope = path[si] if si >= 0 else state.body
    return child_blocks(scope), (path[:si + 1] if si >= 0 else None)


class _InlineLoads(Mutator):
    """Replace loads of ``buf`` by ``value`` with the iterators ``ivs`` substituted."""

    def __init__(self, buf, ivs, value):
        self.buf, self.ivs, self.value = buf, ivs, value

    def visit_BufferLoad(self, e):
        e2 = self.generic(e)
        if e2.buffer is not self.buf:
            return e2
        return substitute(self.value, dict(zip(self.ivs, e2.indices)))

    def visit_Block(self, b):
        reads_buf = any(r.buffer is self.buf for r in b.reads)
        if not reads_buf and is_leaf_block(b):
            return b  # a leaf block's reads list every buffer it loads
        b2 = self.generic(b)
        if b2 is b or not reads_buf:
            return b2
        reads, _ = block_regions(b2)
        return dataclasses.replace(b2, reads=_with_opaque_reads(b2, reads))


def _with_opaque_reads(block: Block, reads, declared=None) -> tuple:
    """``reads`` plus the declared reads of buffers the body reaches only through their data
    pointer (an intrinsic's ``tvm_access_ptr``), which the region analysis cannot see, in the
    order of first use in the body (as classic lists them). ``declared``: the regions to
    take them from (default: ``block.reads``)."""
    declared = block.reads if declared is None else declared
    listed = {id(r.buffer) for r in reads}
    first: Dict[int, int] = {}  # buffer id -> order of first use (load or pointer)

    def f(x):
        if isinstance(x, BufferLoad):
            first.setdefault(id(x.buffer), len(first))
        elif isinstance(x, Call):  # a pointer argument: the Buffer or its data Var
            for a in x.args:
                if isinstance(a, Buffer):
                    first.setdefault(id(a), len(first))
                elif isinstance(a, Var):
                    for r in declared:
                        if r.buffer.data is a:
                            first.setdefault(id(r.buffer), len(first))

    pre_order_visit(block.body, f)
    extra = []
    for r in declared:
        if id(r.buffer) not in listed and id(r.buffer) in first:
            listed.add(id(r.buffer))
            extra.append(r)
    if not extra:
        return reads
    return tuple(sorted((*reads, *extra), key=lambda r: first.get(id(r.buffer), len(first))))


def _blocks_in_order(root: Stmt) -> List[Tuple[BlockRealize, Tuple[For, ...]]]:
    """Every BlockRealize under ``root`` in program order, with the loops around it."""
    out, loops = [], []

    def enter(x):
        if isinstance(x, For):
            loops.append(x)
        elif isinstance(x, BlockRealize):
            out.append((x, tuple(loops)))
        return True

    def leave(x):
        if isinstance(x, For):
            loops.pop()

    StmtWalker(enter, leave).visit(root)
    return out


def _own_writes(block: Block) -> List[Buffer]:
    """Buffers a block writes itself: all of them for a leaf block, its init's for a block
    holding others (whose writes are their own)."""
    if is_leaf_block(block):
        return buffers_written(block)
    if block.init is None:
        return []
    return [a.buffer for a in collect_accesses(block.init) if a.is_write]


def _runs_between(order, pos_b: int, pos_c: int, pos_w: int) -> bool:
    """Whether block ``order[pos_w]`` may run after block ``order[pos_b]`` and before block
    ``order[pos_c]`` reads what it produced: it lies between them, or it follows the reader in
    a loop that does not hold the producer (so it runs between two of the reader's
    iterations); a reader before the producer reads an earlier iteration's values, so any
    loop shared with it counts."""
    loops_b, loops_c, loops_w = order[pos_b][1], order[pos_c][1], order[pos_w][1]
    shared = [lp for lp in loops_c if any(lp is x for x in loops_w)]
    if pos_c < pos_b:
        return bool(shared)
    if pos_b < pos_w < pos_c:
        return True
    return pos_w >= pos_c and any(all(lp is not x for x in loops_b) for lp in shared)


def _position(order, realize: BlockRealize) -> int:
    return next(i for i, (r, _) in enumerate(order) if r is realize)


def _has(bufs: List[Buffer], b: Buffer) -> bool:
    return any(x is b for x in bufs)


def _check_inputs_kept(state: ScheduleState, realize: BlockRealize, buf: Buffer, prim: str,
                       what: str) -> None:
    """Inlining moves the producer's reads to where its consumers run: refuse when a block
    may overwrite one of the producer's inputs after the producer ran and before a consumer
    reads the produced value."""
    inputs = buffers_read(realize.block)
    order = _blocks_in_order(state.body)
    pos_b = _position(order, realize)
    consumers = [i for i, (r, _) in enumerate(order)
                 if r is not realize and is_leaf_block(r.block)
                 and _has(buffers_read(r.block), buf)]
    for pos_w, (w, _) in enumerate(order):
        hit = next((x for x in _own_writes(w.block) if _has(inputs, x)), None)
        if w is realize or hit is None:
            continue
        for pos_c in consumers:
            if _runs_between(order, pos_b, pos_c, pos_w):
                raise fail(prim, what, f'block "{w.block.name_hint}" overwrites '
                           f'"{hit.name}", which the block reads, after the block runs and '
                           f'before its consumer "{order[pos_c][0].block.name_hint}" reads '
                           "the result; inlined, the consumer would read the new values")


def _check_consumer_movable(state: ScheduleState, producer: BlockRealize,
                            realize: BlockRealize, buf: Buffer, prim: str, what: str) -> None:
    """Reverse inlining runs the consumer where its producer runs: refuse when a block that
    may run in between reads or writes what the consumer writes, or writes what it reads
    (the producer itself counts when it reads what the consumer writes)."""
    outs = buffers_written(realize.block)
    ins = [b for b in buffers_read(realize.block) if b is not buf]
    order = _blocks_in_order(state.body)
    pos_b, pos_c = _position(order, producer), _position(order, realize)
    for pos_w, (w, _) in enumerate(order):
        if w is realize or not is_leaf_block(w.block):
            continue
        wr, rd = _own_writes(w.block), buffers_read(w.block)
        why = next((f'reads "{b.name}", which the block writes' for b in outs
                    if _has(rd, b)), None)
        if w is producer:
            if why:
                raise fail(prim, what, f'the producer "{w.block.name_hint}" {why}; inlined '
                           "into it, the block would write it before it is read")
            continue
        why = why or next((f'writes "{b.name}", which the block writes' for b in outs
                           if _has(wr, b)), None)
        why = why or next((f'writes "{b.name}", which the block reads' for b in ins
                           if _has(wr, b)), None)
        if why and _runs_between(order, pos_b, pos_c, pos_w):
            raise fail(prim, what, f'block "{w.block.name_hint}" {why}, and runs between the '
                       f'producer "{producer.block.name_hint}" and the block; inlined into '
                       "the producer, the block would run before it")


def compute_inline(state: ScheduleState, block_rv: BlockRV) -> None:
    """Inline an elementwise producer into every consumer and remove it.

    Before::

        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] * 2.0
        for i in range(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = B[vi] + 1.0

    After ``compute_inline(B)``::

        for i in range(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = A[vi] * 2.0 + 1.0
    """
    prim = "compute_inline"
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    store = _store_of(block, prim, what)
    buf = store.buffer
    if state.is_output_buffer(buf):
        raise fail(prim, what, f'the block writes the function output "{buf.name}"; an '
                   "output block cannot be inlined")
    ivs = _pure_indices(store.indices, block)
    if ivs is None:
        raise fail(prim, what, "the store indices are not distinct block iterators")
    if collect_vars(store.value) & ({iv.var for iv in block.iter_vars} - set(ivs)):
        raise fail(prim, what, "the stored value uses an iterator that is not a store index")
    if any(a is buf for a in buffers_read(block)):
        raise fail(prim, what, f'the block reads the buffer "{buf.name}" it writes')
    sibs, _ = _scope_siblings(state, path)
    for r in sibs:
        if r is not realize and any(w is buf for w in buffers_written(r.block)):
            raise fail(prim, what, f'block "{r.block.name_hint}" also writes "{buf.name}"; '
                       "the block must be its only writer")
    _check_no_opaque_use(state, buf, prim, what)
    _check_inputs_kept(state, realize, buf, prim, what)
    k = exclusive_subtree(path)
    replace(state, path[:k + 1], None)
    body = _InlineLoads(buf, ivs, store.value).visit(state.body)
    state.set_body(body)
    remove_alloc(state, buf)
    # the other buffers' opaque uses are those of the old body: the inlined value only moved
    # (unless it held such a use and had no consumer: then the walk is redone)
    cached = state.body_facts.get("opaque_uses")
    if cached is not None and not _opaque_uses(store.value):
        state.body_facts["opaque_uses"] = (state.body, cached[1])


def _load_pieces(idx, block: Block, prim: str, what: str, name: str):
    """Read each load index as ``(S // d) % m`` of a sum ``S`` of the block's iterators with
    constant coefficients: ``{S: [(position, d, m or None)]}``, ``S`` a tuple of
    ``(iterator, coefficient)`` sorted by coefficient."""
    ivars = [iv.var for iv in block.iter_vars]
    unit = {iv.var for iv in block.iter_vars if const_value(iv.dom.extent) == 1
            and const_value(iv.dom.min) == 0}
    groups: Dict[tuple, list] = {}
    for pos, e in enumerate(idx):
        d, m = 1, None
        if isinstance(e, FloorMod) and const_value(e.b) is not None and const_value(e.b) > 0:
            e, m = e.a, const_value(e.b)
        if isinstance(e, FloorDiv) and const_value(e.b) is not None and const_value(e.b) > 0:
            e, d = e.a, const_value(e.b)
        coeffs = analyzer().detect_linear_equation(e, ivars)
        cs = [const_value(c) for c in coeffs]
        if not coeffs or any(c is None or c < 0 for c in cs) or cs[-1] != 0:
            raise fail(prim, what, f'the index {e} of "{name}" is not an affine map of the '
                       "block's iterators that can be inverted")
        key = tuple(sorted(((v, c) for v, c in zip(ivars, cs) if c and v not in unit),
                           key=lambda t: t[1]))
        groups.setdefault(key, []).append((pos, d, m))
    return groups


def _inverse_load(idx, block: Block, pindices, pdom: Dict[Var, Range], prim: str, what: str,
                  name: str) -> Tuple[Dict[Var, PrimExpr], List[PrimExpr]]:
    """Invert the consumer's load ``name[idx]`` at the producer's store ``name[pindices]``: each
    consumer iterator as an expression of the producer's iterators, and the conditions under
    which that point lies in the consumer's domain.  Only loads that are a bijection of the
    consumer's iteration space onto (a prefix of) a mixed-radix split of the buffer's indices
    are accepted, so the inverse is exact wherever the conditions hold."""
    ana = analyzer(pdom)
    dom = {iv.var: iv.dom for iv in block.iter_vars}
    vmap: Dict[Var, PrimExpr] = {}
    conds: List[PrimExpr] = []
    bad = f'the indices of "{name}" are not a bijective affine map of the block\'s iterators'
    for iv in block.iter_vars:
        if const_value(iv.dom.extent) == 1:
            vmap[iv.var] = iv.dom.min
        elif const_value(iv.dom.min) != 0 or const_value(iv.dom.extent) is None:
            raise fail(prim, what, f'iterator "{iv.var.name}" does not range over a constant '
                       "extent from 0")
    for key, pieces in _load_pieces(idx, block, prim, what, name).items():
        if not key:
            raise fail(prim, what, bad)
        total, coef = 1, []
        for v, c in key:
            if v in vmap or c != total:
                raise fail(prim, what, bad)
            coef.append(c)
            total *= const_value(dom[v].extent)
        pieces = sorted(pieces, key=lambda p: p[1])
        stride = 1
        for n, (pos, d, m) in enumerate(pieces):
            last = n == len(pieces) - 1
            if d != stride or (not last and m is None) or (last and m is not None
                                                            and m * d < total):
                raise fail(prim, what, bad)
            b = pindices[pos]
            if not ana.can_prove(_op.convert(b) >= 0) or (
                    not last and not ana.can_prove(_op.convert(b) < m)):
                raise fail(prim, what, f'the producer stores "{name}" at indices the block\'s '
                           "load cannot reach")
            stride = d * (m or 1)
        s = None
        for pos, d, _m in pieces:
            t = pindices[pos] if d == 1 else pindices[pos] * d
            s = t if s is None else s + t
        for n, (v, c) in enumerate(key):
            e = s if c == 1 else _op.floordiv(s, c)
            if n < len(key) - 1:
                e = _op.floormod(e, dom[v].extent)
            vmap[v] = e
        # the condition spelled most significant piece first, as classic's simplifier orders it
        s_desc = None
        for pos, d, _m in reversed(pieces):
            t = pindices[pos] if d == 1 else pindices[pos] * d
            s_desc = t if s_desc is None else s_desc + t
        conds.append(s_desc < total)
    missing = [iv.var.name for iv in block.iter_vars if iv.var not in vmap]
    if missing:
        raise fail(prim, what, f'the load of "{name}" does not use iterator "{missing[0]}"; '
                   "the block is not a bijection of what it reads")
    for iv in block.iter_vars:
        if const_value(iv.dom.extent) == 1:
            continue
        rng = ana.int_set(vmap[iv.var], pdom)
        if not (ana.can_prove(rng.min_value <= 0)
                and ana.can_prove(rng.max_value >= iv.dom.extent - 1)):
            raise fail(prim, what, f'the producer does not cover the range of iterator '
                       f'"{iv.var.name}"')
    return vmap, conds


def _inlined_predicate(producer: BlockRealize, conds: List[PrimExpr], prim: str,
                       what: str) -> PrimExpr:
    """The producer's predicate once the consumer runs in it: the consumer's domain conditions
    (in the producer's loop variables), which must imply the producer's own predicate."""
    pblock = producer.block
    pdom = {iv.var: iv.dom for iv in pblock.iter_vars}
    ana = analyzer(pdom)
    kept = [c for c in conds if not ana.can_prove(c)]
    binds = dict(zip([iv.var for iv in pblock.iter_vars], producer.iter_values))
    new = _op.const(True, "bool")
    for c in kept:
        new = conj(new, substitute(c, binds))
    new = simplify(new)
    old = producer.predicate
    if not is_one(old):
        with ana.constraint_scope(new):
            ok = ana.can_prove(old)
        if not ok:
            raise fail(prim, what, f'the producer "{pblock.name_hint}" has a predicate {old} '
                       f"that cannot be implied by the synthesized predicate {new} of the new "
                       "inlined block")
    return new


def _drop_aligns(block: Block, buf: Buffer):
    """``block``'s annotations without its ``storage_align`` entries for ``buf`` (which is
    inlined away: they must not move to the buffer that takes its place)."""
    anns = dict(block.annotations or {})
    idx = {i for i, w in enumerate(block.writes) if w.buffer is buf}
    if ALIGN_ATTR in anns:
        kept = [e for e in anns[ALIGN_ATTR] if e[0] not in idx]
        if kept:
            anns[ALIGN_ATTR] = kept
        else:
            del anns[ALIGN_ATTR]
    return anns or None


def reverse_compute_inline(state: ScheduleState, block_rv: BlockRV) -> None:
    """Inline an elementwise consumer into its only producer and remove it.

    Before::

        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] * 2.0
        for i in range(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = B[vi] + 1.0

    After ``reverse_compute_inline(C)``::

        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                C[vi] = A[vi] * 2.0 + 1.0
    """
    prim = "reverse_compute_inline"
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    store = _store_of(block, prim, what)
    sibs, _ = _scope_siblings(state, path)
    others = [r for r in sibs if r is not realize]
    produced = []
    for b in buffers_read(block):
        writers = [r for r in others if any(w is b for w in buffers_written(r.block))]
        if writers:
            produced.append((b, writers))
    if len(produced) != 1:
        raise fail(prim, what, f"the block must read exactly one buffer produced in its "
                   f"scope, it reads {len(produced)}")
    buf, writers = produced[0]
    if len(writers) != 1:
        raise fail(prim, what, f'"{buf.name}" has {len(writers)} writers; its producer must '
                   "be the only one")
    producer = writers[0]
    if state.is_output_buffer(buf):
        raise fail(prim, what, f'"{buf.name}" is a function output and cannot be inlined away')
    for r in others:
        if r is not producer and any(x is buf for x in buffers_read(r.block)):
            raise fail(prim, what, f'block "{r.block.name_hint}" also reads "{buf.name}"; the '
                       "block must be its only consumer")
    if not (producer.predicate is realize.predicate
            or can_prove(realize.predicate)):
        raise fail(prim, what, "the block has a predicate")
    loads: List[BufferLoad] = []

    def f(e):
        if isinstance(e, BufferLoad) and e.buffer is buf:
            loads.append(e)

    post_order_visit(store, f)
    idx = loads[0].indices
    if any(not structural_equal(ld.indices, idx, map_free_vars=False) for ld in loads[1:]):
        raise fail(prim, what, f'the block reads "{buf.name}" at different indices')
    _check_no_opaque_use(state, buf, prim, what)
    _check_consumer_movable(state, producer, realize, buf, prim, what)
    pblock = producer.block
    pstore = _store_of(pblock, prim, f'producer block "{pblock.name_hint}"')
    pdom = {iv.var: iv.dom for iv in pblock.iter_vars}
    vmap, conds = _inverse_load(idx, block, pstore.indices, pdom, prim, what, buf.name)
    predicate = _inlined_predicate(producer, conds, prim, what)

    class _Repl(Mutator):
        def visit_BufferLoad(self, e):
            if e.buffer is buf:
                return pstore.value
            return self.generic(e)

    new_store = substitute(_Repl().visit(store), vmap)
    nb = dataclasses.replace(pblock, body=new_store,
                             annotations=_drop_aligns(pblock, buf))
    reads, writes = block_regions(nb)
    reads = _with_opaque_reads(nb, reads, (*pblock.reads, *block.reads))
    nb = dataclasses.replace(nb, reads=reads, writes=writes)
    k = exclusive_subtree(path)
    replace(state, path[:k + 1], None)

    ppath = find_path(state.body, lambda s: s is producer)
    replace(state, ppath, dataclasses.replace(producer, block=nb, predicate=predicate))
    remove_alloc(state, buf)
