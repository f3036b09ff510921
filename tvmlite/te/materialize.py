"""Materialize a TE schedule onto the TensorIR schedule engine.

Stages are applied consumers first, so a producer attached with ``compute_at`` finds its
consumer's loops final: inline → compute_at at the attach loop (unit loops kept) → the stage's
own splits, fuses and reorders in call order → loop annotations → storage scope and alignment.
At the end every loop takes the variable of the TE IterVar it realises, so the lowered IR reads
``i_outer``/``i_inner`` like classic TE and user-held IterVars name their loops.
"""
from __future__ import annotations

from typing import Dict, List, Set, Tuple

from ..error import TVMError
from ..tir import op as _op
from ..tir.expr import And, IntImm, IterVar, IterVarType, Range, Var
from ..tir.functor import Mutator, collect_vars, substitute
from ..tir.schedule import Schedule as TirSchedule
from ..tir.schedule.error import ScheduleError
from ..tir.stmt import BlockRealize, For
from .stage import INLINE, SCOPE, Singleton, Stage, _resolve_leaf, attach_spec
from .tensor import ComputeOp, PlaceholderOp, TensorComputeOp


def _apply_stage(eng, st: Stage, block, loops: List, loop_of: Dict, ranges: Dict,
                 serial: Set[IterVar]) -> None:
    op = st.op
    root_ivs = _loop_axes(op)
    if len(loops) != len(root_ivs):
        raise TVMError(f"internal: stage {op.name} has {len(root_ivs)} axes but "
                       f"{len(loops)} loops")

    def record(iv, lp):
        loop_of[iv] = lp
        node = eng.get(lp)
        ranges[iv] = Range(node.min, node.extent)

    for iv, lp in zip(root_ivs, loops):
        record(iv, lp)
    # ``fuse()`` of no IterVars made an outermost unit IterVar: give it its loop
    outer = loops[0] if loops else block
    for rel in st.relations:
        if isinstance(rel, Singleton):
            outer = eng.add_unit_loop(outer)
            record(rel.iter, outer)
    for entry in st._log:
        kind = entry[0]
        for iv in entry[1:]:
            for x in (iv if isinstance(iv, (list, tuple)) else [iv]):
                if isinstance(x, IterVar) and x.iter_type == IterVarType.Opaque and \
                        isinstance(op, TensorComputeOp) and any(x is a for a in op.axis):
                    raise TVMError(f"{kind} of stage {op.name}: axis {x.var.name} lies inside "
                                   f"the tensor intrinsic {op.intrin.name} and cannot be "
                                   "scheduled")
        if kind == "split":
            _, parent, outer, inner, factor, nparts = entry
            factors = [None, factor] if factor is not None else [nparts, None]
            lo, li = eng.split(loop_of[parent], factors=factors)
            record(outer, lo)
            record(inner, li)
        elif kind == "fuse":
            _, a, b, fused = entry
            record(fused, eng.fuse(loop_of[a], loop_of[b]))
        elif kind == "reorder":
            eng.reorder(*[loop_of[iv] for iv in entry[1]])
    for iv, attr in st.iter_var_attrs.items():
        lp = loop_of.get(iv)
        # as in classic TE, only leaf IterVars are loops: an annotation on an IterVar that
        # was split or fused afterwards is ignored
        if lp is None or not any(iv is x for x in st.leaf_iter_vars):
            continue
        t = attr.iter_type
        if t == IterVarType.Parallelized:
            eng.parallel(lp)
        elif t == IterVarType.Vectorized:
            try:
                eng.vectorize(lp)
            except ScheduleError:  # TE is lenient: the loop stays serial, named ``…_s``
                serial.add(iv)
        elif t == IterVarType.Unrolled:
            eng.unroll(lp)
        elif t == IterVarType.Tensorized:
            pass  # after every annotation: the loops under it disappear
        elif t == IterVarType.ThreadIndex and attr.bind_thread is not None:
            eng.bind(lp, attr.bind_thread.thread_tag)
        for key, value in zip(attr.pragma_keys, attr.pragma_values):
            eng.annotate(lp, "pragma_" + key.value, value)
    for iv, attr in st.iter_var_attrs.items():
        # classic TE: a tensor intrinsic call's stage is built by its own intrinsic, and a
        # tensorize annotation on it has no effect
        if attr.iter_type == IterVarType.Tensorized and iv in loop_of and \
                not isinstance(op, TensorComputeOp):
            # the intrinsic may name the stage's IterVars (classic): they are its loops
            intrin = attr.tensor_intrin
            if hasattr(intrin, "with_vars"):
                intrin = intrin.with_vars({x.var: eng.get(loop_of[x]).loop_var
                                           for x in st.leaf_iter_vars if x in loop_of})
            eng.tensorize(loop_of[iv], intrin)
    for axis, factor, offset in st.storage_aligns:
        idx = next(i for i, a in enumerate(op.axis) if a is axis)
        for out in range(op.num_outputs):  # a stage's scope and alignment cover every output
            eng.storage_align(block, out, idx, factor, offset)


def _loop_axes(op) -> List[IterVar]:
    """The IterVars of ``op`` that are loops of its block: a tensor intrinsic call's own axes
    lie inside the intrinsic."""
    axis = list(op.axis)
    if isinstance(op, TensorComputeOp):
        axis = axis[:op.schedulable_ndim]
    return axis + list(op.reduce_axis)


def _conjuncts(e) -> List:
    return _conjuncts(e.a) + _conjuncts(e.b) if isinstance(e, And) else [e]


def _store_predicate(eng, st: Stage, loop_of: Dict):
    """``st.store_predicate`` over the engine's loop variables (root IterVars stay, bound
    where the block is realised), or None when nothing is left to guard."""
    op, what = st.op, f"set_store_predicate of stage {st.op.name}"
    leaf = {x.var: x for x in st.leaf_iter_vars}
    thread_of = {a.bind_thread.var: iv for iv, a in st.iter_var_attrs.items()
                 if a.bind_thread is not None and iv.var in leaf and leaf[iv.var] is iv}
    root = {iv.var for iv in list(op.axis) + list(op.reduce_axis)}
    vmap, reduce_threads = {}, set()
    for v in collect_vars(st.store_predicate):
        iv = thread_of[v] if v in thread_of else leaf.get(v)
        if iv is None and v not in root:
            known = any(x.var is v for x in st.all_iter_vars)
            raise TVMError(f"{what}: {v.name} is " + (
                "an IterVar that was split or fused (use its leaves)" if known else
                "neither an IterVar of the stage nor a thread axis it binds"))
        if iv is not None and v in thread_of and iv.iter_type == IterVarType.CommReduce:
            reduce_threads.add(v)
            continue
        if (iv.iter_type if iv is not None else next(
                x for x in list(op.axis) + list(op.reduce_axis) if x.var is v).iter_type) \
                == IterVarType.CommReduce:
            raise TVMError(f"{what}: the predicate uses the serial reduction IterVar {v.name}; "
                           "tvmlite does not implement store predicates over a reduction")
        if iv is not None:
            vmap[v] = eng.get(loop_of[iv]).loop_var
    keep = []
    for c in _conjuncts(st.store_predicate):
        used = collect_vars(c) & reduce_threads
        if used and collect_vars(c) - reduce_threads:
            raise TVMError(f"{what}: the condition {c} mixes the threads of a cross-thread "
                           "reduction with other variables")
        # a condition on the reduction's threads only picks which thread stores the reduced
        # value: the lowered cross-thread reduction stores it once (from thread 0) already
        if not used:
            keep.append(substitute(c, vmap))
    if not keep:
        return None
    pred = keep[0]
    for c in keep[1:]:
        pred = _op.logical_and(pred, c)
    return pred


class _GuardBlocks(Mutator):
    """AND each named block's store predicate (root IterVars bound to the block's iterator
    values) into its realisation's predicate."""

    def __init__(self, preds: Dict[str, Tuple[object, Dict]]):
        self.preds = preds

    def visit_BlockRealize(self, r):
        r2 = self.generic(r)
        hit = self.preds.get(r.block.name_hint)
        if hit is None:
            return r2
        pred, root_to_biv = hit
        bind = {bv.var: val for bv, val in zip(r2.block.iter_vars, r2.iter_values)}
        pred = substitute(pred, {v: bind[b] for v, b in root_to_biv.items()})
        new = pred if isinstance(r2.predicate, IntImm) and r2.predicate.value else \
            _op.logical_and(r2.predicate, pred)
        return BlockRealize(r2.iter_values, new, r2.block)


def _attach_scope(eng, loop) -> str:
    """Classic TE's default scope of a stage attached at ``loop``: "local" under a threadIdx
    (or vthread) loop, "shared" under blockIdx loops only, else "global"."""
    tags = [lp.thread_binding.thread_tag for lp in eng._state.loop_path(loop)
            if isinstance(lp, For) and lp.thread_binding is not None]
    if any(not t.startswith("blockIdx") for t in tags):
        return "local"
    return "shared" if tags else "global"


def _set_scope(eng, st: Stage, block, default: str) -> None:
    scope = st.scope or default
    if scope != "global":
        for out in range(st.op.num_outputs):  # a stage's scope covers every output
            eng.set_scope(block, out, scope)


def apply_stages(sch, func, info) -> Tuple[object, Dict[IterVar, Range]]:
    """Apply every stage of the te.Schedule ``sch`` to ``func`` (made by create_prim_func with
    ``info``)."""
    eng = TirSchedule(func)
    loop_of: Dict[IterVar, object] = {}
    ranges: Dict[IterVar, Range] = {}
    serial: Set[IterVar] = set()
    for st in reversed(sch.stages):
        op = st.op
        if isinstance(op, PlaceholderOp) or op not in info.op2block:
            continue
        block = eng.get_block(info.op2block[op])
        if st.attach_type == INLINE:
            eng.compute_inline(block)
            continue
        n_axes = len(_loop_axes(op)) if hasattr(op, "axis") else 0
        spec = attach_spec(st)  # a group member attaches where its group does
        if spec.attach_type == SCOPE:
            target = _resolve_leaf(spec.attach_stage, spec.attach_ivar)
            if target not in loop_of:
                raise TVMError(f"compute_at: the loop {target.var.name} of "
                               f"{spec.attach_stage.op.name} is not realised (is that stage "
                               "inlined or not part of this function?)")
            # the scope first: the region a GPU thread computes depends on it
            _set_scope(eng, st, block, _attach_scope(eng, loop_of[target]))
            loops = eng.compute_at_loops(block, loop_of[target], preserve_unit_loops=True)
        else:
            loops = eng.get_loops(block)[-n_axes:] if n_axes else []
            _set_scope(eng, st, block, "global")
        if not isinstance(op, (ComputeOp, TensorComputeOp)):
            continue
        _apply_stage(eng, st, block, loops, loop_of, ranges, serial)
    preds = {}
    for st in sch.stages:
        if st.store_predicate is not None and st.op in info.op2block and \
                st.attach_type != INLINE and isinstance(st.op, ComputeOp):
            pred = _store_predicate(eng, st, loop_of)
            if pred is not None:
                preds[info.op2block[st.op]] = (pred, {
                    iv.var: info.iter_var_map[iv][0].var for iv in
                    list(st.op.axis) + list(st.op.reduce_axis) if iv in info.iter_var_map})
    vmap: Dict[Var, Var] = {}
    for iv, lp in loop_of.items():
        try:
            node = eng.get(lp)
        except Exception:  # the loop was fused or split away
            continue
        name = iv.var.name + ("_s" if iv in serial else "")
        if isinstance(node, For) and (node.loop_var is not iv.var or name != iv.var.name):
            vmap[node.loop_var] = Var(name, node.loop_var.dtype)
    out = eng.mod["main"]
    if preds:
        out = out.with_body(_GuardBlocks(preds).visit(out.body))
    if vmap:
        out = out.with_body(substitute(out.body, vmap))
    return out, ranges
