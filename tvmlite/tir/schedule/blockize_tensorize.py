"""``blockize`` and ``tensorize``: turn a loop nest into a block, and a block into a call of a
hardware (or hand-written) intrinsic.

``blockize(loop)`` wraps the loops from ``loop`` down to the single block below it in a new
*outer* block. Each block iterator's binding is divided into an outer part (loops above
``loop``) and an inner part (loops from ``loop`` down)::

    for i_0, j_0, i_1, j_1 in T.grid(8, 8, 16, 16):
        with T.block("C"):
            vi = T.axis.spatial(128, i_0 * 16 + i_1) ...

after ``blockize(i_1)``::

    for i_0, j_0 in T.grid(8, 8):
        with T.block("C_o"):
            vi_o = T.axis.spatial(8, i_0) ...
            for i_1, j_1 in T.grid(16, 16):
                with T.block("C"):
                    vi_i = T.axis.spatial(16, i_1) ...
                    C[vi_o * 16 + vi_i, ...] = ...

A reduction's ``T.init`` moves to the outer block (a loop nest over the inner spatial
iterators), so the tile is initialised once however the reduction is split.

``tensorize`` blockizes (when given a loop), checks that the outer block computes what the
intrinsic's *description* computes — same loop extents, same statements, with every access of
a description buffer at a fixed offset of one of the block's buffers — and replaces the block's
body by the intrinsic's *implementation*. As in classic TVM, the implementation's buffers
become ``T.match_buffer`` views of the matched regions declared by the block (lowering binds
their ``data``, ``elem_offset``, strides and shape); TE's tensor intrinsics (reset/update
bodies) have theirs substituted directly (loads re-indexed).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

from ...arith.int_set import relax_region
from ...ir.module import IRModule
from .. import op as _op
from ..analysis import block_regions
from ..buffer import Buffer
from ..expr import (
    BinaryOpExpr,
    BufferLoad,
    Call,
    CmpExpr,
    IntImm,
    IterVar,
    IterVarType,
    PrimExpr,
    Range,
    Select,
    Var,
)
from ..function import PrimFunc
from ..functor import Mutator, collect_vars, substitute
from ..stmt import (
    Block,
    BlockRealize,
    BufferRegion,
    BufferStore,
    For,
    IfThenElse,
    MatchBufferRegion,
    Stmt,
)
from ..stmt_util import hoist_init
from .error import fail
from .state import (
    BlockRV,
    LoopRV,
    ScheduleState,
    can_prove,
    const_value,
    is_one,
    is_true,
    loop_domains,
    replace,
    simplify,
)


# --------------------------------------------------------------------------- blockize
def _loop_nest(s: Stmt) -> Tuple[List[For], Stmt]:
    """The loops of the perfect nest that starts at ``s``, and the statement under them."""
    loops: List[For] = []
    while isinstance(s, For):
        loops.append(s)
        s = s.body
    return loops, s


def _perfect_nest(loop: For, prim: str) -> Tuple[List[For], BlockRealize]:
    loops, s = _loop_nest(loop)
    if not isinstance(s, BlockRealize):
        raise fail(prim, f'loop "{loop.loop_var.name}"', "the loops under it must form a "
                   "perfect nest over exactly one block")
    return loops, s


def _divide_binding(iv: IterVar, value: PrimExpr, inner: Dict[Var, Range],
                    outer: Dict[Var, Range], prim: str, what: str,
                    preserve_unit_iters: bool = True):
    """``(outer_binding, outer_extent, inner_binding, inner_extent)`` with
    ``value == outer_binding * inner_extent + inner_binding``; a part is None when absent.

    With ``preserve_unit_iters`` a part of extent 1 stays (bound to its unit loops, which are
    not simplified away); without it such a part is absent: its only value, 0, is folded into
    the other part, and an iterator with both parts absent is the constant 0."""
    ob, on, ib, inn = _divide(iv, value, inner, outer, prim, what, preserve_unit_iters)
    if preserve_unit_iters:
        return ob, on, ib, inn
    if ib is not None and inn == 1:
        ib = None
    if ob is not None and on == 1:
        ob = None
    return ob, on, ib, inn


def _divide(iv: IterVar, value: PrimExpr, inner: Dict[Var, Range], outer: Dict[Var, Range],
            prim: str, what: str, keep_unit_loops: bool):
    vs = collect_vars(value)
    ext = const_value(simplify(iv.dom.extent))
    if not (isinstance(iv.dom.min, IntImm) and iv.dom.min.value == 0) or ext is None:
        raise fail(prim, what, f"iterator {iv.var.name} must have a constant domain from 0")
    if not any(v in inner for v in vs):
        return value, ext, None, 1
    if not any(v not in inner for v in vs):
        return None, 1, value, ext
    # a unit loop stays in the inner binding when unit iterators are preserved
    sdom = {v: r for v, r in inner.items() if not (keep_unit_loops and is_one(r.extent))}
    in_part = simplify(substitute(value, {v: IntImm(v.dtype, 0) for v in vs if v not in inner}),
                       sdom)
    if keep_unit_loops:
        outer = {v: r for v, r in outer.items() if not is_one(r.extent)}
    out_part = simplify(_op.sub(value, in_part), {**outer, **inner})
    if any(v in inner for v in collect_vars(out_part)):
        raise fail(prim, what, f"the binding of {iv.var.name} ({value}) cannot be divided into "
                   "a part over the outer loops plus a part over the inner ones")

    rng = relax_region([in_part], inner)[0]
    lo, n = simplify(rng.min, inner), const_value(simplify(rng.extent, inner))
    if not (isinstance(lo, IntImm) and lo.value == 0) or n is None or ext % n:
        raise fail(prim, what, f"the inner part of {iv.var.name}'s binding ({in_part}) must "
                   f"cover 0..n-1 with n dividing {ext}")
    if not can_prove(_op.eq(_op.floormod(out_part, n), 0), outer):
        raise fail(prim, what, f"the outer part of {iv.var.name}'s binding ({out_part}) is not "
                   f"a multiple of the inner extent {n}")
    return simplify(_op.floordiv(out_part, n), outer), ext // n, in_part, n


def blockize(state: ScheduleState, loop_rv: LoopRV, preserve_unit_iters: bool = True) -> BlockRV:
    """Wrap the nest from ``loop`` down to its single block in a new outer block; returns it.

    TVM's rule for each block iterator: with no inner part (its binding uses no loop from
    ``loop`` down, or only unit ones) it moves to the outer block as it is, bound to its outer
    part; otherwise it splits into ``v_o`` in the outer block (kept even at extent 1, bound
    to 0) and ``v_i`` in the inner one. With ``preserve_unit_iters`` (TVM's default) unit
    outer loops stay in the outer bindings (``vi_o = T.axis.spatial(1, i_0)``); without it
    they are folded (``T.axis.spatial(1, 0)``)."""
    prim = "blockize"
    path = state.loop_path(loop_rv, prim)
    loop = path[-1]
    what = f'loop "{loop.loop_var.name}"'
    loops, realize = _perfect_nest(loop, prim)
    block = realize.block
    inner = {lp.loop_var: Range(lp.min, lp.extent) for lp in loops}
    outer = loop_domains(path[:-1])
    out_ivs: List[IterVar] = []
    out_vals: List[PrimExpr] = []
    in_ivs: List[IterVar] = []
    in_vals: List[PrimExpr] = []
    vmap: Dict[Var, PrimExpr] = {}
    for iv, value in zip(block.iter_vars, realize.iter_values):
        ob, on, ib, inn = _divide_binding(iv, value, inner, outer, prim, what,
                                          preserve_unit_iters)
        dt = iv.var.dtype
        if ib is None or (inn == 1 and all(is_one(inner[v].extent)
                                           for v in collect_vars(ib) if v in inner)):
            # TVM's rule: an iterator with no (or only a unit) inner part moves to the outer
            # block as it is, bound to its outer part (an inner part of extent 1 over a
            # longer loop, held to one value by the predicate, stays inside)
            out_ivs.append(iv)
            out_vals.append(ob if ob is not None else IntImm(dt, 0))
            continue
        # otherwise it splits in two; the outer one exists even at extent 1 (bound to 0)
        vo = IterVar(Range(IntImm(dt, 0), IntImm(dt, on)), Var(iv.var.name + "_o", dt),
                     iv.iter_type)
        out_ivs.append(vo)
        out_vals.append(ob if ob is not None and (preserve_unit_iters or on != 1)
                        else IntImm(dt, 0))
        vi = IterVar(Range(IntImm(dt, 0), IntImm(dt, inn)), Var(iv.var.name + "_i", dt),
                     iv.iter_type)
        in_ivs.append(vi)
        in_vals.append(ib)
        vmap[iv.var] = vi.var if on == 1 else _op.add(_op.mul(vo.var, inn), vi.var)
    pred = realize.predicate
    in_pred, out_pred = pred, IntImm("bool", 1)
    if not is_true(pred) and not any(v in inner for v in collect_vars(pred)):
        in_pred, out_pred = IntImm("bool", 1), pred
    body = substitute(block.body, vmap)
    new_inner = dataclasses.replace(block, iter_vars=tuple(in_ivs), body=body, init=None)
    dom = {iv.var: iv.dom for iv in out_ivs}
    reads, writes = block_regions(new_inner, dom)
    new_inner = dataclasses.replace(new_inner, reads=reads, writes=writes)
    nest: Stmt = BlockRealize(tuple(in_vals), in_pred, new_inner)
    for lp in reversed(loops):
        nest = dataclasses.replace(lp, body=nest)
    init = None
    if block.init is not None:
        with_init = dataclasses.replace(new_inner, init=substitute(block.init, vmap))
        init = _init_nest(state, BlockRealize(tuple(in_vals), in_pred, with_init), loops,
                          prim, what)
    name = state.fresh_block_name(block.name_hint + "_o")
    ob = Block(tuple(out_ivs), (), (), name, nest, init)
    reads, writes = block_regions(ob, outer)
    ob = dataclasses.replace(ob, reads=reads, writes=writes)
    replace(state, path, BlockRealize(tuple(out_vals), out_pred, ob))
    return BlockRV(name, state.func_name)


def _init_nest(state, inner: BlockRealize, loops: List[For], prim: str, what: str) -> Stmt:
    """The outer block's init: the inner block's init over the inner spatial loops, under the
    spatial part of its predicate (a non-divisible split's guard), by the shared
    ``hoist_init``."""
    res = hoist_init(inner, loops, 0)
    if isinstance(res, str):
        raise fail(prim, what, f"the reduction's init cannot be separated: {res}")
    nest = res[1]
    name = state.fresh_block_name(inner.block.name_hint + "_init")

    class _Rename(Mutator):
        def visit_Block(self, b):
            return dataclasses.replace(b, name_hint=name)

    return _Rename().visit(nest)


# --------------------------------------------------------------------------- matching
class _Mismatch(Exception):
    pass


def _desc_outer(func: PrimFunc, what: str) -> Block:
    """The description as one outer block (its loop nest blockized, as the scheduled side
    is), so bodies and inits compare alike."""
    body = func.body
    if isinstance(body, BlockRealize) and not body.block.iter_vars:
        body = body.block.body
    if isinstance(body, BlockRealize):
        return Block((), (), (), "desc_o", body)
    if not isinstance(body, For):
        raise ValueError(f"{what}: the description must be a loop nest over one block (under "
                         f"an optional root block)")
    st = ScheduleState(IRModule({"main": func.with_body(body)}), "main")
    rv = blockize(st, LoopRV(body.loop_var))
    outer = st.block_path(rv)[-1]
    # iterators that moved out of the nest are bound to constants: fold them in
    vals = {iv.var: v for iv, v in zip(outer.block.iter_vars, outer.iter_values)}
    init = outer.block.init
    return dataclasses.replace(outer.block, iter_vars=(), body=substitute(outer.block.body, vals),
                               init=None if init is None else substitute(init, vals))


def _flat(realize: BlockRealize, stmt: Optional[Stmt]) -> Optional[Stmt]:
    if stmt is None:
        return None
    return substitute(stmt, {iv.var: v for iv, v in zip(realize.block.iter_vars,
                                                        realize.iter_values)})


class _Match:
    """Compare a description statement with the block's, mapping description buffers to the
    block's buffers at constant-over-the-tile offsets."""

    def __init__(self, desc_bufs: Sequence[Buffer], dom: Dict[Var, Range],
                 inner_vars: set):
        self.desc_bufs = list(desc_bufs)
        self.bmap: Dict[int, Buffer] = {}
        self.start: Dict[int, List[PrimExpr]] = {}
        self.dom = dom
        self.inner = inner_vars

    def _buffer(self, d: Buffer, x: Buffer, d_idx, x_idx):
        if not any(d is b for b in self.desc_bufs):
            raise _Mismatch(f"buffer {d.name} is not a parameter of the description")
        if d.dtype != x.dtype:
            raise _Mismatch(f"{d.name} is {d.dtype} but {x.name} is {x.dtype}")
        if len(d_idx) > len(x_idx):
            raise _Mismatch(f"{d.name} has {len(d_idx)} dimensions, {x.name} only "
                            f"{len(x_idx)}")
        prev = self.bmap.setdefault(id(d), x)
        if prev is not x:
            raise _Mismatch(f"{d.name} matches both {prev.name} and {x.name}")
        # extra leading dimensions of the scheduled buffer stay fixed over the tile
        lead = len(x_idx) - len(d_idx)
        starts = [simplify(a, self.dom) for a in x_idx[:lead]]
        starts += [simplify(_op.sub(a, b), self.dom) for a, b in zip(x_idx[lead:], d_idx)]
        for s in starts:
            if collect_vars(s) & self.inner:
                raise _Mismatch(f"the accesses of {x.name} are not a shifted copy of those of "
                                f"{d.name} (offset {s} varies inside the tile)")
        old = self.start.setdefault(id(d), starts)
        if old is not starts and not all(can_prove(_op.eq(a, b), self.dom)
                                         for a, b in zip(old, starts)):
            raise _Mismatch(f"{x.name} is accessed at two different offsets")

    def eq(self, a, b) -> None:
        if isinstance(a, (BufferLoad, BufferStore)):
            if type(a) is not type(b):
                raise _Mismatch(f"{type(a).__name__} vs {type(b).__name__}")
            self._buffer(a.buffer, b.buffer, a.indices, b.indices)
            if isinstance(a, BufferStore):
                self.eq(a.value, b.value)
            return
        if isinstance(a, For):
            if not isinstance(b, For) or a.kind != b.kind:
                raise _Mismatch("loops differ")
            self.eq(a.min, b.min)
            self.eq(a.extent, b.extent)
            self.inner.add(b.loop_var)
            self.dom[b.loop_var] = Range(b.min, b.extent)
            self.eq(substitute(a.body, {a.loop_var: b.loop_var}), b.body)
            return
        if isinstance(a, Select) != isinstance(b, Select) and _is_if_then_else(
                b if isinstance(a, Select) else a):
            # the same value: a guard written as Select matches an if_then_else
            sel, ite = (a, b) if isinstance(a, Select) else (b, a)
            parts = [sel.condition, sel.true_value, sel.false_value]
            self.eq(parts if sel is a else list(ite.args), list(ite.args) if sel is a else parts)
            return
        if isinstance(a, Var):
            if not (a is b or (isinstance(b, PrimExpr) and can_prove(_op.eq(a, b), self.dom))):
                raise _Mismatch(f"variable {a.name} vs {b}")
            return
        if isinstance(a, (list, tuple)):
            if not isinstance(b, (list, tuple)) or len(a) != len(b):
                raise _Mismatch("different lengths")
            for x, y in zip(a, b):
                self.eq(x, y)
            return
        if type(a) is not type(b):
            raise _Mismatch(f"{type(a).__name__} vs {type(b).__name__}")
        if dataclasses.is_dataclass(a):
            for f in dataclasses.fields(a):
                self.eq(getattr(a, f.name), getattr(b, f.name))
            return
        if a != b:
            raise _Mismatch(f"{a!r} vs {b!r}")


def _is_if_then_else(e) -> bool:
    return isinstance(e, Call) and e.op == "if_then_else"


@dataclasses.dataclass
class Binding:
    """One implementation buffer bound to a region of a scheduled buffer."""

    impl: Buffer
    target: Buffer
    start: List[PrimExpr]


def match_intrinsic(state: ScheduleState, path: List[Stmt], desc: PrimFunc,
                    prim: str = "tensorize", split_reduction_ok: bool = False
                    ) -> Tuple[List[Optional[Tuple[Buffer, list]]], bool]:
    """Check the outer block at ``path[-1]`` computes ``desc``; returns, per description
    parameter, ``(buffer, start indices)`` (None when unused) and whether ``desc`` has an
    init."""
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    loops, s = _loop_nest(block.body)
    if not isinstance(s, BlockRealize):
        raise fail(prim, what, "the block must hold a loop nest over one block (tensorize a "
                   "loop, or blockize first)")
    d_block = _desc_outer(desc, prim)
    d_loops, d_real = _loop_nest(d_block.body)
    if not isinstance(d_real, BlockRealize):
        raise ValueError(f"{prim}: the description must be a loop nest over one block")
    if len(loops) != len(d_loops):
        raise fail(prim, what, f"the intrinsic has {len(d_loops)} loops, the block "
                   f"{len(loops)}")
    vmap: Dict[Var, PrimExpr] = {}
    for lp, dl in zip(loops, d_loops):
        e1, e2 = const_value(simplify(lp.extent)), const_value(simplify(dl.extent))
        if e1 is None or e1 != e2 or const_value(lp.min) != const_value(dl.min):
            raise fail(prim, what, f"loop {lp.loop_var.name} has extent {lp.extent}, the "
                       f"intrinsic's loop {dl.loop_var.name} {dl.extent}")
        vmap[dl.loop_var] = lp.loop_var
    vmap.update(_outer_loop_vars(realize))
    d_types = _iter_kinds(d_real.block)
    dom = {**loop_domains(path), **{iv.var: iv.dom for iv in block.iter_vars},
           **{lp.loop_var: Range(lp.min, lp.extent) for lp in loops}}
    desc_bufs = [desc.buffer_map[p] for p in desc.params if p in desc.buffer_map]
    m = _Match(desc_bufs, dom, {lp.loop_var for lp in loops})
    d_body = substitute(_flat(d_real, d_real.block.body), vmap)
    x_body = _flat(s, s.block.body)
    d_init = d_block.init
    try:
        if not is_true(s.predicate) or not is_true(d_real.predicate):
            raise _Mismatch("the block has a predicate (a non-divisible split?)")
        if d_types != _iter_kinds(s.block):
            raise _Mismatch("the iterator kinds (spatial/reduce) differ")
        m.eq(d_body, x_body)
        if d_init is not None:
            if block.init is None:
                raise _Mismatch("the intrinsic has an init, the block has none")
            if not split_reduction_ok and _reduces_outside(block):
                raise _Mismatch("the intrinsic resets its output but the block's reduction "
                                "continues outside it")
            x_init = _flat_init(block.init)
            m.eq(substitute(_flat_init(d_init), vmap), x_init)
    except _Mismatch as err:
        raise fail(prim, what, f"does not match the intrinsic's description: {err}") from None
    out = []
    for d in [desc.buffer_map.get(p) for p in desc.params]:
        if d is None or id(d) not in m.bmap:
            out.append(None)
            continue
        out.append((m.bmap[id(d)], m.start[id(d)]))
    return out, d_init is not None


def _outer_loop_vars(realize: BlockRealize) -> Dict[Var, Var]:
    """Each loop variable that an iterator of the outer block is bound to, mapped to that
    iterator: a description or implementation naming a loop around the tensorized one (TE's
    ``xo * 16 + i < m``) names it through the block."""
    return {v: iv.var for iv, v in zip(realize.block.iter_vars, realize.iter_values)
            if isinstance(v, Var)}


def _reduces_outside(block: Block) -> bool:
    """Whether the outer block's reduction continues over other values of its iterators (a
    unit reduction iterator, bound to one value, leaves the whole reduction inside)."""
    return any(iv.iter_type == IterVarType.CommReduce
               and const_value(simplify(iv.dom.extent)) != 1 for iv in block.iter_vars)


def _iter_kinds(block: Block) -> List[IterVarType]:
    """The kinds of ``block``'s iterators, sorted; unit iterators (one value, so they change
    nothing the block computes) are left out, whether the block kept them or not."""
    return sorted(iv.iter_type for iv in block.iter_vars
                  if const_value(simplify(iv.dom.extent)) != 1)


def _flat_init(init: Stmt) -> Stmt:
    """The outer init nest with its block bindings substituted and unit loops dropped (the TE
    facade's init nest omits them)."""
    class _F(Mutator):
        def visit_BlockRealize(self, r):
            return self.visit(_flat(r, r.block.body))

        def visit_For(self, s):
            if const_value(s.extent) == 1:
                return self.visit(substitute(s.body, {s.loop_var: s.min}))
            return self.generic(s)

    return _F().visit(init)


# --------------------------------------------------------------------------- binding impl
class _BindImpl(Mutator):
    """Rewrite an implementation body onto the scheduled buffers."""

    def __init__(self, binds: List[Binding], prim: str, what: str):
        self.by_buf = {id(b.impl): b for b in binds}
        self.vmap: Dict[Var, PrimExpr] = {}
        self.prim, self.what = prim, what
        self.base: Dict[int, PrimExpr] = {}
        for b in binds:
            strides = b.target.get_flattened_strides()
            base = b.target.elem_offset
            for st, s in zip(strides, b.start):
                base = _op.add(base, _op.mul(s, st))
            base = simplify(base)
            self.base[id(b.impl)] = base
            self.vmap[b.impl.data] = b.target.data
            eo = b.impl.elem_offset
            if isinstance(eo, Var):
                self.vmap[eo] = base
            tail = strides[len(strides) - len(b.impl.shape):]
            if b.impl.strides:
                for s_i, s_x in zip(b.impl.strides, tail):
                    if isinstance(s_i, Var):
                        self.vmap.setdefault(s_i, s_x)
                    elif not can_prove(_op.eq(s_i, s_x)):
                        raise fail(prim, what, f"buffer {b.impl.name} of the implementation "
                                   f"has stride {s_i} where {b.target.name} has {s_x}")

    def _base_ok(self, b: Binding, use: str) -> None:
        eo = b.impl.elem_offset
        if isinstance(eo, Var):
            return
        if not can_prove(_op.eq(self.base[id(b.impl)], eo)):
            raise fail(self.prim, self.what, f"the implementation uses {b.impl.name}{use} but "
                       f"the buffer has a constant elem_offset; declare it with "
                       f"offset_factor so the matched region's offset can be passed")

    def _strides_ok(self, b: Binding) -> None:
        if b.impl.strides or len(b.impl.shape) < 2:
            return
        strides = b.target.get_flattened_strides()
        tail = strides[len(strides) - len(b.impl.shape):]
        compact = b.impl.get_flattened_strides()
        for a, c in zip(tail, compact):
            if not can_prove(_op.eq(a, c)):
                raise fail(self.prim, self.what, f"buffer {b.impl.name} of the implementation "
                           f"is compact but the region of {b.target.name} it binds is strided "
                           f"(stride {a}, not {c}); declare the buffer with strides")

    def visit_Var(self, v):
        for b in self.by_buf.values():
            if v is b.impl.data:
                self._base_ok(b, ".data")
                self._strides_ok(b)
        return self.vmap.get(v, v)

    visit_SizeVar = visit_Var

    def _load_idx(self, b: Binding, idx):
        idx = [self.visit(i) for i in idx]
        lead = len(b.start) - len(idx)
        return tuple(b.start[:lead]) + tuple(
            simplify(_op.add(s, i)) for s, i in zip(b.start[lead:], idx))

    def visit_BufferLoad(self, e):
        b = self.by_buf.get(id(e.buffer))
        if b is None:
            return self.generic(e)
        return BufferLoad(b.target, self._load_idx(b, e.indices))

    def visit_BufferStore(self, s):
        b = self.by_buf.get(id(s.buffer))
        if b is None:
            return self.generic(s)
        return BufferStore(b.target, self.visit(s.value), self._load_idx(b, s.indices))

    def visit_BufferRegion(self, r):
        # an implementation with blocks of its own: their reads/writes move with the accesses
        b = self.by_buf.get(id(r.buffer))
        if b is None:
            return self.generic(r)
        mins = self._load_idx(b, [x.min for x in r.region])
        lead = len(mins) - len(r.region)
        region = tuple(Range(m, IntImm(m.dtype, 1)) for m in mins[:lead]) + tuple(
            Range(m, self.visit(x.extent)) for m, x in zip(mins[lead:], r.region))
        return BufferRegion(b.target, region)

    def visit_Call(self, e):
        k = {"address_of_elem": 0, "tvm_access_ptr": 1}.get(e.op)  # where the Buffer goes
        if k is not None and isinstance(e.args[k], Buffer):
            b = self.by_buf.get(id(e.args[k]))
            if b is not None:
                self._strides_ok(b)
                eo = b.impl.elem_offset
                off = (self.visit(e.args[k + 1]) if isinstance(eo, Var) else
                       _op.add(_op.sub(self.visit(e.args[k + 1]), eo), self.base[id(b.impl)]))
                args = [self.visit(x) for x in e.args]
                args[k], args[k + 1] = b.target, simplify(off)
                return Call(e.dtype, e.op, tuple(args))
        args = []
        for a in e.args:
            if isinstance(a, Buffer) and id(a) in self.by_buf:
                b = self.by_buf[id(a)]
                self._base_ok(b, "")
                self._strides_ok(b)
                args.append(b.target)
            else:
                args.append(self.visit(a))
        return Call(e.dtype, e.op, tuple(args))


def _impl_body(func_or_stmt) -> Stmt:
    body = func_or_stmt.body if isinstance(func_or_stmt, PrimFunc) else func_or_stmt
    if isinstance(body, BlockRealize) and not body.block.iter_vars:
        body = body.block.body
    return body


class _FreshBuffers(Mutator):
    """A copy of an implementation body on fresh copies of its parameter buffers (their
    data, elem_offset, stride and shape variables new), so each tensorized block owns its
    own ``T.match_buffer`` declarations."""

    def __init__(self, bufs: Sequence[Buffer], index_dtype: str = "int32"):
        self.vmap: Dict[Var, Var] = {}
        self.bmap: Dict[int, Buffer] = {}
        self.wide = index_dtype == "int64"  # classic normalizes the index type to the block's

        def fresh(e):
            if isinstance(e, Var):
                dt = "int64" if self.wide and e.dtype == "int32" else e.dtype
                return self.vmap.setdefault(e, Var(e.name, dt))
            return self._widen(e)

        for b in bufs:
            if b is None or id(b) in self.bmap:
                continue
            self.bmap[id(b)] = dataclasses.replace(
                b, data=fresh(b.data), elem_offset=fresh(b.elem_offset),
                strides=tuple(fresh(x) for x in b.strides),
                shape=tuple(fresh(x) for x in b.shape))

    def _widen(self, e):
        if self.wide and isinstance(e, IntImm) and e.dtype == "int32":
            return IntImm("int64", e.value)
        return e

    def buffer(self, b: Buffer) -> Buffer:
        return self.bmap.get(id(b), b)

    def generic(self, x):
        out = super().generic(x)
        if self.wide and isinstance(out, (BinaryOpExpr, CmpExpr)) and out.a.dtype != out.b.dtype:
            a, b = out.a, out.b
            if isinstance(a, IntImm) and b.dtype == "int64":
                out = dataclasses.replace(out, a=IntImm("int64", a.value))
            elif isinstance(b, IntImm) and a.dtype == "int64":
                out = dataclasses.replace(out, b=IntImm("int64", b.value))
        return out

    def visit_Var(self, v):
        return self.vmap.get(v, v)

    visit_SizeVar = visit_Var

    def visit_Buffer(self, b):
        return self.buffer(b)

    def _idx(self, b: Buffer, idx):
        out = tuple(self.visit(i) for i in idx)
        return tuple(self._widen(i) for i in out) if id(b) in self.bmap else out

    def visit_BufferLoad(self, e):
        return BufferLoad(self.buffer(e.buffer), self._idx(e.buffer, e.indices))

    def visit_BufferStore(self, s):
        return BufferStore(self.buffer(s.buffer), self.visit(s.value),
                           self._idx(s.buffer, s.indices))

    def visit_BufferRegion(self, r):
        region = self.visit(r.region)
        if id(r.buffer) in self.bmap:
            region = tuple(Range(self._widen(x.min), self._widen(x.extent)) for x in region)
        return BufferRegion(self.buffer(r.buffer), region)


def _tensorize_matched(state: ScheduleState, path: List[Stmt], desc: PrimFunc,
                       impl: PrimFunc, prim: str) -> None:
    """Classic TVM's tensorize: the block's body becomes the implementation's, its buffers
    declared ``T.match_buffer`` views of the matched regions (lowering binds their data,
    elem_offset and strides, and refuses a view its declaration cannot describe)."""
    realize = path[-1]
    block = realize.block
    matched, desc_has_init = match_intrinsic(state, path, desc, prim)
    impl_bufs = [impl.buffer_map.get(p) for p in impl.params]
    wide = any(r.min.dtype == "int64" for reg in (*block.reads, *block.writes)
               for r in reg.region)
    fresh = _FreshBuffers(impl_bufs, "int64" if wide else "int32")
    body = impl.body
    regions: Dict[int, Tuple[Range, ...]] = {}
    if isinstance(body, BlockRealize) and not body.block.iter_vars:
        for r in (*body.block.reads, *body.block.writes):
            regions.setdefault(id(r.buffer), r.region)
        body = body.block.body
    matches = []
    for ib, mt in zip(impl_bufs, matched):
        if ib is None or mt is None:
            continue
        x, start = mt
        if len(ib.shape) > len(start):
            raise fail(prim, f'block "{block.name_hint}"', f"implementation buffer {ib.name} "
                       f"has {len(ib.shape)} dimensions, the matched buffer {x.name} "
                       f"{len(start)}")
        lead = len(start) - len(ib.shape)
        exts = [r.extent for r in regions.get(id(ib), ())] or list(ib.shape)
        region = tuple(Range(m, IntImm(m.dtype, 1)) for m in start[:lead]) + tuple(
            Range(m, _op.cast(m.dtype, e) if e.dtype != m.dtype else e)
            for m, e in zip(start[lead:], exts))
        matches.append(MatchBufferRegion(fresh.buffer(ib), BufferRegion(x, region)))
    nb = dataclasses.replace(block, body=fresh.visit(body), match_buffers=tuple(matches),
                             init=None if desc_has_init else block.init)
    replace(state, path, dataclasses.replace(realize, block=nb))


def tensorize_block(state: ScheduleState, block_rv: BlockRV, desc: PrimFunc,
                    impl_bufs: Sequence[Optional[Buffer]], body: Stmt,
                    reset: Optional[Stmt] = None, update: Optional[Stmt] = None,
                    prim: str = "tensorize") -> None:
    """Replace the outer block ``block_rv`` by an implementation of ``desc``.

    ``impl_bufs[i]`` is the implementation's buffer for the description's ``i``-th parameter.
    ``body`` computes the whole tile. With ``reset``/``update`` (TE's reduction intrinsics) a
    block whose reduction continues outside the tile gets ``reset`` as its init and ``update``
    as its body; without them the block keeps its own init and ``body`` must not reset.
    """
    path = state.block_path(block_rv, prim)
    if isinstance(body, PrimFunc) and reset is None and update is None:
        _tensorize_matched(state, path, desc, body, prim)
        return
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    matched, desc_has_init = match_intrinsic(
        state, path, desc, prim, update is not None and (reset is not None or body is not None))
    binds = []
    for ib, mt in zip(impl_bufs, matched):
        if ib is None or mt is None:
            continue
        x, start = mt
        if len(ib.shape) > len(start):
            raise fail(prim, what, f"implementation buffer {ib.name} has {len(ib.shape)} "
                       f"dimensions, the matched buffer {x.name} {len(start)}")
        binds.append(Binding(ib, x, start))
    red_outside = _reduces_outside(block)
    init = block.init
    if reset is not None or update is not None:
        if block.init is None:
            chosen = body
        elif red_outside:
            if update is None or (reset is None and body is None):
                raise fail(prim, what, "the reduction is split around the tensorized loops, "
                           "so the intrinsic must provide an update body and a reset (or a "
                           "body) one")
            if reset is not None:
                init, chosen = reset, update
            else:  # classic: the body computes the tile at the reduction's first step
                first = [_op.eq(iv.var, iv.dom.min) for iv in block.iter_vars
                         if iv.iter_type == IterVarType.CommReduce
                         and const_value(simplify(iv.dom.extent)) != 1]
                cond = first[0]
                for c in first[1:]:
                    cond = _op.logical_and(cond, c)
                init, chosen = None, IfThenElse(cond, _impl_body(body), _impl_body(update))
        else:
            init, chosen = None, body
        if chosen is None:
            raise fail(prim, what, "the intrinsic gives no body for this case")
    else:
        chosen = body
        if desc_has_init:
            init = None
    outer = _outer_loop_vars(realize)
    mut = _BindImpl(binds, prim, what)
    new_body = mut.visit(substitute(_impl_body(chosen), outer))
    if init is not None and init is not block.init:
        init = _BindImpl(binds, prim, what).visit(substitute(_impl_body(init), outer))
    nb = dataclasses.replace(block, body=new_body, init=init)
    replace(state, path, dataclasses.replace(realize, block=nb))
