"""``compute_at`` and ``reverse_compute_at``: move a block under a loop of another block,
computing there only the region that loop needs (or provides)."""
from __future__ import annotations

import itertools
from typing import Dict, List, Sequence, Tuple

from ...arith import detect_linear_equation, eval_set
from ...ir.dtype import bits as dtype_bits
from .. import op as _op
from ..buffer import Buffer
from ..expr import FloorDiv, IntImm, IterVarType, PrimExpr, Range, Var
from ..functor import Mutator, collect_vars, post_order_visit, substitute
from ..stmt import BlockRealize, For, ForKind, SeqStmt, Stmt
from .error import fail
from .state import (
    BlockRV,
    LoopRV,
    ScheduleState,
    access_region,
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
    is_reduction_block,
    is_true,
    loop_domains,
    realize_accesses,
    replace,
    scope_index,
    simplify,
    union_regions,
    with_loop_body,
)


def compute_at(state: ScheduleState, block_rv: BlockRV, loop_rv: LoopRV,
               preserve_unit_loops: bool = False,
               index: int = -1) -> List[LoopRV]:
    """Move producer ``block`` under ``loop`` (a loop of its consumers), computing per
    iteration only the region the consumers below ``loop`` read. Returns the loops created
    for the block, outermost first.

    Before::

        for i, j in T.grid(8, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * 2.0
        for i_0, i_1, j in T.grid(2, 4, 8):
            with T.block("C"):
                vi = T.axis.spatial(8, i_0 * 4 + i_1)
                vj = T.axis.spatial(8, j)
                C[vi, vj] = B[vi, vj] + 1.0

    After ``compute_at(B, i_0)``::

        for i_0 in range(2):
            for ax0, ax1 in T.grid(4, 8):
                with T.block("B"):
                    vi = T.axis.spatial(8, i_0 * 4 + ax0)
                    vj = T.axis.spatial(8, ax1)
                    B[vi, vj] = A[vi, vj] * 2.0
            for i_1, j in T.grid(4, 8):
                with T.block("C"):
                    ...

    When the region runs past the block's own domain (a non-divisible tile) the block gets a
    predicate keeping its iterators in their domains.
    """
    return _move(state, block_rv, loop_rv, preserve_unit_loops, reverse=False, index=index)


def reverse_compute_at(state: ScheduleState, block_rv: BlockRV, loop_rv: LoopRV,
                       preserve_unit_loops: bool = False,
                       index: int = -1) -> List[LoopRV]:
    """Move consumer ``block`` under ``loop`` (a loop of its producers), computing per
    iteration the part of its domain whose inputs that iteration produced. Returns the loops
    created for the block, outermost first.

    Before::

        for i_0, i_1, j in T.grid(2, 4, 8):
            with T.block("B"):
                vi = T.axis.spatial(8, i_0 * 4 + i_1)
                vj = T.axis.spatial(8, j)
                B[vi, vj] = A[vi, vj] * 2.0
        for i, j in T.grid(8, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + 1.0

    After ``reverse_compute_at(C, i_0)``::

        for i_0 in range(2):
            for i_1, j in T.grid(4, 8):
                with T.block("B"):
                    ...
            for ax0, ax1 in T.grid(4, 8):
                with T.block("C"):
                    vi = T.axis.spatial(8, i_0 * 4 + ax0)
                    vj = T.axis.spatial(8, ax1)
                    C[vi, vj] = B[vi, vj] + 1.0
    """
    return _move(state, block_rv, loop_rv, preserve_unit_loops, reverse=True, index=index)


def _contains(stmt: Stmt, names: set) -> bool:
    return find_path(stmt, lambda s: isinstance(s, BlockRealize)
                     and s.block.name_hint in names) is not None


def _iter_ranges(block, buffers: Sequence[Buffer], regions: Dict[Buffer, List[Range]],
                 writes: bool, prim: str, what: str, dom: Dict[Var, Range]):
    """Solve ``block``'s accesses of ``buffers`` (``writes`` or reads) for the ranges of its
    iterators that touch ``regions``; unconstrained iterators keep their domains.

    For reads (``reverse_compute_at``) every read of a produced buffer must then lie in what
    the same iteration of the loop produces: a buffer the loop alone uses may be allocated
    inside it, so nothing produced by an earlier iteration survives to be read."""
    ivs = {iv.var: iv for iv in block.iter_vars}
    # an iterator of extent 1 (a unit reduction axis) is a constant offset in an index
    unit = {iv.var: iv.dom.min for iv in block.iter_vars if const_value(iv.dom.extent) == 1}
    found: Dict[Var, List[Tuple[PrimExpr, PrimExpr]]] = {}
    offsets: Dict[Var, set] = {}
    unsolved = []  # (buffer, dimension, index, loops inside the block around the read)
    for a in collect_accesses(block):
        if a.is_write != writes or not any(a.buffer is b for b in buffers):
            continue
        region = regions[next(b for b in buffers if b is a.buffer)]
        for d, idx in enumerate(a.indices):
            vs = [v for v in collect_vars(idx) if v in ivs]
            if len(vs) > 1 and not writes:
                idx = simplify(substitute(idx, {v: unit[v] for v in vs if v in unit}))
                vs = [v for v in collect_vars(idx) if v in ivs]
            c = simplify(_op.sub(idx, vs[0])) if len(vs) == 1 else None
            r = region[d]
            if isinstance(c, IntImm):
                v = vs[0]
                found.setdefault(v, []).append((simplify(_op.sub(r.min, c.value), dom),
                                                r.extent))
                offsets.setdefault(v, set()).add(c.value)
                continue
            # the other iterators of the index range over their whole domains
            sols = [(v, _solve_index(idx, v, {**a.inner, **{w: ivs[w].dom for w in vs
                                                             if w is not v}}, r, writes, dom))
                    for v in vs]
            sols = [(v, sol) for v, sol in sols if sol is not None]
            if len(sols) != 1:
                unsolved.append((a.buffer, d, idx, a.inner))
                continue
            v, sol = sols[0]
            found.setdefault(v, []).append(sol[:2])
            offsets.setdefault(v, set()).add(sol[2])
    out = []
    for iv in block.iter_vars:
        cand = found.get(iv.var)
        if not cand:
            out.append((iv.dom.min, iv.dom.extent, False))
            continue
        if not writes and (len(offsets[iv.var]) > 1 or not all(
                can_prove(_op.eq(m, cand[0][0]), dom) and can_prove(_op.eq(e, cand[0][1]), dom)
                for m, e in cand[1:])):
            raise fail(prim, what, f'it reads the produced buffer at several offsets along '
                       f'iterator "{iv.var.name}"; moving it under the loop could read values '
                       "not yet produced")
        reg = union_regions([[Range(m, e)] for m, e in cand], dom)[0]
        out.append((reg.min, reg.extent, True))
    if not writes:
        iters = {iv.var: Range(mn, ext) for iv, (mn, ext, _) in zip(block.iter_vars, out)}
        for buf, d, idx, inner in unsolved:
            r = regions[next(b for b in buffers if b is buf)][d]
            s = eval_set(idx, {**iters, **inner})
            inside = (s.has_lower_bound() and s.has_upper_bound()
                      and can_prove(_op.ge(s.min_value, r.min), dom)
                      and can_prove(_op.lt(s.max_value, _op.add(r.min, r.extent)), dom))
            if not inside:
                raise fail(prim, what, f'its read of "{buf.name}" at index {idx} (dimension '
                           f"{d}) does not solve for one iterator and is not inside what one "
                           "iteration of the loop produces; under the loop it would read "
                           "values not produced in that iteration")
    return out


def _solve_index(idx: PrimExpr, v: Var, inner: Dict[Var, Range], r: Range, writes: bool,
                 dom: Dict[Var, Range]):
    """The range ``(min, extent, key)`` of iterator ``v`` for which index ``idx`` meets region
    ``r`` of its dimension: every ``v`` whose accesses touch it (``writes``: the instances that
    produce what is needed) or every ``v`` whose accesses all lie inside it (reads: the
    instances one iteration can feed). ``idx`` is ``a * v + rest`` or ``(a * v + rest) // f``
    with constants ``a != 0``, ``f > 0``, where ``rest`` ranges over what the variables of
    ``inner`` (loops inside the block, the block's other iterators) may take; None when it
    is not, or when no ``v`` qualifies."""
    lo_r, hi_r = r.min, _op.sub(_op.add(r.min, r.extent), 1)
    f = 1
    if isinstance(idx, FloorDiv) and (const_value(idx.b) or 0) > 0:
        # L <= e // f <= H  <=>  L * f <= e <= H * f + f - 1
        f = const_value(idx.b)
        idx, lo_r, hi_r = idx.a, _op.mul(lo_r, f), _op.add(_op.mul(hi_r, f), f - 1)
    coef = detect_linear_equation(idx, [v])
    a = const_value(coef[0]) if coef else None
    if not a or v in collect_vars(coef[1]):
        return None
    rest = coef[1]
    if collect_vars(rest) & set(inner):
        s = eval_set(rest, inner)
        if not (s.has_lower_bound() and s.has_upper_bound()):
            return None
        rmin, rmax = s.min_value, s.max_value
    else:
        rmin = rmax = rest
    # the interval [p, q] of b * v (b = |a|)
    if a > 0:
        p, q = (_op.sub(lo_r, rmax), _op.sub(hi_r, rmin)) if writes else (
            _op.sub(lo_r, rmin), _op.sub(hi_r, rmax))
    else:
        p, q = (_op.sub(rmin, hi_r), _op.sub(rmax, lo_r)) if writes else (
            _op.sub(rmax, hi_r), _op.sub(rmin, lo_r))
    b = abs(a)
    lo = _op.floordiv(_op.add(p, b - 1), b) if b != 1 else p
    hi = _op.floordiv(q, b) if b != 1 else q
    lo = simplify(lo, dom)
    ext = simplify(_op.add(_op.sub(hi, lo), 1), dom)
    if not can_prove(_op.ge(ext, 1), dom):
        return None
    return lo, ext, (a, f, str(simplify(rest, dom)))


def _move(state: ScheduleState, block_rv: BlockRV, loop_rv: LoopRV, preserve_unit_loops: bool,
          reverse: bool, index: int = -1) -> List[LoopRV]:
    prim = "reverse_compute_at" if reverse else "compute_at"
    bpath = state.block_path(block_rv, prim)
    lpath = state.loop_path(loop_rv, prim)
    realize: BlockRealize = bpath[-1]
    block = realize.block
    loop: For = lpath[-1]
    what = f'block "{block.name_hint}" at loop "{loop.loop_var.name}"'
    if any(s is loop for s in bpath):
        raise fail(prim, what, f'the loop is an ancestor of block "{block.name_hint}" already')
    si_b, si_l = scope_index(bpath), scope_index(lpath)
    scope_b = bpath[si_b] if si_b >= 0 else None
    scope_l = lpath[si_l] if si_l >= 0 else None
    if scope_b is not scope_l:
        raise fail(prim, what, "the block and the loop are not in the same block scope")
    siblings = child_blocks(scope_b) if scope_b is not None else child_blocks(state.body)
    others = [r for r in siblings if r is not realize]
    written = buffers_written(block)
    read = buffers_read(block)

    if not reverse:
        for b in written:
            if state.is_output_buffer(b):
                raise fail(prim, what, f'the block writes the function output "{b.name}" '
                           "(an output block cannot be moved under a consumer loop)")
            if any(any(w is b for w in buffers_written(r.block)) for r in others):
                raise fail(prim, what, f'another block also writes "{b.name}", so the block '
                           "is not a complete block (the only writer of what it produces)")
        related = [r for r in others if any(any(x is b for x in buffers_read(r.block))
                                            for b in written)]
        if not related:
            raise fail(prim, what, "the block has no consumer")
        bufs = written
    else:
        bufs = []
        related = []
        outside = []
        for b in read:
            writers = [r for r in others if any(w is b for w in buffers_written(r.block))]
            if not writers:
                continue
            inside = [r for r in writers if _contains(loop, {r.block.name_hint})]
            if not inside:
                outside.extend(writers)
            if inside and len(inside) != len(writers):
                raise fail(prim, what, f'"{b.name}" is also written by blocks outside the '
                           "loop")
            if inside:
                bufs.append(b)
                related.extend(r for r in inside if all(r is not x for x in related))
        if not related:
            raise fail(prim, what, "no producer of the block is under the loop")
        if outside:
            raise fail(prim, what, f'producer block "{outside[0].block.name_hint}" is not under '
                       "the loop (reverse_compute_at requires all the producer blocks under it)")
        _check_complete_producers(related, lpath, prim, what)
        for b in written:
            # moving one of two writers (decompose_padding's fill and copy) would reorder them
            if any(any(w is b for w in buffers_written(r.block)) for r in others):
                raise fail(prim, what, f'another block also writes "{b.name}", so the block '
                           "is not a complete block (the only writer of what it produces)")
            readers = [r for r in others if any(x is b for x in buffers_read(r.block))]
            for r in readers:
                if _contains(loop, {r.block.name_hint}):
                    raise fail(prim, what, f'block "{r.block.name_hint}" under the loop '
                               f'reads "{b.name}", which the block writes')
    names = {r.block.name_hint for r in related}
    # blocks outside the loop must keep their order relative to it
    scope_body = scope_b.block.body if scope_b is not None else state.body
    items0 = list(scope_body.seq) if isinstance(scope_body, SeqStmt) else [scope_body]

    def top_pos(node):
        return next(i for i, it in enumerate(items0)
                    if find_path(it, lambda x: x is node) is not None)

    lpos = top_pos(loop)
    for r in others:
        if _contains(loop, {r.block.name_hint}):
            continue
        wr = buffers_written(r.block)
        rd = buffers_read(r.block)
        if any(any(w is b for w in wr) for b in read) and not top_pos(r) < lpos:
            raise fail(prim, what, f'block "{r.block.name_hint}", which produces an input of '
                       "the block, does not come before the loop")
        if any(any(x is b for x in rd) for b in written) and not top_pos(r) > lpos:
            raise fail(prim, what, f'block "{r.block.name_hint}", which reads the output of '
                       "the block, does not come after the loop")
    if not reverse:
        for r in related:
            if not _contains(loop, {r.block.name_hint}):
                raise fail(prim, what, f'consumer block "{r.block.name_hint}" is not under '
                           "the loop (compute_at requires all the consumer blocks under it)")

    # region of the buffers needed (or provided) under the loop, per iteration of the loop
    outer = loop_domains(lpath)
    regions: Dict[Buffer, List[Range]] = {}
    threads = _thread_relax(lpath, bufs)
    for r in related:
        rpath = find_path(loop, lambda s, r=r: s is r)
        relax = {**threads, **loop_domains(rpath[1:-1])}
        acc = realize_accesses(r)
        for b in bufs:
            reg = access_region(acc, b, relax, outer, writes=reverse)
            if reg is None:
                continue
            regions[b] = reg if b not in regions else union_regions([regions[b], reg], outer)
    bufs = [b for b in bufs if b in regions]
    if not bufs:
        raise fail(prim, what, "the blocks under the loop do not access the buffers")
    ranges = _iter_ranges(block, bufs, regions, writes=not reverse, prim=prim, what=what,
                          dom=outer)

    # the new loop nest
    ana = analyzer(outer)
    dom = dict(outer)
    values, new_loops, pred = [], [], IntImm("bool", 1)
    spans = []  # (iterator, min, true extent, extent of the new loop) of constrained iterators
    for _k, (iv, (mn, ext, constrained)) in enumerate(zip(block.iter_vars, ranges)):
        ext = simplify(ext, outer)
        if constrained and can_prove(_op.le(mn, iv.dom.min), outer) and can_prove(
                _op.ge(_op.add(mn, ext), _op.add(iv.dom.min, iv.dom.extent)), outer):
            mn, ext = iv.dom.min, iv.dom.extent  # the range holds the whole domain: classic
        true_ext = ext
        if not isinstance(ext, IntImm) and collect_vars(ext) & set(outer):
            ext = _loop_extent(ext, simplify(iv.dom.extent, outer), outer, ana)
        dt = iv.var.dtype
        if const_value(ext) == 1 and not preserve_unit_loops:
            val = simplify(mn, dom)
        else:
            v = Var(f"ax{len(new_loops)}", dt)  # TVM numbers the loops it creates
            dom[v] = Range(IntImm(dt, 0), ext)
            new_loops.append(For(v, IntImm(dt, 0), ext, ForKind.SERIAL, None))
            val = _op.add(mn, v)  # classic's spelling: the region's start plus the loop
        values.append(val)
        if constrained:
            spans.append((iv, simplify(mn, outer), true_ext, ext))
            lo_c = _op.ge(val, iv.dom.min)
            hi_c = _op.lt(val, _op.add(iv.dom.min, iv.dom.extent))
            for c in (lo_c, hi_c):
                if not can_prove(c, dom):
                    pred = conj(pred, c)
    if reverse:
        _check_covered(block, spans, lpath, prim, what)
    # carry the block's own predicate (e.g. a guard from a split reduction loop) over to the
    # new loops, through iterators bound to a single loop variable
    if not is_true(realize.predicate):
        inv = {old: val for old, val in zip(realize.iter_values, values)
               if isinstance(old, Var)}
        kept_loops = {x.loop_var for x in lpath if isinstance(x, For)}
        gone = (collect_vars(realize.predicate) & set(loop_domains(bpath))) - kept_loops
        if not gone <= set(inv):
            raise fail(prim, what, "the block's predicate uses loops that do not map to its "
                       "iterators, so it cannot be carried to the new location")
        pred = conj(pred, substitute(realize.predicate, inv))
    if not is_true(pred):
        pred = simplify(pred, dom)
        if is_true(pred):
            pred = IntImm("bool", 1)
    nest: Stmt = BlockRealize(tuple(values), pred, block)
    for lp in reversed(new_loops):
        nest = For(lp.loop_var, lp.min, lp.extent, lp.kind, nest)

    # remove the block from where it was, then insert the nest into the loop body
    k = exclusive_subtree(bpath)
    replace(state, bpath[:k + 1], None)
    lpath = state.loop_path(loop_rv, prim)
    loop = lpath[-1]
    items = list(loop.body.seq) if isinstance(loop.body, SeqStmt) else [loop.body]
    if not reverse:
        pos = next(i for i, s in enumerate(items) if _contains(s, names))
        mine_read = read
        for s in items[pos:]:
            # a block directly in the loop body is itself a sibling (child_blocks of a
            # BlockRealize are the blocks inside it)
            for r in [s] if isinstance(s, BlockRealize) else child_blocks(s):
                if any(any(w is b for w in buffers_written(r.block)) for b in mine_read):
                    raise fail(prim, what, f'block "{r.block.name_hint}", which produces '
                               "an input of the block, comes after its first consumer "
                               "under the loop")
    else:
        pos = max(i for i, s in enumerate(items) if _contains(s, names)) + 1
    if index != -1:
        pos = _insertion_point(items, pos, index, block, reverse, prim, what)
    new_body = SeqStmt.flatten(*items[:pos], nest, *items[pos:])
    replace(state, lpath, with_loop_body(loop, new_body))
    return [LoopRV(lp.loop_var, loop_rv.func_name) for lp in new_loops]


def _insertion_point(items: List[Stmt], pos: int, index: int, block, reverse: bool, prim: str,
                     what: str) -> int:
    """Classic's ``index``: -2 the first valid position among the loop's children, k >= 0
    position k, which must lie after every child writing what the block reads and before
    every child reading what it writes (``pos``, -1's position, is one end of that range)."""
    mine_read, mine_written = buffers_read(block), buffers_written(block)

    def touches(s, mine, writes: bool) -> bool:
        for r in [s] if isinstance(s, BlockRealize) else child_blocks(s):
            theirs = buffers_written(r.block) if writes else buffers_read(r.block)
            if any(b is m for b in theirs for m in mine):
                return True
        return False

    if reverse:
        lo = pos
        hi = next((i for i, s in enumerate(items) if i >= pos
                   and touches(s, mine_written, False)), len(items))
    else:
        lo = max((i + 1 for i, s in enumerate(items[:pos]) if touches(s, mine_read, True)),
                 default=0)
        hi = pos
    if index == -2:
        return lo
    if not isinstance(index, int) or index < 0:
        raise fail(prim, what, f"index={index!r}: expected -1, -2 or a position >= 0")
    if not lo <= index <= hi:
        raise fail(prim, what, f"index={index} is not a valid insertion point: the block must "
                   f"go after the children of the loop producing its inputs and before those "
                   f"consuming its outputs (positions {lo} to {hi})")
    return index


_STORAGE_RANK = {"global": 0, "shared": 1, "warp": 2, "local": 3}


def _thread_relax(lpath, bufs) -> Dict[Var, Range]:
    """GPU thread loops around the target that the region must cover (classic InferBound's
    rule): every thread of a block shares a "shared" buffer, every block a global one."""
    ranks = [_STORAGE_RANK.get(b.scope(), 3) for b in bufs]
    if not ranks:
        return {}
    rank = min(ranks)
    out: Dict[Var, Range] = {}
    for lp in lpath:
        tb = getattr(lp, "thread_binding", None)
        if not isinstance(lp, For) or tb is None:
            continue
        tag = tb.thread_tag
        trank = 0 if tag.startswith("blockIdx") else 1
        if rank <= trank:
            out[lp.loop_var] = Range(lp.min, lp.extent)
    return out


def _loop_extent(ext: PrimExpr, dom_ext: PrimExpr, outer: Dict[Var, Range], ana) -> PrimExpr:
    """A loop extent covering ``ext`` (which varies with the loops in ``outer``) at every
    iteration: a constant when one is known, else a bound symbolic in the function's
    parameters only, never above the iterator's domain extent ``dom_ext``. The loop's
    iterations past ``ext`` are cut by the block predicate. A bound that only the dtype
    gives (``2**31 - 1`` for an int32 parameter) is no bound."""
    dmax = const_value(dom_ext)
    bits = dtype_bits(ext.dtype)
    hi = ana.const_int_bound(ext).max_value
    # a constant bound is real when it does not come from the parameters' dtype range: it
    # stays the same with every parameter confined to a small range
    params = set(collect_vars(ext))
    for r in outer.values():
        params |= collect_vars(r.min) | collect_vars(r.extent)
    params -= set(outer)
    small = analyzer({**{v: Range(IntImm(v.dtype, 0), IntImm(v.dtype, 1 << 12))
                         for v in params}, **outer})
    if hi is not None and hi < (1 << (bits - 2)) and (
            not params or small.const_int_bound(ext).max_value == hi):
        return IntImm(ext.dtype, max(min(int(hi), dmax) if dmax is not None else int(hi), 1))
    if dmax is not None:
        return IntImm(ext.dtype, max(dmax, 1))
    up = eval_set(ext, outer).max_value
    if isinstance(up, PrimExpr) and not (collect_vars(up) & set(outer)) and can_prove(
            _op.le(up, dom_ext), outer):
        return simplify(up, outer)
    return dom_ext


def _check_complete_producers(producers, lpath, prim: str, what: str) -> None:
    """A consumer moved under a loop reads, per iteration, what its producers wrote in that
    iteration; that must be final. A reduction producer whose reduction iterators the loop (or
    a loop around it) drives holds partial values until the loop ends."""
    loop_vars = {x.loop_var for x in lpath if isinstance(x, For)}
    for r in producers:
        for iv, val in zip(r.block.iter_vars, r.iter_values):
            if iv.iter_type != IterVarType.CommReduce:
                continue
            hit = collect_vars(val) & loop_vars
            if hit:
                raise fail(prim, what, f'loop "{next(iter(hit)).name}" drives reduction '
                           f'iterator "{iv.var.name}" of producer block '
                           f'"{r.block.name_hint}", whose values are partial until that loop '
                           "ends")


_ENUMERATE_LIMIT = 1 << 14


def _check_covered(block, spans, lpath, prim: str, what: str) -> None:
    """The iterations a consumer gets under the loop (one range per constrained iterator,
    solved from what each iteration produces) must together cover its whole domain: an
    iteration that reads nothing produced under the loop (a padding element) would otherwise
    never run. A reduction consumer must moreover get each iteration exactly once."""
    if not spans:
        return
    loops = [x for x in lpath if isinstance(x, For)]
    reduction = is_reduction_block(block)
    if all(const_value(lp.extent) is not None and const_value(lp.min) is not None
           for lp in loops) and all(const_value(iv.dom.extent) is not None
                                     and const_value(iv.dom.min) is not None
                                     for iv, *_ in spans):
        n_iter = 1
        for lp in loops:
            n_iter *= max(const_value(lp.extent), 0)
        n_dom = 1
        for iv, *_ in spans:
            n_dom *= max(const_value(iv.dom.extent), 0)
        if n_iter <= _ENUMERATE_LIMIT and n_dom <= 64 * _ENUMERATE_LIMIT:
            ok = _covered_by_enumeration(loops, spans, reduction)
            if ok is not None:
                if not ok:
                    raise fail(prim, what, _cover_reason(reduction))
                return
    if not _covered_linear(loops, spans, reduction):
        raise fail(prim, what, _cover_reason(reduction) + " (or it cannot be proved)")


def _cover_reason(reduction: bool) -> str:
    if reduction:
        return ("the loop's iterations would not run each iteration of the reduction block "
                "exactly once")
    return ("the loop's iterations do not cover the block's whole domain exactly once (an "
            "element that reads nothing produced under the loop, e.g. padding, would never "
            "be written; one computed twice is first computed from elements not produced "
            "yet)")


def _covered_by_enumeration(loops, spans, reduction: bool):
    """Exact check for constant loop nests: mark each iteration's box; None if an extent
    cannot be evaluated."""
    # numpy and the interpreter load on first use, so that ``import tvmlite`` stays fast
    import numpy as np

    from ..interpreter import Interpreter

    interp = Interpreter()
    fns = [(interp.expr(mn), interp.expr(te), interp.expr(ne)) for _, mn, te, ne in spans]
    lo = [const_value(iv.dom.min) for iv, *_ in spans]
    shape = tuple(const_value(iv.dom.extent) for iv, *_ in spans)
    true_hits = np.zeros(shape, np.int64)
    run_hits = np.zeros(shape, np.int64)
    grids = [range(const_value(lp.min), const_value(lp.min) + const_value(lp.extent))
             for lp in loops]
    for point in itertools.product(*grids):
        for lp, v in zip(loops, point):
            interp.env[lp.loop_var] = v
        t_box, r_box = [], []
        for (f_mn, f_te, f_ne), l0, n in zip(fns, lo, shape):
            try:
                mn, te, ne = int(f_mn()), int(f_te()), int(f_ne())
            except (RuntimeError, TypeError, ValueError):
                return None
            t_box.append(slice(min(max(mn - l0, 0), n), min(max(mn + te - l0, 0), n)))
            r_box.append(slice(min(max(mn - l0, 0), n), min(max(mn + ne - l0, 0), n)))
        true_hits[tuple(t_box)] += 1
        run_hits[tuple(r_box)] += 1
    if reduction:
        return bool((run_hits == 1).all())
    # each element exactly once: an element computed by two iterations is computed first from
    # a region the producer has not finished (under a split+reorder the producer writes
    # {j, j+4} per iteration and the consumer would get the hull [j, j+4])
    return bool((true_hits == 1).all())


def _covered_linear(loops, spans, reduction: bool) -> bool:
    """Symbolic check: each iterator's range start is linear in loop variables its own (no two
    iterators share one), consecutive iterations' ranges touch without overlapping, every loop
    of extent above 1 moves some range, and the first and last reach the domain's ends: each
    element exactly once, as :func:`_covered_by_enumeration` demands (an overlap is the hull
    of a strided region, whose first computation reads elements not produced yet)."""
    dom = loop_domains(loops)
    used: set = set()
    for iv, mn, te, ne in spans:
        vs = [lp.loop_var for lp in loops if lp.loop_var in collect_vars(mn)]
        if set(vs) & used or (collect_vars(te) & {lp.loop_var for lp in loops}
                              and reduction):
            return False
        used.update(vs)
        coef = detect_linear_equation(mn, vs) if vs else [mn]
        if not coef or not all(const_value(c) is not None for c in coef[:-1]):
            return False
        first, last, span = {}, {}, []
        for lp, c in zip((lp for lp in loops if lp.loop_var in vs), coef[:-1]):
            a = const_value(c)
            if a <= 0:
                return False
            first[lp.loop_var] = lp.min
            last[lp.loop_var] = _op.sub(_op.add(lp.min, lp.extent), 1)
            span.append((a, lp))
        # contiguity: innermost stride first, each stride within what the smaller ones span
        reach = te
        for a, lp in sorted(span, key=lambda x: x[0]):
            if reduction:
                if not (const_value(ne) == a and can_prove(_op.eq(te, ne), dom)):
                    return False
            elif not (can_prove(_op.le(a, reach), dom) and can_prove(_op.le(reach, a), dom)):
                return False
            reach = _op.add(reach, _op.mul(a, _op.sub(lp.extent, 1)))
        end = _op.add(iv.dom.min, iv.dom.extent)
        if not can_prove(_op.le(substitute(mn, first), iv.dom.min), dom):
            return False
        if not _prove_nonneg(simplify(_op.sub(substitute(_op.add(mn, te), last), end), dom),
                             dom):
            return False
    # a loop no range depends on runs each of the block's iterations again
    return all(lp.loop_var in used or can_prove(_op.le(lp.extent, 1), dom) for lp in loops)


def _prove_nonneg(e: PrimExpr, dom, depth: int = 3) -> bool:
    """``e >= 0``, also through ``floordiv(x, c)`` with a constant ``c > 0``, which the
    simplifier keeps as an opaque atom: ``c * floordiv(x, c)`` lies in ``[x - c + 1, x]``
    (enough for the ``ceildiv`` extents that split gives loops)."""
    if can_prove(_op.ge(e, 0), dom):
        return True
    atoms = []
    post_order_visit(e, lambda x: atoms.append(x) if isinstance(x, FloorDiv)
                     and (const_value(x.b) or 0) > 0 else None)
    if not atoms or depth == 0:
        return False
    atom = atoms[0]
    c = const_value(atom.b)
    q = Var("q", atom.dtype)

    class _Sub(Mutator):
        def visit_FloorDiv(self, x):
            return q if x is atom else self.generic(x)

    coef = detect_linear_equation(_Sub().visit(e), [q])
    if not coef or const_value(coef[0]) is None or const_value(coef[0]) % c:
        return False
    k = const_value(coef[0]) // c
    low = _op.sub(atom.a, c - 1) if k > 0 else atom.a  # c * q >= x - c + 1; c * q <= x
    return _prove_nonneg(simplify(_op.add(_op.mul(k, low), coef[1]), dom), dom, depth - 1)
