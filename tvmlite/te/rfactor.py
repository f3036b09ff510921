"""Classic TE ``s.rfactor(B, axis)``: factor a reduction over a (split) reduce IterVar.

For ``B[i] = sum_k A[i, k]`` with ``ko, ki = s[B].split(k, factor=16)``,
``BF = s.rfactor(B, ki)`` makes::

    BF[ki, i] = sum_ko A[i, ko * 16 + ki]          (guarded when 16 does not divide)
    B[i]      = sum_{ki_v} BF[ki_v, i]

``factor_axis`` says where the new dimension goes in ``BF``'s shape. ``s[B]`` keeps its spatial
IterVars and schedule; its reduction is now over ``BF``'s new dimension.
"""
from __future__ import annotations

from typing import Dict

from ..arith import Analyzer
from ..error import TVMError
from ..tir import op as _op
from ..tir.expr import IntImm, IterVar, IterVarType, PrimExpr, Range, Reduce, Var
from ..tir.functor import collect_vars, substitute
from .stage import Fuse, Split, Stage
from .tensor import ComputeOp


def _ceildiv(a, b, ana: Analyzer):
    return ana.simplify(_op.floordiv(_op.add(a, _op.sub(b, 1)), b))


def rfactor(sch, tensor, axis: IterVar, factor_axis: int = 0):
    st = sch[tensor]
    op = st.op
    if not isinstance(op, ComputeOp) or not op.reduce_axis:
        raise TVMError(f"rfactor: {op.name} is not a reduction")
    if not any(axis is x for x in st.leaf_iter_vars) or axis.iter_type != IterVarType.CommReduce:
        raise TVMError(f"rfactor: {getattr(axis, 'var', axis)!r} is not a leaf reduction "
                       f"IterVar of {op.name}")
    if st.attach_type != 1:
        raise TVMError("rfactor: call rfactor before compute_at/compute_inline of the stage")
    # extents and root expressions of the reduce IterVars, through the relations
    for r in st.relations:
        if isinstance(r, Fuse) and r.outer.iter_type != r.inner.iter_type:
            raise TVMError(f"rfactor: {op.name} fuses a data-parallel with a reduction IterVar "
                           f"({r.fused.var.name}); rfactor needs the reduction kept apart")
    spatial = {iv.var for iv in op.axis}
    for iv in op.reduce_axis:
        if (collect_vars(iv.dom.min) | collect_vars(iv.dom.extent)) & spatial:
            raise TVMError(f"rfactor of stage {op.name}: the range of reduce axis {iv.var.name} "
                           "depends on an output axis; tvmlite does not implement rfactor of "
                           "such a reduction")
    # extents may be symbolic (``k = te.reduce_axis((0, m))``): PrimExprs, simplified
    ana = Analyzer()
    ext: Dict[IterVar, PrimExpr] = {iv: ana.simplify(iv.dom.extent) for iv in op.reduce_axis}
    conds = []
    red_rel = []
    for r in st.relations:
        if isinstance(r, Split) and r.parent.iter_type == IterVarType.CommReduce:
            n = ext[r.parent]
            if r.factor is not None:
                f = _op.convert(r.factor)
                ext[r.inner], ext[r.outer] = f, _ceildiv(n, f, ana)
            else:  # classic: the factored axis has exactly ``nparts`` parts
                p = _op.convert(r.nparts)
                ext[r.outer], ext[r.inner] = p, _ceildiv(n, p, ana)
            red_rel.append(r)
        elif isinstance(r, Fuse) and r.outer.iter_type == IterVarType.CommReduce:
            ext[r.fused] = ana.simplify(_op.mul(ext[r.outer], ext[r.inner]))
            red_rel.append(r)
    expr: Dict[IterVar, object] = {}
    leaves = [iv for iv in st.leaf_iter_vars if iv.iter_type == IterVarType.CommReduce]
    for iv in leaves:
        expr[iv] = iv.var
    for r in reversed(red_rel):
        if isinstance(r, Split):
            expr[r.parent] = _op.add(_op.mul(expr[r.outer], ext[r.inner]), expr[r.inner])
            if not ana.can_prove_equal(_op.mul(ext[r.outer], ext[r.inner]), ext[r.parent]):
                conds.append(_op.lt(expr[r.parent], ext[r.parent]))
        else:
            expr[r.outer] = _op.floordiv(expr[r.fused], ext[r.inner])
            expr[r.inner] = _op.floormod(expr[r.fused], ext[r.inner])
    # BF: the factored axis becomes spatial; the other leaves stay reductions
    nax = len(op.axis)
    if not 0 <= factor_axis <= nax:
        raise TVMError(f"rfactor: factor_axis must be in [0, {nax}], got {factor_axis}")
    sp = [IterVar(iv.dom, Var(iv.var.name, iv.var.dtype), IterVarType.DataPar) for iv in op.axis]
    fax = IterVar(Range(IntImm("int32", 0), ext[axis]),
                  Var(axis.var.name, axis.var.dtype), IterVarType.DataPar)
    bf_axis = sp[:factor_axis] + [fax] + sp[factor_axis:]
    # as in classic TE, the remaining reductions keep their variables (an untouched root
    # reduce axis stays the very IterVar the user holds, and comes first)
    untouched = [iv for iv in leaves if iv is not axis and any(iv is r for r in op.reduce_axis)]
    red = untouched + [
        IterVar(Range(IntImm("int32", 0), ext[iv]), iv.var, IterVarType.CommReduce)
        for iv in leaves if iv is not axis and not any(iv is u for u in untouched)]
    vmap = {iv.var: nv.var for iv, nv in zip(op.axis, sp)}
    leaf_map = {axis.var: fax.var}  # the other leaves keep their variables
    for root in op.reduce_axis:
        vmap[root.var] = substitute(expr[root], leaf_map)
    body0 = op.body[0]
    cond = _op.logical_and(body0.condition, _op.all(*conds)) if conds else body0.condition
    src = tuple(substitute(s, vmap) for s in body0.source)
    cond = substitute(cond, {**vmap, **leaf_map})
    # Partials start from the reducer's identity; a user ``init`` belongs to the final stage
    # only (once per output element, as classic TVM does), never to every partial.
    ident = body0.combiner.identity_element
    if red:
        bodies = [Reduce(body0.combiner, src, tuple(red), cond, i, ())
                  for i in range(len(op.body))]
    elif _is_true(cond):  # nothing left to reduce: BF is elementwise
        bodies = list(src)
    else:  # ... but keeps the condition: a masked-out partial is the identity
        bodies = [_op.if_then_else(cond, src[i], ident[i]) for i in range(len(op.body))]
    bf = ComputeOp(op.name + ".rf", op.tag, op.attrs, bf_axis, bodies)
    # B now reduces BF over the factored axis
    rv = IterVar(Range(IntImm("int32", 0), ext[axis]),
                 Var(axis.var.name + ".v", axis.var.dtype), IterVarType.CommReduce)
    idx = [iv.var for iv in op.axis]
    loads = tuple(bf.output(i)(*(idx[:factor_axis] + [rv.var] + idx[factor_axis:]))
                  for i in range(bf.num_outputs))
    new_bodies = [Reduce(body0.combiner, loads, (rv,), IntImm("bool", 1), i, body0.init)
                  for i in range(len(op.body))]
    new_op = ComputeOp(op.name, op.tag, op.attrs, op.axis, new_bodies)
    # stage bookkeeping
    pos = next(i for i, s in enumerate(sch.stages) if s is st)
    bst = Stage(bf, sch)
    sch.stages.insert(pos, bst)
    sch.stage_map[bf] = bst
    old_outs = [op.output(i) for i in range(op.num_outputs)]
    sch._set_op(st, new_op)
    keep = [r for r in st.relations if r not in red_rel]
    st.relations = keep
    st.leaf_iter_vars = [iv for iv in st.leaf_iter_vars
                         if iv.iter_type != IterVarType.CommReduce] + [rv]
    st.all_iter_vars = [iv for iv in st.all_iter_vars
                        if iv.iter_type != IterVarType.CommReduce] + [rv]
    st._log = [e for e in st._log if not _touches_reduce(e)]
    for iv in list(st.iter_var_attrs):
        if iv.iter_type == IterVarType.CommReduce:
            del st.iter_var_attrs[iv]
    sch._replace_dataflow({o: new_op.output(i) for i, o in enumerate(old_outs)}, pos + 2)
    outs = [bf.output(i) for i in range(bf.num_outputs)]
    return outs[0] if len(outs) == 1 else outs


def _is_true(cond) -> bool:
    return isinstance(cond, IntImm) and bool(cond.value)


def _touches_reduce(entry) -> bool:
    ivs = [x for x in entry[1:] if isinstance(x, IterVar)]
    if entry[0] == "reorder":
        ivs = list(entry[1])
    return any(iv.iter_type == IterVarType.CommReduce for iv in ivs)
