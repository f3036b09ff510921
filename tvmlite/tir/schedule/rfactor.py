"""``rfactor``: split a reduction into per-lane partial results and a final combine."""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List

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
from ..functor import collect_vars, post_order_visit, substitute
from ..stmt import Block, BlockRealize, BufferStore, For, ForKind, SeqStmt, Stmt
from .error import fail
from .state import (
    BlockRV,
    LoopRV,
    ScheduleState,
    _with_child,
    add_alloc,
    child_blocks,
    conj,
    is_one,
    is_quasi_affine,
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


def _ordered_vars(e) -> List[Var]:
    out: List[Var] = []
    post_order_visit(e, lambda x: out.append(x) if isinstance(x, Var) and x not in out else None)
    return out


def _check_reduction_block(block: Block, realize: BlockRealize, idx, prim: str,
                           what: str) -> None:
    """Conditions classic TVM puts on a block it factors: quasi-affine bindings and output
    indices free of reduction iterators. (An init other than the combiner's identity is
    accepted: it goes to the write-back block only, which is exact.)"""
    loop_vars = set()
    for v in realize.iter_values:
        loop_vars |= collect_vars(v)
    for iv, val in zip(block.iter_vars, realize.iter_values):
        if not is_quasi_affine(val, loop_vars):
            raise fail(prim, what, f'the binding of iterator "{iv.var.name}", {val!r}, is not '
                       "quasi-affine")
    red = {iv.var for iv in block.iter_vars if iv.iter_type == IterVarType.CommReduce}
    for i in idx:
        if collect_vars(i) & red:
            raise fail(prim, what, f"the output index {i!r} uses a reduction iterator")


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
    if loop.kind != ForKind.SERIAL:
        raise fail(prim, what, f"the loop is {loop.kind.name.lower()}, rfactor needs a serial "
                   "loop")
    if r in sp_vars:
        raise fail(prim, what, "the loop does not iterate over a reduction iterator (it binds a "
                   "spatial one)")
    if r not in red_vars and not is_one(loop.extent):
        raise fail(prim, what, "the loop does not iterate over a reduction iterator")
    mixed = red_vars & sp_vars & {lp.loop_var for lp in loops}
    if mixed:
        raise fail(prim, what, f'loop "{next(iter(mixed)).name}" feeds both spatial and '
                   "reduction iterators")
    _check_reduction_block(block, realize, idx, prim, what)
    # the rfactor nest runs before the whole outermost loop (as in classic TVM, which computes
    # this case wrongly): a block under that loop must not write what the reduction reads
    reads = {r.buffer for r in block.reads}
    for other in child_blocks(loops[0]):
        if other is not realize:
            hit = next((w.buffer for w in other.block.writes if w.buffer in reads), None)
            if hit is not None:
                raise fail(prim, what, f'block "{other.block.name_hint}" under loop '
                           f'"{loops[0].loop_var.name}", the outermost loop of the block, '
                           f'writes "{hit.name}" that the block reads, and the rfactor block '
                           "would run before it")
    first_red = next((k for k, lp in enumerate(loops) if lp.loop_var in red_vars), None)
    if first_red is not None:
        if len(child_blocks(loops[first_red])) != 1:
            raise fail(prim, what, f'loop "{loops[first_red].loop_var.name}", the outermost '
                       "loop feeding the reduction, must hold only this block")
        for lp in loops[first_red:]:
            if (lp.loop_var not in red_vars and lp.loop_var not in sp_vars
                    and not is_one(lp.extent)):
                raise fail(prim, what, f'loop "{lp.loop_var.name}" under a reduction loop binds '
                           "no block iterator and its extent is not 1")
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
    loop_of = {lp.loop_var: lp for lp in loops}

    # ---- the rfactor block: an iterator for the rfactor loop, then the block's iterators in
    # order, those reduction iterators that use the rfactor loop replaced by one reduction
    # iterator per loop their binding uses
    vr = Var(f"v{r.name}", dt)
    rf_ivs: List[IterVar] = [IterVar(Range(loop.min, loop.extent), vr, IterVarType.DataPar)]
    rf_vals: List[PrimExpr] = [r]
    lvmap: Dict[Var, PrimExpr] = {r: vr}
    ivmap: Dict[Var, PrimExpr] = {}
    for iv, val in zip(block.iter_vars, realize.iter_values):
        if iv.iter_type == IterVarType.DataPar or r not in collect_vars(val):
            rf_ivs.append(iv)
            rf_vals.append(val)
            continue
        for v in _ordered_vars(val):
            lp = loop_of.get(v)
            if lp is None or v in lvmap:
                continue
            nv = Var(f"v{v.name}", v.dtype)
            lvmap[v] = nv
            rf_ivs.append(IterVar(Range(lp.min, lp.extent), nv, IterVarType.CommReduce))
            rf_vals.append(v)
        ivmap[iv.var] = substitute(val, lvmap)
    rf_idx = tuple(idx[:fa]) + (vr,) + tuple(idx[fa:])
    rf_rhs = substitute(rhs, ivmap)
    if any(iv.iter_type == IterVarType.CommReduce for iv in rf_ivs):
        rf_body = BufferStore(rf_buf, comb(rf_buf[rf_idx], rf_rhs), rf_idx)
        rf_init = BufferStore(rf_buf, _IDENTITIES[type(block.body.value)](buf.dtype), rf_idx)
    else:  # every reduction loop is the rfactor loop: each partial is a single value
        rf_body, rf_init = BufferStore(rf_buf, rf_rhs, rf_idx), None
    rf_block_name = state.fresh_block_name(f"{block.name_hint}_rf")
    rf_block = Block(tuple(rf_ivs), (), (), rf_block_name, rf_body, rf_init, (), (),
                     block.annotations)
    reads, writes = block_regions(rf_block)
    rf_block = dataclasses.replace(rf_block, reads=reads, writes=writes)
    # the rfactor block runs under fresh copies of all the block's loops
    copies = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in loops}
    rf: Stmt = BlockRealize(tuple(substitute(v, copies) for v in rf_vals),
                            substitute(realize.predicate, copies), rf_block)
    for lp in reversed(loops):
        rf = For(copies[lp.loop_var], lp.min, lp.extent, lp.kind, rf, lp.thread_binding,
                 lp.annotations)

    # ---- the write-back block: the rfactor iterator, then the spatial ones; it keeps the
    # original loops except those feeding only the reduction (the rfactor loop stays)
    vr_wb = Var(f"v{r.name}", dt)
    wb_ivs = [IterVar(Range(loop.min, loop.extent), vr_wb, IterVarType.CommReduce)]
    wb_vals: List[PrimExpr] = [r]
    wb_map: Dict[Var, PrimExpr] = {}
    for iv, val in zip(block.iter_vars, realize.iter_values):
        if iv.iter_type == IterVarType.DataPar:
            nv = Var(iv.var.name, iv.var.dtype)
            wb_map[iv.var] = nv
            wb_ivs.append(IterVar(iv.dom, nv, IterVarType.DataPar))
            wb_vals.append(val)
    dropped = {lp.loop_var for lp in loops if lp.loop_var in red_vars and lp.loop_var is not r}
    # a partial result exists where the rf block ran its init: where the predicate holds with
    # the other reduction loops at their minimum (exact for the monotone guards split adds)
    at_min = {v: loop_of[v].min for v in dropped}
    pred = IntImm("bool", 1)
    for c in _conjuncts(realize.predicate):
        if not collect_vars(c) & dropped:
            pred = conj(pred, c)
        elif not collect_vars(c) - set(loop_of):
            pred = conj(pred, substitute(c, at_min))
    if not (isinstance(pred, IntImm) and pred.value):
        pred = simplify(pred, loop_domains(bpath[:-1]))
        if isinstance(pred, IntImm) and pred.value:
            pred = IntImm("bool", 1)
    out_idx = tuple(substitute(i, wb_map) for i in idx)
    wb_rf_idx = tuple(out_idx[:fa]) + (vr_wb,) + tuple(out_idx[fa:])
    wb_body = BufferStore(buf, comb(buf[out_idx], rf_buf[wb_rf_idx]), out_idx)
    wb_init = BufferStore(buf, substitute(identity, wb_map), out_idx)
    wb_block = Block(tuple(wb_ivs), (), (), block.name_hint, wb_body, wb_init, (), (),
                     block.annotations)
    reads, writes = block_regions(wb_block)
    wb_block = dataclasses.replace(wb_block, reads=reads, writes=writes)
    wb: Stmt = BlockRealize(tuple(wb_vals), pred, wb_block)

    # ---- rewrite: the rfactor nest, then the original outermost loop around the write-back
    top = next(k for k, s in enumerate(bpath) if s is loops[0])
    old: Stmt = realize
    for s in reversed(bpath[top:-1]):
        if isinstance(s, For) and s.loop_var in dropped:
            if s.body is not old:
                raise fail(prim, what, f'loop "{s.loop_var.name}" feeds the reduction and '
                           "holds other statements")
        else:
            wb = _with_child(s, old, wb)
        old = s
    replace(state, bpath[:top + 1], SeqStmt.flatten(rf, wb))
    add_alloc(state, rf_buf)
    return BlockRV(rf_block_name, loop_rv.func_name)
