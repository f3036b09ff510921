"""Classic ScheduleState's cached flags of a block: ``affine_binding``, ``region_cover`` and
``stage_pipeline`` (``tir.schedule.state.CachedFlags``).

- ``affine_binding``: the block's bindings are quasi-affine in the loops above it (sums of
  loop variables times constants, ``//`` and ``%`` by constants).
- ``region_cover``: every region the block reads of a buffer that a sibling block (a child of
  the same scope) writes is covered by what those producers write under the lowest loop the
  two share: the producers' regions are under-estimated (a dense range per dimension, clipped
  by their predicates) and the consumer's over-estimated (interval relaxation), so True is a
  proof. As classic: loops bound to threads are relaxed too for ``shared`` (threadIdx) and
  ``warp`` (threadIdx.x) buffers.
- ``stage_pipeline`` of a block: among its child blocks there is no write after a read of the
  same buffer and every consumer has ``region_cover``.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ...arith import Analyzer
from ...arith.int_set import relax_region
from ...arith.linear import linear_form
from .. import op as _op
from ..expr import (
    GE,
    GT,
    LE,
    LT,
    And,
    FloorDiv,
    FloorMod,
    IntImm,
    PrimExpr,
    Range,
    Var,
)
from ..functor import collect_vars, substitute
from ..stmt import Block, BlockRealize, For, ForKind, SeqStmt, Stmt
from .state import CachedFlags, is_quasi_affine


class _Node:
    """A Block or For of the function with its parent (the sref tree)."""

    __slots__ = ("stmt", "parent", "realize")

    def __init__(self, stmt: Stmt, parent: Optional["_Node"], realize=None):
        self.stmt = stmt
        self.parent = parent
        self.realize = realize


def _walk(body: Stmt) -> Tuple[Dict[int, _Node], Dict[int, List[_Node]]]:
    """The tree nodes by statement id, and each block's child blocks in order."""
    nodes: Dict[int, _Node] = {}
    children: Dict[int, List[_Node]] = {}

    def visit(s, parent: Optional[_Node], scope: Optional[_Node]) -> None:
        if isinstance(s, SeqStmt):
            for x in s.seq:
                visit(x, parent, scope)
        elif isinstance(s, For):
            n = nodes[id(s)] = _Node(s, parent)
            visit(s.body, n, scope)
        elif isinstance(s, BlockRealize):
            n = nodes[id(s.block)] = _Node(s.block, parent, s)
            children[id(s.block)] = []
            if scope is not None:
                children[id(scope.stmt)].append(n)
            visit(s.block.body, n, n)  # the init is not visited, as classic
        elif isinstance(s, Block):
            visit(BlockRealize((), IntImm("bool", 1), s), parent, scope)
        else:
            for name in ("body", "then_case", "else_case"):
                x = getattr(s, name, None)
                if isinstance(x, Stmt):
                    visit(x, parent, scope)

    visit(body, None, None)
    return nodes, children


_RANK = {"global": 0, "shared": 1, "warp": 2, "local": 3}


def _relaxed_loops(low: Optional[_Node], limit: Optional[_Node], scope: str
                   ) -> Dict[Var, Range]:
    """The loops from ``low`` up to (not including) ``limit`` (stopping at a block), and for
    ``shared``/``warp`` buffers the thread loops above that their threads share (classic
    ``LoopDomainOfSRefTreePath``)."""
    dom: Dict[Var, Range] = {}
    p = low
    while p is not limit and p is not None and isinstance(p.stmt, For):
        dom[p.stmt.loop_var] = Range(p.stmt.min, p.stmt.extent)
        p = p.parent
    rank = _RANK.get(scope.split(".")[0], 3 if scope.startswith("wmma") else 0)
    if rank == 0:
        return dom
    while p is not None:
        s = p.stmt
        if isinstance(s, For) and s.kind == ForKind.THREAD_BINDING and \
                s.thread_binding is not None:
            tag = s.thread_binding.thread_tag
            # threadIdx loops relax shared memory, threadIdx.x warp memory; nothing else
            if tag == "threadIdx.x" if rank == 2 else rank == 1 and tag.startswith(
                    "threadIdx"):
                dom[s.loop_var] = Range(s.min, s.extent)
        p = p.parent
    return dom


def _const(e) -> Optional[int]:
    return e.value if isinstance(e, IntImm) else None


def _pieces(e: PrimExpr, dom: Dict[Var, Range], used: Dict[Var, List[Tuple[str, int]]]):
    """``e`` as ``base + sum(coef * piece)`` where each piece (a loop variable, or its ``//``
    or ``%`` by a constant) takes every value of ``[0, count)``: ``(base, [(coef, count)])``,
    recording in ``used`` how each variable was cut; None when ``e`` is not of that form."""
    lf = linear_form(e)
    base: PrimExpr = IntImm(e.dtype, lf.const)
    terms = []
    for atom, coef in lf.terms:
        vs = collect_vars(atom) & set(dom)
        if not vs:
            base = _op.add(base, _op.mul(atom, IntImm(e.dtype, coef)) if coef != 1 else atom)
            continue
        if isinstance(atom, Var):
            v, kind, c = atom, "var", 1
        elif isinstance(atom, (FloorDiv, FloorMod)) and isinstance(atom.a, Var) and \
                _const(atom.b) is not None and atom.b.value > 0:
            v, kind, c = atom.a, "div" if isinstance(atom, FloorDiv) else "mod", atom.b.value
        else:
            return None
        lo, ext = _const(dom[v].min), _const(dom[v].extent)
        if lo is None or ext is None or ext <= 0:
            return None
        if kind == "var":
            first, count = lo, ext
        elif kind == "div":
            first, count = lo // c, (lo + ext - 1) // c - lo // c + 1
        else:
            if lo != 0:
                return None
            first, count = 0, min(ext, c)
        used.setdefault(v, []).append((kind, c))
        if coef < 0:  # coef * x over [first, first + count) is -coef * x' + coef * last
            first = first + count - 1
        base = _op.add(base, IntImm(e.dtype, coef * first))
        terms.append((abs(coef), count))
    return base, terms


def _independent(used: Dict[Var, List[Tuple[str, int]]], dom: Dict[Var, Range]) -> bool:
    """Whether the pieces cut from each variable take their values independently: a variable
    used once, or split exactly into ``v // c`` and ``v % c``."""
    for v, cuts in used.items():
        if len(cuts) == 1:
            continue
        kinds = sorted(k for k, _ in cuts)
        ext = _const(dom[v].extent)
        if kinds != ["div", "mod"] or cuts[0][1] != cuts[1][1] or ext % cuts[0][1]:
            return False
    return True


def _conjuncts(e: PrimExpr) -> List[PrimExpr]:
    return _conjuncts(e.a) + _conjuncts(e.b) if isinstance(e, And) else [e]


def _free_of(e: PrimExpr, dom: Dict[Var, Range]) -> bool:
    return not (collect_vars(e) & set(dom))


def _region_lower_bound(region, pred: PrimExpr, dom: Dict[Var, Range], ana: Analyzer
                        ) -> Optional[List[Tuple[PrimExpr, PrimExpr]]]:
    """Per dimension an interval ``[lo, hi]`` every point of which the region (relaxed over
    ``dom``, restricted by ``pred``) surely touches; None when that cannot be shown."""
    used: Dict[Var, List[Tuple[str, int]]] = {}
    mins, out = [], []
    for r in region:
        ext = _const(ana.simplify(r.extent))
        if ext is None or ext <= 0:
            return None
        m = ana.simplify(r.min)
        got = _pieces(m, dom, used)
        if got is None:
            return None
        base, terms = got
        span = ext - 1
        for coef, count in sorted(terms):
            if count > 1 and coef > span + 1:
                return None  # a gap between consecutive values
            span += coef * (count - 1)
        mins.append(m)
        out.append([ana.simplify(base), ana.simplify(_op.add(base, IntImm(base.dtype, span)))])
    if not _independent(used, dom):
        return None
    # a predicate may only clip dimensions: ``lo <= index`` or ``index < hi`` (up to a shift)
    if not (isinstance(pred, IntImm) and pred.value):
        # a conjunct over loops the region does not use holds somewhere if it holds with
        # those loops at their first iteration (then it drops no point of the region)
        corner = {v: r.min for v, r in dom.items() if v not in used}
        for c in _conjuncts(pred):
            cv = collect_vars(c) & set(dom)
            if cv and not cv & set(used):
                if not ana.can_prove(substitute(c, corner)):
                    return None
            elif not _clip(c, mins, out, dom, ana):
                return None
    return [(lo, hi) for lo, hi in out]


def _clip(c: PrimExpr, mins, out, dom, ana: Analyzer) -> bool:
    if _free_of(c, dom):
        return ana.can_prove(c)
    if isinstance(c, (GT, GE)):  # b > a is a < b
        a, b, strict = c.b, c.a, isinstance(c, GT)
    elif isinstance(c, (LT, LE)):
        a, b, strict = c.a, c.b, isinstance(c, LT)
    else:
        return False
    for d, m in enumerate(mins):
        # a (<|<=) b with a - m free of the loops: an upper bound on the index
        da = ana.simplify(_op.sub(a, m))
        if _free_of(da, dom) and _free_of(b, dom):
            hi = ana.simplify(_op.sub(_op.sub(b, da), IntImm(b.dtype, 1 if strict else 0)))
            out[d][1] = ana.simplify(_op.min(out[d][1], hi))
            return True
        db = ana.simplify(_op.sub(b, m))
        if _free_of(db, dom) and _free_of(a, dom):
            lo = ana.simplify(_op.add(_op.sub(a, db), IntImm(a.dtype, 1 if strict else 0)))
            out[d][0] = ana.simplify(_op.max(out[d][0], lo))
            return True
    return False


def _covers(shape, produced: List[List[Tuple[PrimExpr, PrimExpr]]],
            consumed: List[Range], ana: Analyzer) -> bool:
    """Classic ``ProducerCoversConsumer``: within the buffer, the union of the produced
    intervals contains the consumed one, per dimension."""
    for d, (dim, rng) in enumerate(zip(shape, consumed)):
        top = _op.sub(dim, 1)
        c_lo = ana.simplify(_op.max(rng.min, 0))
        c_hi = ana.simplify(_op.min(_op.sub(_op.add(rng.min, rng.extent), 1), top))
        spans = [(ana.simplify(_op.max(p[d][0], 0)), ana.simplify(_op.min(p[d][1], top)))
                 for p in produced]
        # merge the producers' intervals that touch, then look for one containing c
        merged: List[Tuple[PrimExpr, PrimExpr]] = []
        for lo, hi in sorted(spans, key=lambda s: (_const(s[0]) is None, _const(s[0]) or 0)):
            if merged and ana.can_prove(lo <= _op.add(merged[-1][1], 1)):
                merged[-1] = (merged[-1][0], ana.simplify(_op.max(merged[-1][1], hi)))
            else:
                merged.append((lo, hi))
        if not any(ana.can_prove(_op.logical_and(lo <= c_lo, c_hi <= hi))
                   for lo, hi in merged):
            return False
    return True


def _bindings(realize: BlockRealize) -> Dict[Var, PrimExpr]:
    return {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}


def compute_flags(body: Stmt) -> Dict[int, CachedFlags]:
    """The cached flags of every block of a function body, by block id."""
    nodes, children = _walk(body)
    ana = Analyzer()
    for n in nodes.values():
        if isinstance(n.stmt, For):
            ana.bind(n.stmt.loop_var, Range(n.stmt.min, n.stmt.extent))
    cover: Dict[int, bool] = {k: True for k in children}
    pipeline: Dict[int, bool] = {}
    for key, kids in children.items():
        pipeline[key] = _scope_flags(nodes[key], kids, cover, ana)
    out = {}
    for key in children:
        n = nodes[key]
        out[key] = CachedFlags(_affine(n), cover[key], pipeline[key])
    return out


def _affine(n: _Node) -> bool:
    if n.realize is None or not n.stmt.iter_vars:
        return True
    return all(is_quasi_affine(v, collect_vars(v)) for v in n.realize.iter_values)


def _scope_flags(scope: _Node, kids: List[_Node], cover: Dict[int, bool], ana: Analyzer
                 ) -> bool:
    """Whether the scope is a stage pipeline; sets ``cover`` of its consumers."""
    pipeline = True
    readers: Dict[int, List[_Node]] = {}
    writers: Dict[int, List[_Node]] = {}
    producers: Dict[int, List[Tuple[_Node, object]]] = {}  # consumer -> (producer, buffer)
    for k in kids:
        blk = k.stmt
        for r in blk.reads:
            readers.setdefault(id(r.buffer), []).append(k)
        for w in blk.writes:
            writers.setdefault(id(w.buffer), []).append(k)
        for r in blk.reads:
            for p in writers.get(id(r.buffer), []):
                if p is not k:
                    producers.setdefault(id(blk), []).append((p, r.buffer))
        for w in blk.writes:
            if any(p is not k for p in readers.get(id(w.buffer), [])):
                pipeline = False  # a write after a read
    for k in kids:
        deps = producers.get(id(k.stmt))
        if not deps:
            continue
        ok = _region_cover(scope, k, deps, ana)
        cover[id(k.stmt)] = ok
        pipeline = pipeline and ok
    return pipeline


def _region_cover(scope: _Node, consumer: _Node, deps, ana: Analyzer) -> bool:
    limit = scope.parent
    chain = []
    p = consumer
    while p is not limit:
        chain.append(p)
        p = p.parent
    at: Dict[int, List[_Node]] = {id(c): [] for c in chain}
    for prod, _ in deps:
        q = prod
        while id(q) not in at:
            q = q.parent
        if all(x is not prod for x in at[id(q)]):
            at[id(q)].append(prod)
    c_bind = _bindings(consumer.realize)
    reads = [(r.buffer, [Range(substitute(x.min, c_bind), x.extent) for x in r.region])
             for r in consumer.stmt.reads]
    for lca in chain:
        prods = at[id(lca)]
        if not prods:
            continue
        for buf, region in reads:
            produced = []
            for prod in prods:
                p_bind = _bindings(prod.realize)
                for w in prod.stmt.writes:
                    if w.buffer is not buf:
                        continue
                    dom = _relaxed_loops(prod.parent, lca, buf.scope())
                    lb = _region_lower_bound(
                        [Range(substitute(x.min, p_bind), x.extent) for x in w.region],
                        substitute(prod.realize.predicate, p_bind), dom, ana)
                    if lb is None:
                        return False
                    produced.append(lb)
            if not produced:
                continue
            dom = _relaxed_loops(consumer.parent, lca, buf.scope())
            try:
                consumed = relax_region(region, dom, ana)
            except ValueError:
                return False
            if not _covers(buf.shape, produced, consumed, ana):
                return False
    return True
