"""Classic TE bound inference (``tvm.te.schedule.InferBound``) on the stage graph.

Stages are visited consumers first. An output's root IterVars keep their domains; any other
stage's root ranges are the union, over its consumers, of the regions the consumers read,
with each consumer loop relaxed to its whole range where it lies inside the stage's attach
point (or is a thread the stage's storage scope is shared by) and kept as a single point
outside it. The regions come up from the consumer's leaf IterVars through its Split/Fuse
relations, and a stage's root ranges go down those relations to its leaves, as classic TE's
``InferRootBound`` / ``PassUpDomain`` / ``PassDownDomain`` do. This is an analysis only:
lowering realises the stages on the TensorIR engine (:mod:`.materialize`).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..arith import Analyzer
from ..arith.int_set import IntervalSet, IntSet, eval_set, is_neg_inf, is_pos_inf, union
from ..error import TVMError
from ..tir import op as _op
from ..tir.expr import IntImm, IterVar, IterVarType, ProducerLoad, Range
from ..tir.functor import collect_vars, ir_transform, post_order_visit, substitute
from .stage import INLINE, SCOPE, Fuse, Singleton, Split, Stage, _resolve_leaf, attach_spec
from .tensor import ComputeOp, ExternOp, PlaceholderOp, TensorComputeOp


class _NotClassic(Exception):
    """A stage kind this analysis does not model (the caller falls back)."""


_STORAGE_RANK = {"global": 0, "shared": 1, "warp": 2, "local": 3}


def _storage_rank(scope: str) -> int:
    base = scope.split(".")[0]
    if base in _STORAGE_RANK:
        return _STORAGE_RANK[base]
    return 3 if base.startswith(("local", "wmma")) else 0


def _thread_rank(tag: str):
    """(rank, dim index) of a thread tag: blockIdx 0, threadIdx and virtual threads 1."""
    if tag.startswith("blockIdx"):
        return 0, "xyz".index(tag[-1])
    if tag.startswith("threadIdx"):
        return 1, "xyz".index(tag[-1])
    return 1, -1  # vthread / cthread


def _is_one(e) -> bool:
    return isinstance(e, IntImm) and e.value == 1


def _is_zero(e) -> bool:
    return isinstance(e, IntImm) and e.value == 0


class _Context:
    def __init__(self, sch):
        self.sch = sch
        self.bind_map: Dict[IterVar, IterVar] = {}
        for st in sch.stages:
            for iv, attr in st.iter_var_attrs.items():
                if attr.bind_thread is not None:
                    self.bind_map[iv] = attr.bind_thread
        self.op2stage = {st.op: st for st in sch.stages}
        self.attach_path = {st.op: self._attach_path(st) for st in sch.stages}
        self.bodies: Dict[object, List] = {}
        self.feed: Dict[int, List] = {}  # id(tensor) -> consumer ops
        for st in sch.stages:
            if st.attach_type == INLINE or isinstance(st.op, PlaceholderOp):
                continue
            if isinstance(st.op, ComputeOp):
                body = [self._inline(e) for e in st.op.body]
            elif isinstance(st.op, ExternOp):
                body = []
            elif isinstance(st.op, TensorComputeOp):
                # a tensor intrinsic call reads its regions: the loads at their two corners
                # bound the same intervals
                body = [ProducerLoad(t, tuple(c(r) for r in reg))
                        for t, reg in zip(st.op.inputs, st.op.input_regions)
                        for c in (lambda r: r.min,
                                  lambda r: _op.sub(_op.add(r.min, r.extent), 1))]
            else:
                raise _NotClassic(type(st.op).__name__)
            self.bodies[st.op] = body
            reads = list(st.op.input_tensors) if isinstance(st.op, ExternOp) else []

            def add_read(x, reads=reads):
                if isinstance(x, ProducerLoad):
                    reads.append(x.producer)

            for e in body:
                post_order_visit(e, add_read)
            seen = set()
            for t in reads:
                if id(t) not in seen:
                    seen.add(id(t))
                    self.feed.setdefault(id(t), []).append(st.op)

    def feed_of(self, op) -> List:
        """The operations that read an output of ``op``."""
        out, seen = [], set()
        for i in range(op.num_outputs):
            for c in self.feed.get(id(op.output(i)), []):
                if id(c) not in seen:
                    seen.add(id(c))
                    out.append(c)
        return out

    def _attach_path(self, stage: Stage) -> List[IterVar]:
        path: List[IterVar] = []
        s, seen = attach_spec(stage), set()
        while s.attach_type == SCOPE and id(s) not in seen:
            seen.add(id(s))
            target, s = _resolve_leaf(s.attach_stage, s.attach_ivar), s.attach_stage
            started = False
            for iv in reversed(s.leaf_iter_vars):
                started = started or iv is target
                if started:
                    path.append(iv)
            s = attach_spec(s)  # a group member attaches where its group does
        return path

    def _inline(self, expr):
        """``expr`` with the loads of inlined stages replaced by their bodies."""
        def post(x):
            if not isinstance(x, ProducerLoad):
                return None
            st = self.op2stage.get(x.producer.op)
            if st is None or st.attach_type != INLINE or not isinstance(st.op, ComputeOp):
                return None
            body = st.op.body[x.producer.value_index]
            vmap = {iv.var: i for iv, i in zip(st.op.axis, x.indices)}
            return self._inline(substitute(body, vmap))
        return ir_transform(expr, None, post, ["tir.ProducerLoad"])

    def need_relax(self, iv: IterVar, found_attach: bool, rank: int) -> bool:
        bound = self.bind_map.get(iv)
        tag = bound.thread_tag if bound is not None else (iv.thread_tag or "")
        if not tag or tag == "pipeline":
            return not found_attach
        trank, dim = _thread_rank(tag)
        if rank == _STORAGE_RANK["warp"] and trank == 1 and dim == 0:
            return True
        return rank <= trank

    def storage_rank(self, stage: Stage) -> int:
        if stage.scope:
            return _storage_rank(stage.scope)
        max_rank = -1
        for iv in self.attach_path[stage.op]:
            bound = self.bind_map.get(iv)
            tag = bound.thread_tag if bound is not None else (iv.thread_tag or "")
            if tag and tag != "pipeline":
                max_rank = max(max_rank, _thread_rank(tag)[0])
        return {-1: 0, 0: 1}.get(max_rank, 3)


def _dom(pairs) -> Dict:
    """An eval_set domain map without the variables that stand for themselves (a single
    point at the variable)."""
    return {v: s for v, s in pairs if not (s.is_single_point() and s.min_value is v)}


def _matches(s: IntervalSet, rng: Range, ana: Analyzer) -> bool:
    if not (s.has_lower_bound() and s.has_upper_bound()):
        return False
    return ana.can_prove_equal(s.min_value, rng.min) and ana.can_prove_equal(
        s.max_value, _op.sub(_op.add(rng.min, rng.extent), 1))


def _cover_range(s: IntervalSet, default: Range, ana: Analyzer) -> Range:
    if not (s.has_lower_bound() and s.has_upper_bound()):
        return default
    if s.is_single_point():
        return Range(s.min_value, IntImm(s.min_value.dtype, 1))
    return Range(s.min_value, ana.simplify(_op.sub(_op.add(s.max_value, 1), s.min_value)))


def _pass_up_domain(stage: Stage, rmap: Dict[IterVar, Range], state: Dict[IterVar, IntervalSet],
                    ana: Analyzer) -> None:
    for rel in reversed(stage.relations):
        if isinstance(rel, Split):
            outer, inner = state[rel.outer], state[rel.inner]
            if _matches(outer, rmap[rel.outer], ana) and _matches(inner, rmap[rel.inner], ana):
                state[rel.parent] = IntSet.from_range(rmap[rel.parent])
                continue
            expr = _op.add(_op.add(_op.mul(rel.outer.var, rmap[rel.inner].extent),
                                   rel.inner.var), rmap[rel.parent].min)
            dom = _dom([(rel.outer.var, outer), (rel.inner.var, inner)])
            state[rel.parent] = eval_set(expr, dom, ana)
        elif isinstance(rel, Fuse):
            fused = state[rel.fused]
            ro, ri = rmap[rel.outer], rmap[rel.inner]
            if _matches(fused, rmap[rel.fused], ana):
                state[rel.outer], state[rel.inner] = IntSet.from_range(ro), IntSet.from_range(ri)
                continue
            if fused.is_single_point():
                v = fused.point_value()
                state[rel.outer] = IntSet.single_point(
                    ana.simplify(_op.add(_op.floordiv(v, ri.extent), ro.min)))
                state[rel.inner] = IntSet.single_point(
                    ana.simplify(_op.add(_op.floormod(v, ri.extent), ri.min)))
                continue
            lo, hi = fused.min_value, fused.max_value
            state[rel.outer] = IntervalSet(
                ana.simplify(_op.add(ro.min, _op.floordiv(lo, ri.extent))),
                ana.simplify(_op.add(ro.min, _op.floordiv(hi, ri.extent))))
            ext = ana.simplify(_op.add(_op.sub(hi, lo), 1))
            if _is_zero(ana.simplify(_op.floormod(ri.extent, ext))) and \
                    _is_zero(ana.simplify(_op.floormod(lo, ext))):
                # the fused range never spans two rows: a tight box
                state[rel.inner] = IntervalSet(
                    ana.simplify(_op.add(ri.min, _op.floormod(lo, ri.extent))),
                    ana.simplify(_op.add(ri.min, _op.floormod(hi, ri.extent))))
            else:
                state[rel.inner] = IntSet.from_range(ri)
        elif not isinstance(rel, Singleton):
            raise _NotClassic(type(rel).__name__)


def _pass_down_domain(stage: Stage, rmap: Dict[IterVar, Range], ana: Analyzer) -> None:
    def ceil_div(a, b):
        if ana.can_prove(_op.floormod(a, b) == 0):
            return ana.simplify(_op.floordiv(a, b))
        return ana.simplify(_op.floordiv(_op.add(a, _op.sub(b, 1)), b))

    # an IterVar that derives a thread-bound leaf keeps the extent the split gave it
    threaded: Dict[IterVar, bool] = {
        iv: iv in stage.iter_var_attrs and stage.iter_var_attrs[iv].bind_thread is not None
        for iv in stage.leaf_iter_vars}
    for rel in reversed(stage.relations):
        if isinstance(rel, Split):
            threaded[rel.parent] = threaded.get(rel.inner, False) or threaded.get(
                rel.outer, False)
        elif isinstance(rel, Fuse):
            threaded[rel.outer] = threaded[rel.inner] = threaded.get(rel.fused, False)

    def tight(iv, parent_ext, n):
        if threaded.get(iv, False) or _is_zero(parent_ext):
            return n
        return ana.simplify(parent_ext) if ana.can_prove(parent_ext < n) else n

    for rel in stage.relations:
        if isinstance(rel, Split):
            if rel.parent not in rmap:
                continue
            ext = rmap[rel.parent].extent
            dt = ext.dtype
            if rel.factor is not None:
                n = _op.const(rel.factor, dt) if isinstance(rel.factor, int) else rel.factor
                rmap.setdefault(rel.inner, Range(IntImm(dt, 0), tight(rel.inner, ext, n)))
                rmap.setdefault(rel.outer, Range(IntImm(dt, 0), ceil_div(ext, n)))
            else:
                n = _op.const(rel.nparts, dt) if isinstance(rel.nparts, int) else rel.nparts
                rmap.setdefault(rel.outer, Range(IntImm(dt, 0), tight(rel.outer, ext, n)))
                rmap.setdefault(rel.inner, Range(IntImm(dt, 0), ceil_div(ext, n)))
        elif isinstance(rel, Fuse):
            if rel.outer in rmap and rel.inner in rmap:
                ext = ana.simplify(_op.mul(rmap[rel.outer].extent, rmap[rel.inner].extent))
                rmap[rel.fused] = Range(IntImm(ext.dtype, 0), ext)
        elif isinstance(rel, Singleton):
            rmap.setdefault(rel.iter, Range(IntImm("int32", 0), IntImm("int32", 1)))
    for iv, attr in stage.iter_var_attrs.items():
        if attr.bind_thread is not None and iv in rmap:
            rmap.setdefault(attr.bind_thread, rmap[iv])


def _root_iter_vars(op) -> List[IterVar]:
    return list(getattr(op, "axis", ())) + list(getattr(op, "reduce_axis", ()))


def _prop_to_inputs(bodies, op, dom_map, ana: Analyzer, tmap: Dict[int, List]) -> None:
    """Add the region of each tensor of ``tmap`` that ``op`` (computing ``bodies``) reads over
    ``dom_map``."""
    def visit(x):
        if not isinstance(x, ProducerLoad) or id(x.producer) not in tmap:
            return
        t = x.producer
        for i, idx in enumerate(x.indices):
            s = eval_set(idx, dom_map, ana)
            lo, hi = s.min_value, s.max_value
            smax = _op.sub(t.shape[i], 1)
            # prefer the tensor's own bounds when they are provably tighter
            if (is_pos_inf(hi) and is_neg_inf(lo)) or (
                    not is_neg_inf(lo) and not is_pos_inf(hi)
                    and ana.can_prove(_op.const(0, lo.dtype) >= lo) and ana.can_prove(smax <= hi)):
                s = IntervalSet(_op.const(0, smax.dtype), smax)
            tmap[id(t)][i].append(s)

    if isinstance(op, ExternOp):
        for t in op.input_tensors:
            if id(t) in tmap:
                for i, n in enumerate(t.shape):
                    tmap[id(t)][i].append(IntervalSet(0, ana.simplify(_op.sub(n, 1))))
        return
    for e in bodies:
        post_order_visit(e, visit)


def _infer_root_bound(ctx: _Context, stage: Stage, rmap: Dict[IterVar, Range]) -> None:
    op = stage.op
    if stage.is_output or not ctx.feed_of(op):
        for iv in _root_iter_vars(op):
            rmap[iv] = iv.dom
        return
    tmap = {id(op.output(i)): [[] for _ in op.output(i).shape] for i in range(op.num_outputs)}
    rank = ctx.storage_rank(stage)
    stage_attach = ctx.attach_path[op]
    for cop in ctx.feed_of(op):
        cst = ctx.op2stage[cop]
        up: Dict[IterVar, IntervalSet] = {}
        relax = {}
        found = False
        for iv in reversed(cst.leaf_iter_vars):
            if stage_attach and iv is stage_attach[0]:
                found = True
            vr = rmap[iv]
            if _is_one(vr.extent):
                up[iv] = IntSet.single_point(vr.min)
            elif not ctx.need_relax(iv, found, rank):
                bound = ctx.bind_map.get(iv)
                up[iv] = IntSet.single_point(bound.var if bound is not None else iv.var)
            else:
                up[iv] = IntSet.from_range(vr)
        for iv in ctx.attach_path[cop]:
            if stage_attach and iv is stage_attach[0]:
                found = True
            if ctx.need_relax(iv, found, rank):
                relax[iv.var] = IntSet.from_range(rmap[iv])
                if iv in ctx.bind_map:
                    relax[ctx.bind_map[iv].var] = IntSet.from_range(rmap[iv])
        ana = Analyzer()
        for iv, r in rmap.items():
            ana.bind(iv.var, r, allow_override=True)
        _pass_up_domain(cst, rmap, up, ana)
        dom_map = {}
        for iv in _root_iter_vars(cop):
            r = _cover_range(up[iv], iv.dom, ana) if iv in up else iv.dom
            if relax:
                dom_map[iv.var] = IntervalSet(
                    eval_set(r.min, relax, ana).min_value,
                    eval_set(_op.sub(_op.add(r.min, r.extent), 1), relax, ana).max_value)
            else:
                dom_map[iv.var] = IntSet.from_range(r)
            if iv.var not in collect_vars(r.min):  # a single point at the IterVar itself
                ana.bind(iv.var, r, allow_override=True)
        _prop_to_inputs(ctx.bodies[cop], cop, _dom(dom_map.items()), ana, tmap)
    ana = Analyzer()
    for iv, r in rmap.items():
        ana.bind(iv.var, r, allow_override=True)
    for i, iv in enumerate(getattr(op, "axis", ())):
        sets = [s for k in range(op.num_outputs) for s in tmap[id(op.output(k))][i]]
        rmap[iv] = _cover_range(union(sets, ana), iv.dom, ana) if sets else iv.dom
    for iv in getattr(op, "reduce_axis", ()):
        rmap[iv] = iv.dom


def infer_tensorize_region(stage: Stage, dom_map: Dict[IterVar, Range]
                           ) -> Tuple[Dict[IterVar, Range], Dict[Any, List[Range]]]:
    """The region a tensorized compute stage computes in one call of its intrinsic (classic
    ``InferTensorizeRegion``): each root IterVar's range (loops outside the tensorized one
    held at their variable, those from it down over their ``dom_map`` range) and each input
    tensor's region read."""
    op = stage.op
    if not isinstance(op, ComputeOp):
        raise TVMError(f"tensorize region: stage {op.name} is not a compute stage")
    up: Dict[IterVar, IntervalSet] = {}
    found = False
    for iv in reversed(stage.leaf_iter_vars):
        if iv not in dom_map:
            raise TVMError(f"tensorize region: no range for {iv.var.name} (run InferBound)")
        vr = dom_map[iv]
        if _is_one(vr.extent):
            up[iv] = IntSet.single_point(vr.min)
        elif found:
            up[iv] = IntSet.single_point(iv.var)
        else:
            up[iv] = IntSet.from_range(vr)
        attr = stage.iter_var_attrs.get(iv)
        if attr is not None and attr.iter_type == IterVarType.Tensorized:
            if found:
                raise TVMError(f"tensorize region: stage {op.name} is tensorized twice")
            if attr.bind_thread is not None:
                raise TVMError("tensorize region: a thread-bound loop inside the tensorized "
                               "scope")
            found = True
    if not found:
        raise TVMError(f"tensorize region: stage {op.name} is not tensorized")
    ana = Analyzer()
    for iv, r in dom_map.items():
        ana.bind(iv.var, r, allow_override=True)
    _pass_up_domain(stage, dom_map, up, ana)
    out_dom: Dict[IterVar, Range] = {}
    sets = {}
    for iv in _root_iter_vars(op):
        out_dom[iv] = _cover_range(up[iv], dom_map[iv], ana)
        sets[iv.var] = up[iv]
    inputs = op.input_tensors
    tmap = {id(t): [[] for _ in t.shape] for t in inputs}
    _prop_to_inputs(op.body, op, _dom(sets.items()), ana, tmap)
    in_region: Dict[Any, List[Range]] = {}
    for t in inputs:
        rng = []
        for i, ss in enumerate(tmap[id(t)]):
            u = union(ss, ana)
            if not ss or not (u.has_lower_bound() and u.has_upper_bound()):
                raise TVMError(f"tensorize region: cannot deduce the region of {t.name} read "
                               "in the tensorized scope")
            rng.append(_cover_range(u, Range(0, t.shape[i]), ana))
        in_region[t] = rng
    return out_dom, in_region


def infer_bound(sch) -> Optional[Dict[IterVar, Range]]:
    """Classic InferBound of the te.Schedule ``sch``: every IterVar of every stage (and every
    thread IterVar bound) mapped to its Range; None when the schedule holds a stage kind this
    analysis does not model (scans, tensor intrinsic calls)."""
    try:
        ctx = _Context(sch)
        rmap: Dict[IterVar, Range] = {}
        ana = Analyzer()
        for st in reversed(sch.stages):
            if st.attach_type == INLINE or isinstance(st.op, PlaceholderOp):
                continue
            _infer_root_bound(ctx, st, rmap)
            for iv in _root_iter_vars(st.op):
                if iv in rmap:
                    ana.bind(iv.var, rmap[iv], allow_override=True)
            _pass_down_domain(st, rmap, ana)
    except _NotClassic:
        return None
    out = {}
    for iv, r in rmap.items():
        dt = iv.var.dtype
        mn, ext = r.min, r.extent
        mn = ana.simplify(mn if mn.dtype == dt else _op.cast(dt, mn))
        ext = ana.simplify(ext if ext.dtype == dt else _op.cast(dt, ext))
        out[iv] = Range(mn, ext)
    return out


__all__ = ["infer_bound", "infer_tensorize_region"]
