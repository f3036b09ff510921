"""``rfactor``: split a reduction into per-lane partial results and a final combine."""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, Tuple

from ...ir.structural import structural_equal
from .. import op as _op
from ..analysis import block_regions
from ..buffer import Buffer
from ..expr import (
    Add,
    And,
    BufferLoad,
    IntImm,
    IterVar,
    IterVarType,
    Max,
    Min,
    Mul,
    PrimExpr,
    Range,
    Var,
)
from ..functor import collect_vars, substitute
from ..stmt import Block, BlockRealize, BufferStore, For, SeqStmt, Stmt
from .error import fail
from .state import (
    BlockRV,
    LoopRV,
    ScheduleState,
    add_alloc,
    child_blocks,
    conj,
    find_path,
    loop_domains,
    loops_above,
    replace,
    simplify,
)

_COMBINERS: Dict[type, Callable] = {Add: _op.add, Mul: _op.mul, Min: _op.min, Max: _op.max}
# the combiner's identity: what each partial starts from (a user init may be anything; it
# belongs to the write-back block only, once per output element)
_IDENTITIES: Dict[type, Callable[[str], PrimExpr]] = {
    Add: lambda dt: _op.const(0, dt), Mul: lambda dt: _op.const(1, dt),
    Min: _op.max_value, Max: _op.min_value}


def _conjuncts(e) -> list:
    if isinstance(e, And):
        return _conjuncts(e.a) + _conjuncts(e.b)
    return [e]


def _match_reduction(block: Block, prim: str, what: str):
    """``(buffer, indices, combine, rhs, identity)`` of ``B[i] = B[i] <op> rhs``."""
    body, init = block.body, block.init
    if init is None:
        raise fail(prim, what, "the block is not a reduction block (it has no init)")
    if not isinstance(body, BufferStore) or not isinstance(init, BufferStore):
        raise fail(prim, what, "the block's body and init must each be a single store")
    buf, idx = body.buffer, body.indices
    comb = _COMBINERS.get(type(body.value))
    if comb is None:
        raise fail(prim, what, "the update is not a sum, product, min or max of the output "
                   "and a value")

    def is_self(e):
        return (isinstance(e, BufferLoad) and e.buffer is buf and len(e.indices) == len(idx)
                and all(a is b or _same(a, b) for a, b in zip(e.indices, idx)))

    v = body.value
    if is_self(v.a):
        rhs = v.b
    elif is_self(v.b):
        rhs = v.a
    else:
        raise fail(prim, what, "the update does not combine the output element with a value")
    if init.buffer is not buf or not all(_same(a, b) for a, b in zip(init.indices, idx)):
        raise fail(prim, what, "the init does not store to the updated element")
    return buf, idx, comb, rhs, init.value


def _same(a, b) -> bool:
    return a is b or structural_equal(a, b, map_free_vars=False)


def rfactor(state: ScheduleState, loop_rv: LoopRV, factor_axis: int) -> BlockRV:
    """Factor the reduction of the block under ``loop`` (a reduction loop): a new block
    ``<block>_rf`` accumulates one partial result per iteration of ``loop`` into
    ``<buffer>_rf`` (the loop's axis inserted at ``factor_axis``), and the original block
    becomes the combine of those partials. Returns the ``_rf`` block.

    Before::

        for i, k in T.grid(8, 16):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = 0.0
                B[vi] = B[vi] + A[vi, vk]

    After splitting ``k`` by 4 and ``rfactor(k_1, 0)``::

        for i, k_0, k_1 in T.grid(8, 4, 4):
            with T.block("B_rf"):
                vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
                with T.init():
                    B_rf[vk_1, vi] = 0.0
                B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 4 + vk_1]
        for i, k_1 in T.grid(8, 4):
            with T.block("B"):
                vi, vk_1 = T.axis.remap("SR", [i, k_1])
                with T.init():
                    B[vi] = 0.0
                B[vi] = B[vi] + B_rf[vk_1, vi]
    """
    prim = "rfactor"
    lpath = state.loop_path(loop_rv, prim)
    loop: For = lpath[-1]
    lwhat = f'loop "{loop.loop_var.name}"'
    blocks = child_blocks(loop)
    if len(blocks) != 1:
        raise fail(prim, lwhat, f"the loop must hold exactly one block, it holds {len(blocks)}")
    realize = blocks[0]
    block = realize.block
    what = f'block "{block.name_hint}" at loop "{loop.loop_var.name}"'
    buf, idx, comb, rhs, identity = _match_reduction(block, prim, what)
    if not (isinstance(loop.min, IntImm) and loop.min.value == 0):
        raise fail(prim, what, "the loop must start at 0")
    bpath = state.block_path(BlockRV(block.name_hint), prim)
    loops = loops_above(bpath)
    red_vars, sp_vars = set(), set()
    for iv, val in zip(block.iter_vars, realize.iter_values):
        (red_vars if iv.iter_type == IterVarType.CommReduce else sp_vars).update(
            collect_vars(val))
        if iv.iter_type not in (IterVarType.CommReduce, IterVarType.DataPar):
            raise fail(prim, what, f'iterator "{iv.var.name}" is neither spatial nor reduction')
    r = loop.loop_var
    if r not in red_vars:
        raise fail(prim, what, "the loop does not iterate over a reduction iterator")
    mixed = red_vars & sp_vars & {lp.loop_var for lp in loops}
    if mixed:
        raise fail(prim, what, f'loop "{next(iter(mixed)).name}" feeds both spatial and '
                   "reduction iterators")
    ndim = len(idx)
    if not isinstance(factor_axis, int) or not -(ndim + 1) <= factor_axis <= ndim:
        raise fail(prim, what, f"factor_axis {factor_axis!r} is out of range for a "
                   f"{ndim}-dimensional output")
    fa = factor_axis + ndim + 1 if factor_axis < 0 else factor_axis

    rf_shape = tuple(buf.shape[:fa]) + (loop.extent,) + tuple(buf.shape[fa:])
    rf_name = f"{buf.name}_rf"
    rf_buf = Buffer(Var(rf_name, "handle"), buf.dtype, rf_shape, (), IntImm("int32", 0),
                    rf_name, buf.data_alignment, buf.offset_factor, "global")
    dt = r.dtype

    # ---- the rfactor block: one iterator per loop feeding the reduction
    vr = Var(f"v{r.name}", dt)
    new_ivs: List[IterVar] = [IterVar(Range(IntImm(dt, 0), loop.extent), vr,
                                      IterVarType.DataPar)]
    new_vals: List[PrimExpr] = [r]
    lvmap: Dict[Var, PrimExpr] = {r: vr}
    red_ivs = []
    for lp in loops:
        if lp.loop_var in red_vars and lp.loop_var is not r:
            v = Var(f"v{lp.loop_var.name}", lp.loop_var.dtype)
            lvmap[lp.loop_var] = v
            red_ivs.append((IterVar(Range(lp.min, lp.extent), v, IterVarType.CommReduce),
                            lp.loop_var))
    sp_ivs = [(iv, val) for iv, val in zip(block.iter_vars, realize.iter_values)
              if iv.iter_type == IterVarType.DataPar]
    ivmap = {}
    for iv, val in zip(block.iter_vars, realize.iter_values):
        if iv.iter_type == IterVarType.CommReduce:
            ivmap[iv.var] = substitute(val, lvmap)
    rf_idx = tuple(idx[:fa]) + (vr,) + tuple(idx[fa:])
    rf_body = BufferStore(rf_buf, comb(rf_buf[rf_idx], substitute(rhs, ivmap)), rf_idx)
    rf_init = BufferStore(rf_buf, _IDENTITIES[type(block.body.value)](buf.dtype), rf_idx)
    all_ivs = tuple(new_ivs) + tuple(iv for iv, _ in sp_ivs) + tuple(iv for iv, _ in red_ivs)
    all_vals = tuple(new_vals) + tuple(v for _, v in sp_ivs) + tuple(lv for _, lv in red_ivs)
    rf_block_name = state.fresh_block_name(f"{block.name_hint}_rf")
    rf_block = Block(all_ivs, (), (), rf_block_name, rf_body, rf_init, (), (),
                     block.annotations)
    reads, writes = block_regions(rf_block)
    rf_block = dataclasses.replace(rf_block, reads=reads, writes=writes)
    rf_realize = BlockRealize(all_vals, realize.predicate, rf_block)

    # ---- the write-back block, after the outermost loop that feeds the reduction
    top = next(i for i, lp in enumerate(loops) if lp.loop_var in red_vars)
    copies: Dict[Var, Var] = {}
    copied: List[Tuple[For, Var]] = []
    for lp in loops[top:]:
        if lp.loop_var in sp_vars or lp.loop_var is r:
            nv = Var(lp.loop_var.name, lp.loop_var.dtype)
            copies[lp.loop_var] = nv
            copied.append((lp, nv))
    wb_ivs, wb_vals, wb_map = [], [], {}
    for iv, val in sp_ivs:
        nv = Var(iv.var.name, iv.var.dtype)
        wb_map[iv.var] = nv
        wb_ivs.append(IterVar(iv.dom, nv, IterVarType.DataPar))
        wb_vals.append(substitute(val, copies))
    vr_wb = Var(f"v{r.name}", dt)
    wb_ivs.append(IterVar(Range(IntImm(dt, 0), loop.extent), vr_wb, IterVarType.CommReduce))
    wb_vals.append(copies[r])
    # a partial result exists where the rf block ran its init: where the predicate holds with
    # the other reduction loops at their minimum (exact for the monotone guards split adds)
    inner_vars = {lp.loop_var for lp in loops[top:]}
    at_min = {lp.loop_var: lp.min for lp in loops
              if lp.loop_var in red_vars and lp.loop_var is not r}
    pred = IntImm("bool", 1)
    for c in _conjuncts(realize.predicate):
        cv = collect_vars(c) & inner_vars
        if cv - set(copies) - set(at_min):
            continue
        pred = conj(pred, substitute(substitute(c, at_min), copies))
    if not (isinstance(pred, IntImm) and pred.value):
        wdom = loop_domains(bpath[:-1])
        wdom.update({nv: Range(lp.min, lp.extent) for lp, nv in copied})
        pred = simplify(pred, wdom)
        if isinstance(pred, IntImm) and pred.value:
            pred = IntImm("bool", 1)
    out_idx = tuple(substitute(i, wb_map) for i in idx)
    wb_rf_idx = tuple(out_idx[:fa]) + (vr_wb,) + tuple(out_idx[fa:])
    wb_body = BufferStore(buf, comb(buf[out_idx], rf_buf[wb_rf_idx]), out_idx)
    wb_init = BufferStore(buf, identity, out_idx)
    wb_block = Block(tuple(wb_ivs), (), (), block.name_hint, wb_body, wb_init, (), (),
                     block.annotations)
    reads, writes = block_regions(wb_block)
    wb_block = dataclasses.replace(wb_block, reads=reads, writes=writes)
    wb: Stmt = BlockRealize(tuple(wb_vals), pred, wb_block)
    for lp, nv in reversed(copied):
        wb = For(nv, lp.min, lp.extent, lp.kind, wb, lp.thread_binding, lp.annotations)

    # ---- rewrite: the rf block replaces the original, the write-back follows loops[top]
    replace(state, bpath, rf_realize)
    tpath = find_path(state.body, lambda s: isinstance(s, For)
                      and s.loop_var is loops[top].loop_var)
    top_loop = tpath[-1]
    parent = tpath[-2] if len(tpath) > 1 else None
    if isinstance(parent, SeqStmt):
        items = []
        for s in parent.seq:
            items.append(s)
            if s is top_loop:
                items.append(wb)
        replace(state, tpath[:-1], SeqStmt.flatten(*items))
    else:
        replace(state, tpath, SeqStmt.flatten(top_loop, wb))
    add_alloc(state, rf_buf)
    return BlockRV(rf_block_name, loop_rv.func_name)
