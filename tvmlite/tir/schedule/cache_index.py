"""``cache_index``: precompute the pure index expressions of a block's stores into buffers
filled before it."""
from __future__ import annotations

from typing import Dict, List

from ...ir.structural import structural_equal
from .. import op as _op
from ..buffer import Buffer, decl_buffer
from ..expr import (
    Broadcast,
    BufferLoad,
    Call,
    IntImm,
    IterVar,
    IterVarType,
    PrimExpr,
    Ramp,
    Range,
    Var,
)
from ..functor import Mutator, _children, collect_vars, post_order_visit, substitute
from ..stmt import Block, BlockRealize, BufferRegion, BufferStore, For, ForKind, SeqStmt, Stmt
from .cache_read_write import check_scope
from .error import fail
from .state import (
    BlockRV,
    ScheduleState,
    ensure_root_block,
    find_path,
    is_true,
    loop_domains,
    rebuild,
    relax_indices,
    replace,
    scope_index,
    simplify,
    with_block,
)

# calls without side effects (an expression holding another call is not precomputed)
_PURE_CALLS = frozenset("""
    floor ceil round nearbyint trunc exp exp2 exp10 log log2 log10 log1p sqrt rsqrt fabs abs
    pow tanh sigmoid sin cos tan sinh cosh asin acos atan atan2 erf fmod isnan isinf isfinite
    popcount clz call_pure_extern
""".split())


def _complexity(e) -> int:
    n = [0]
    post_order_visit(e, lambda x: n.__setitem__(0, n[0] + 1) if isinstance(x, PrimExpr)
                     else None)
    return n[0]


def _pure(e) -> bool:
    bad = []
    post_order_visit(e, lambda x: bad.append(x) if isinstance(x, BufferLoad) or (
        isinstance(x, Call) and x.op not in _PURE_CALLS) else None)
    return not bad


def _eligible(e) -> bool:
    return isinstance(e, PrimExpr) and not isinstance(e, (Ramp, Broadcast)) and \
        _complexity(e) > 1 and _pure(e)


def _largest(e) -> List[PrimExpr]:
    """The largest eligible computations in ``e``, in program order (each occurrence)."""
    if _eligible(e):
        return [e]
    out: List[PrimExpr] = []
    for c in _children(e):
        for x in (c if isinstance(c, tuple) else (c,)):
            if isinstance(x, PrimExpr):
                out += _largest(x)
    return out


def _direct_subexprs(e) -> List[PrimExpr]:
    out: List[PrimExpr] = []
    for c in _children(e):
        for x in (c if isinstance(c, tuple) else (c,)):
            if isinstance(x, PrimExpr):
                out += _largest(x)
    return out


def _select(stores: List[BufferStore], ivs: Dict[Var, PrimExpr], thresh: int
            ) -> List[PrimExpr]:
    """Classic TVM's choice: the largest pure computations of the stores, counted by
    structural equality; one seen fewer than ``thresh`` times gives way to its direct
    sub-computations (which inherit its count). Only computations of the block iterators
    are kept, most complex first."""
    table: List[List] = []  # [expr, count, processed]

    def add(e, n):
        for row in table:
            if structural_equal(row[0], e, map_free_vars=False):
                row[1] += n
                return
        table.append([e, n, False])

    for st in stores:
        for e in _largest(st.value) + [x for i in st.indices for x in _largest(i)]:
            add(e, 1)
    while True:  # expand the most complex first: its sub-computations' counts are then final
        todo = [r for r in table if not r[2]]
        if not todo:
            break
        row = max(todo, key=lambda r: _complexity(r[0]))
        row[2] = True
        if row[1] < thresh:
            for sub in _direct_subexprs(row[0]):
                add(sub, row[1])
    keep = [r[0] for r in table if r[1] >= thresh]
    chosen: List[PrimExpr] = []
    for st in stores:
        def visit(x):
            if not isinstance(x, PrimExpr):
                return
            for e in keep:
                if structural_equal(x, e, map_free_vars=False) and all(c is not e for c in chosen):
                    chosen.append(e)
        post_order_visit(st.value, visit)
    chosen = [e for e in chosen if collect_vars(e) and collect_vars(e) <= set(ivs)]
    chosen.sort(key=_complexity, reverse=True)  # stable: program order among equals
    return chosen


class _Replace(Mutator):
    def __init__(self, expr: PrimExpr, load: BufferLoad):
        self.expr, self.load = expr, load

    def visit(self, x):
        if isinstance(x, PrimExpr) and structural_equal(x, self.expr, map_free_vars=False):
            return self.load
        return super().visit(x)


def cache_index(state: ScheduleState, block_rv: BlockRV, storage_scope: str,
                cse_thresh: int = 0) -> List[BlockRV]:
    """Precompute the pure computations of ``block``'s iterators its stores use (each one
    seen at least ``cse_thresh`` times) into ``storage_scope`` buffers ``index_var_<k>``,
    filled by blocks ``index_<k>`` placed before the block's loop nest, and make the block
    load them. Returns the new blocks.

    Before::

        for i, j in T.grid(80, 80):
            with T.block("A"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi // 4 + vj // 4, vj // 2]

    After ``cache_index(A, "global")``::

        index_var_0 = T.alloc_buffer((80, 80), "int32")
        index_var_1 = T.alloc_buffer((80,), "int32", strides=(1,))
        for ax0, ax1 in T.grid(80, 80):
            with T.block("index_0"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                index_var_0[v0, v1] = v0 // 4 + v1 // 4
        for ax0 in range(80):
            with T.block("index_1"):
                v0 = T.axis.spatial(80, ax0)
                index_var_1[v0] = v0 // 2
        for i, j in T.grid(80, 80):
            with T.block("A"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[index_var_0[vi, vj], index_var_1[vj]]
    """
    prim = "cache_index"
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    check_scope(prim, what, storage_scope)
    if not isinstance(cse_thresh, int) or cse_thresh < 0:
        raise fail(prim, what, f"cse_thresh must be a non-negative int, got {cse_thresh!r}")
    stores: List[BufferStore] = []
    post_order_visit(block.body, lambda x: stores.append(x) if isinstance(x, BufferStore)
                     else None)
    bind = {iv.var: v for iv, v in zip(block.iter_vars, realize.iter_values)}
    exprs = _select(stores, bind, cse_thresh)
    if not exprs:
        return []
    ensure_root_block(state)
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    si = scope_index(path)
    loops = {lp.loop_var: lp for lp in path[si + 1:-1] if isinstance(lp, For)}
    dom = loop_domains(path)
    stages: List[Stmt] = []
    new_bufs: List[Buffer] = []
    out: List[BlockRV] = []
    body = realize.block.body
    names = state.block_names()
    for k, e in enumerate(exprs):
        bvars = [x for x in _vars_in_order(e) if x in bind]
        lvars: List[Var] = []
        for v in bvars:
            lvars += [x for x in _vars_in_order(bind[v]) if all(x is not y for y in lvars)]
        if any(v not in loops for v in lvars) or any(
                collect_vars(loops[v].min) | collect_vars(loops[v].extent) for v in lvars):
            raise fail(prim, what, f"the iterators of {e} are bound to loops cache_index "
                       "cannot copy (loops outside the scope, or of varying range)")
        pred_vars = collect_vars(realize.predicate)
        if not is_true(realize.predicate) and not pred_vars <= set(lvars):
            raise fail(prim, what, f"the block predicate involves loops {e} does not use")
        shape = []
        for v in bvars:
            r = relax_indices([bind[v]], {x: dom[x] for x in lvars}, {})[0]
            if not isinstance(simplify(r.min), IntImm) or simplify(r.min).value < 0:
                raise fail(prim, what, f'iterator "{v.name}" may be negative')
            shape.append(simplify(_op.add(r.min, r.extent)))
        name = f"index_var_{k}"
        # classic gives every index buffer strides [1]; right for one dimension only
        buf = decl_buffer(tuple(shape), e.dtype, name, strides=[1] if len(shape) == 1 else None,
                          scope=storage_scope)
        new_bufs.append(buf)
        axes = {x: Var(f"ax{i}", x.dtype) for i, x in enumerate(lvars)}
        ivs = [IterVar(bvars_dom, Var(f"v{i}", v.dtype), IterVarType.DataPar)
               for i, (v, bvars_dom) in enumerate(
                   (v, next(iv.dom for iv in block.iter_vars if iv.var is v)) for v in bvars)]
        idx = tuple(iv.var for iv in ivs)
        value = substitute(e, {v: iv.var for v, iv in zip(bvars, ivs)})
        bname = f"index_{k}"
        j = 1
        while bname in names:
            bname, j = f"index_{k}_{j}", j + 1
        names.add(bname)
        blk = Block(tuple(ivs), (), (BufferRegion(buf, tuple(Range(i, IntImm(i.dtype, 1))
                                                          for i in idx)),),
                    bname, BufferStore(buf, value, idx))
        stage: Stmt = BlockRealize(tuple(substitute(bind[v], axes) for v in bvars),
                                   substitute(realize.predicate, axes), blk)
        for x in reversed(lvars):
            stage = For(axes[x], loops[x].min, loops[x].extent, ForKind.SERIAL, stage)
        stages.append(stage)
        out.append(BlockRV(bname, block_rv.func_name))
        load = BufferLoad(buf, tuple(bvars))
        body = _replace_in_stores(body, e, load)
    new_realize = with_block(realize, body=body)
    new_scope = _rebuild_scope(path[si:], new_realize, stages)
    new_scope = with_block(new_scope, alloc_buffers=new_scope.block.alloc_buffers
                           + tuple(new_bufs))
    replace(state, path[:si + 1], new_scope)
    return out


def _vars_in_order(e) -> List[Var]:
    """The variables of ``e``, each once, in post order."""
    out: List[Var] = []
    post_order_visit(e, lambda x: out.append(x) if isinstance(x, Var)
                     and all(x is not y for y in out) else None)
    return out


def _replace_in_stores(body: Stmt, e: PrimExpr, load: BufferLoad) -> Stmt:
    class _Stores(Mutator):
        def visit_BufferStore(self, s):
            return _Replace(e, load).visit(s)

    return _Stores().visit(body)


def _rebuild_scope(spath, new_realize: BlockRealize, stages: List[Stmt]) -> BlockRealize:
    """The scope realize ``spath[0]`` with the block replaced and ``stages`` placed before
    the scope-level statement that holds it."""
    scope = spath[0]
    p = find_path(scope, lambda x: x is spath[-1])
    top_body = scope.block.body
    items = list(top_body.seq) if isinstance(top_body, SeqStmt) else [top_body]
    top = next(i for i, s in enumerate(items) if any(s is x for x in p))
    items[top] = rebuild(p[p.index(items[top]):], new_realize)
    return with_block(scope, body=SeqStmt.flatten(*items[:top], *stages, *items[top:]))
