"""``decompose_padding``: split a padding block into a constant fill and an in-bound copy."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

from ..expr import GE, GT, LE, LT, And, Call, IntImm, IterVar, IterVarType, PrimExpr, Range, Var
from ..functor import collect_vars, post_order_visit, substitute
from ..stmt import Block, BlockRealize, BufferRegion, BufferStore, For, ForKind, SeqStmt
from .error import ScheduleError, fail
from .state import (
    BlockRV,
    LoopRV,
    ScheduleState,
    analyzer,
    buffers_written,
    conj,
    loops_above,
    rebuild,
    replace,
    walk_stmts,
)

PRIM = "decompose_padding"


def decompose_padding(state: ScheduleState, block_rv: BlockRV, loop_rv: LoopRV,
                      check_only: bool = False) -> Optional[BlockRV]:
    """Split the padding block ``block`` (``buf[...] = T.if_then_else(cond, value, const)``)
    into a block ``<name>_pad_const`` filling ``buf`` with the constant, inserted before
    ``loop`` under copies of the loops between ``loop`` and the block, and the block itself
    shrunk to the in-bound region, storing ``value``. Its iterators start at the in-bound
    region's low end; a loop driving one iterator alone (with nothing else under it) is shrunk,
    any other binding keeps ``cond`` as the block's predicate. Returns the constant block.

    Before::

        for i in range(140):
            with T.block("block"):
                vi = T.axis.remap("S", [i])
                y[vi] = T.if_then_else(vi >= 6 and vi < 134, x[vi - 6], 0)

    After ``decompose_padding(block, i)``::

        for i in range(140):
            with T.block("block_pad_const"):
                vi = T.axis.spatial(140, i)
                y[vi] = 0
        for i in range(128):
            with T.block("block"):
                vi = T.axis.spatial(128, i)
                y[vi + 6] = x[vi]

    Trace instruction ``DecomposePadding`` (inputs block, loop; no attributes).
    """
    path = state.block_path(block_rv, PRIM)
    realize = path[-1]
    block = realize.block
    lpath = state.loop_path(loop_rv, PRIM)
    const_pos = lpath[-1]
    what = f'block "{block.name_hint}" at loop "{const_pos.loop_var.name}"'
    loops = loops_above(path)
    if not any(lp is const_pos for lp in loops):
        raise fail(PRIM, what, "the loop is not an ancestor of the block")
    _check_complete(state, block, what)
    store, cond, value, pad_value = _match_pattern(block, what)

    # the loops from the const-fill position down to the block, and the highest of them
    # holding nothing but the block (the in-bound nest is rebuilt from there)
    c_idx = next(i for i, lp in enumerate(loops) if lp is const_pos)
    sub = loops[c_idx:]
    # (none when the innermost loop holds more than the block: then it is left as it is)
    b_idx = len(sub)
    while b_idx > 0 and sub[b_idx - 1].body is (sub[b_idx] if b_idx < len(sub) else realize):
        b_idx -= 1
    dom = {lp.loop_var: Range(lp.min, lp.extent) for lp in loops}
    for lp in loops:
        if collect_vars(lp.min) or collect_vars(lp.extent):
            raise fail(PRIM, what, f'loop "{lp.loop_var.name}" has a symbolic range '
                       "(tvmlite needs constant loop ranges here)")
    ana = analyzer(dom)
    bind = {iv.var: v for iv, v in zip(block.iter_vars, realize.iter_values)}
    pred = ana.simplify(_conjunction(_conjuncts(substitute(cond, bind))
                                     + _conjuncts(realize.predicate)))
    if ana.can_prove(pred):
        raise fail(PRIM, what, "the in-bound predicate is trivial (there is no padding)")
    region = _in_bound_region(ana, realize, pred, what)
    if check_only:
        return None

    # the constant fill: the block's iterators and store, loops copied
    name = state.fresh_block_name(block.name_hint + "_pad_const")
    ivmap: Dict[Var, PrimExpr] = {}
    new_ivs = []
    for iv in block.iter_vars:
        nv = Var(iv.var.name, iv.var.dtype)
        ivmap[iv.var] = nv
        new_ivs.append(IterVar(iv.dom, nv, IterVarType.DataPar))
    lmap: Dict[Var, PrimExpr] = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype)
                                 for lp in sub}
    const_block = Block(
        tuple(new_ivs), (), tuple(_sub_region(w, ivmap, ana) for w in block.writes), name,
        BufferStore(store.buffer, pad_value,
                    tuple(ana.simplify(substitute(i, ivmap)) for i in store.indices)))
    nest = BlockRealize(tuple(ana.simplify(substitute(v, lmap)) for v in realize.iter_values),
                        substitute(realize.predicate, lmap), const_block)
    for lp in reversed(sub):
        nest = For(lmap[lp.loop_var], lp.min, lp.extent, ForKind.SERIAL, nest)

    # the in-bound copy: iterators re-based on the region, lone loops shrunk
    inner = {lp.loop_var: lp for lp in sub[b_idx:]}
    users: Dict[Var, int] = {}
    for v in realize.iter_values:
        for x in collect_vars(v):
            users[x] = users.get(x, 0) + 1
    new_dom = dict(dom)
    lshift: Dict[Var, PrimExpr] = {}
    ivmap = {}
    new_ivs, new_values = [], []
    for iv, v, (lo, ext) in zip(block.iter_vars, realize.iter_values, region):
        nv = Var(iv.var.name, iv.var.dtype)
        new_ivs.append(IterVar(Range(IntImm(nv.dtype, 0), IntImm(nv.dtype, ext)), nv,
                               IterVarType.DataPar))
        ivmap[iv.var] = nv + lo if lo else nv
        if isinstance(v, Var) and v in inner and users.get(v) == 1 and v not in lshift:
            new_dom[v] = Range(IntImm(v.dtype, 0), IntImm(v.dtype, ext))
            lshift[v] = v + (lo - inner[v].min.value) if lo != inner[v].min.value else v
            new_values.append(v)
        else:
            new_values.append(ana.simplify(v - lo))
    ana2 = analyzer(new_dom)
    in_block = dataclasses.replace(
        block, iter_vars=tuple(new_ivs),
        reads=tuple(_sub_region(r, ivmap, ana2) for r in block.reads),
        writes=tuple(_sub_region(w, ivmap, ana2) for w in block.writes),
        body=BufferStore(store.buffer, ana2.simplify(substitute(value, ivmap)),
                         tuple(ana2.simplify(substitute(i, ivmap)) for i in store.indices)))
    in_nest = BlockRealize(tuple(new_values), ana2.simplify(substitute(pred, lshift)), in_block)
    for lp in reversed(sub[b_idx:]):
        if lp.loop_var in lshift:
            lp = dataclasses.replace(lp, min=new_dom[lp.loop_var].min,
                                     extent=new_dom[lp.loop_var].extent)
        in_nest = dataclasses.replace(lp, body=in_nest)

    # splice: the in-bound nest replaces its loop, the fill goes right before ``loop``
    p_idx = next(i for i, s in enumerate(path) if s is const_pos)
    top = sub[b_idx] if b_idx < len(sub) else realize
    q_idx = next(i for i, s in enumerate(path) if s is top)
    new_const_pos = rebuild(path[p_idx:q_idx + 1], in_nest)
    parent = path[p_idx - 1] if p_idx > 0 else None
    if isinstance(parent, SeqStmt):
        items = []
        for s in parent.seq:
            if s is const_pos:
                items.extend([nest, new_const_pos])
            else:
                items.append(s)
        replace(state, path[:p_idx], SeqStmt.flatten(*items))
    else:
        replace(state, path[:p_idx + 1], SeqStmt.flatten(nest, new_const_pos))
    return BlockRV(name, block_rv.func_name)


def _check_complete(state: ScheduleState, block: Block, what: str) -> None:
    if block.init is not None or any(iv.iter_type != IterVarType.DataPar
                                     for iv in block.iter_vars):
        raise fail(PRIM, what, "the block is not complete (it has non-spatial iterators)")
    if len(block.writes) != 1:
        raise fail(PRIM, what, f"the block writes {len(block.writes)} buffers (one expected)")
    buf = block.writes[0].buffer
    if any(r.buffer is buf for r in block.reads):
        raise fail(PRIM, what, f'the block is not complete (it reads "{buf.name}", which it '
                   "writes)")
    others = []

    def f(s):
        if isinstance(s, BlockRealize) and s.block is not block and not s.block.iter_vars \
                and s.block.name_hint == "root":
            return
        if isinstance(s, BlockRealize) and s.block is not block and \
                buf in buffers_written(s.block):
            others.append(s.block.name_hint)
    walk_stmts(state.body, f)
    if others:
        raise fail(PRIM, what, f'the block is not complete: block "{others[0]}" also writes '
                   f'"{buf.name}"')


def _match_pattern(block: Block, what: str) -> Tuple[BufferStore, PrimExpr, PrimExpr,
                                                     PrimExpr]:
    store = block.body
    if not isinstance(store, BufferStore):
        raise fail(PRIM, what, "the block does not match the padding pattern: its body is not "
                   "a BufferStore to the written buffer")
    val = store.value
    if not (isinstance(val, Call) and val.op in ("if_then_else", "tir.if_then_else")):
        raise fail(PRIM, what, "the block does not match the padding pattern: the stored value "
                   "is not T.if_then_else(predicate, value, pad_value)")
    cond, value, pad_value = val.args
    if not isinstance(pad_value, (IntImm,)) and type(pad_value).__name__ != "FloatImm":
        raise fail(PRIM, what, "the block does not match the padding pattern: the pad value "
                   "is not a constant")
    calls: List[Call] = []
    post_order_visit(value, lambda x: calls.append(x) if isinstance(x, Call)
                     and x.op not in _PURE else None)
    if calls:
        raise fail(PRIM, what, "the in-bound value calls an intrinsic that may have side "
                   f"effects ({calls[0].op})")
    return store, cond, value, pad_value


_PURE = {"if_then_else", "likely", "exp", "log", "sqrt", "fabs", "tanh", "sigmoid", "floor",
         "ceil", "round", "pow", "max_value", "min_value", "isnan", "abs"}


def _conjuncts(e: PrimExpr) -> List[PrimExpr]:
    if isinstance(e, And):
        return _conjuncts(e.a) + _conjuncts(e.b)
    if isinstance(e, Call) and e.op in ("likely", "tir.likely"):
        return _conjuncts(e.args[0])
    if isinstance(e, IntImm) and e.value:
        return []
    return [e]


def _conjunction(items: List[PrimExpr]) -> PrimExpr:
    out: PrimExpr = IntImm("bool", 1)
    for x in items:
        out = conj(out, x)
    return out


def _in_bound_region(ana, realize: BlockRealize, pred: PrimExpr,
                     what: str) -> List[Tuple[int, int]]:
    """(low, extent) of each iterator's binding where ``pred`` holds: every conjunct of
    ``pred`` must bound one binding by a constant."""
    values = realize.iter_values
    lo: List[int] = []
    hi: List[int] = []
    for v, iv in zip(values, realize.block.iter_vars):
        b = ana.const_int_bound(v)
        dmin, dext = iv.dom.min, iv.dom.extent
        if not (isinstance(dmin, IntImm) and isinstance(dext, IntImm)):
            raise fail(PRIM, what, f'iterator "{iv.var.name}" has a symbolic domain')
        lo.append(max(b.min_value, dmin.value))
        hi.append(min(b.max_value + 1, dmin.value + dext.value))
    for c in _conjuncts(pred):
        if not isinstance(c, (LT, LE, GT, GE)):
            raise fail(PRIM, what, f"block iterators are not independent with respect to the "
                       f"padding condition ({c})")
        d = c.a - c.b
        for k, v in enumerate(values):
            if not collect_vars(v):
                continue
            pos = ana.simplify(d - v)
            neg = ana.simplify(d + v)
            if isinstance(pos, IntImm):  # d = v + pos
                t = -pos.value
                if isinstance(c, LT):
                    hi[k] = min(hi[k], t)
                elif isinstance(c, LE):
                    hi[k] = min(hi[k], t + 1)
                elif isinstance(c, GT):
                    lo[k] = max(lo[k], t + 1)
                else:
                    lo[k] = max(lo[k], t)
                break
            if isinstance(neg, IntImm):  # d = pos - v
                t = neg.value
                if isinstance(c, LT):
                    lo[k] = max(lo[k], t + 1)
                elif isinstance(c, LE):
                    lo[k] = max(lo[k], t)
                elif isinstance(c, GT):
                    hi[k] = min(hi[k], t)
                else:
                    hi[k] = min(hi[k], t + 1)
                break
        else:
            raise fail(PRIM, what, f"block iterators are not independent with respect to the "
                       f"padding condition ({c})")
    out = []
    for a, b in zip(lo, hi):
        if b <= a:
            raise fail(PRIM, what, "the in-bound region is empty (the block writes padding "
                       "only)")
        out.append((a, b - a))
    return out


def _sub_region(r: BufferRegion, vmap, ana) -> BufferRegion:
    return BufferRegion(r.buffer, tuple(
        Range(ana.simplify(substitute(x.min, vmap)), ana.simplify(substitute(x.extent, vmap)))
        for x in r.region))


def can_decompose_padding(state: ScheduleState, block_rv: BlockRV, loop_rv: LoopRV) -> bool:
    """Whether :func:`decompose_padding` accepts ``block`` at ``loop`` (a stale handle is an
    error, as in classic TVM)."""
    state.block_path(block_rv, PRIM)
    state.loop_path(loop_rv, PRIM)
    try:
        decompose_padding(state, block_rv, loop_rv, check_only=True)
    except ScheduleError:
        return False
    return True

