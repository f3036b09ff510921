"""``pad_einsum``: pad the iteration space of an einsum block and of its producers."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence

from .. import op as _op
from ..buffer import Buffer
from ..expr import Add, BufferLoad, Cast, IntImm, IterVar, Mul, PrimExpr, Range, Var
from ..functor import Mutator
from ..stmt import Block, BlockRealize, BufferStore, For
from .error import fail
from .state import (
    BlockRV,
    ScheduleState,
    buffers_read,
    buffers_written,
    child_blocks,
    find_path,
    simplify,
    walk_stmts,
)

PRIM = "pad_einsum"


def pad_einsum(state: ScheduleState, block_rv: BlockRV, padding: Sequence[int]) -> None:
    """Pad the iterators of the einsum ``block`` (``O[i, j] = O[i, j] + A[i, k] * B[k, j]``,
    with ``T.init``) by ``padding[i]`` each, together with the intermediate buffers it reads
    and writes and the loops of the blocks producing its inputs, which store zero in the
    padding (``T.if_then_else(j < 127, A[i, j], 0)``). Consumers of the output still read the
    original region. Every block involved sits alone in its loop nest, bound trivially.

    Before::

        for i, j in T.grid(128, 127):
            with T.block("A"):
                A_shared[i, j] = A[i, j]
        ...
        for i, j, k in T.grid(128, 127, 127):
            with T.block("C_shared"):
                with T.init():
                    C_shared[i, j] = 0.0
                C_shared[i, j] = C_shared[i, j] + A_shared[i, k] * B_shared[k, j]

    After ``pad_einsum(C_shared, [0, 1, 1])``::

        for i, j in T.grid(128, 128):
            with T.block("A"):
                A_shared_padded[i, j] = T.if_then_else(j < 127, A[i, j], 0.0)
        ...
        for i, j, k in T.grid(128, 128, 128):
            with T.block("C_shared"):
                ...

    Trace instruction ``PadEinsum`` (input block; attribute ``padding``).
    """
    path = state.block_path(block_rv, PRIM)
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    padding = [int(p) for p in padding]
    if len(padding) != len(block.iter_vars) or any(p < 0 for p in padding):
        raise fail(PRIM, what, f"the padding must be {len(block.iter_vars)} non-negative "
                   f"integers, got {padding}")
    out_buf, out_idx, inputs = _extract_einsum(block, what)
    _check_nest(state, path, what)
    for buf in [out_buf, *inputs]:
        if state.is_output_buffer(buf) or not _allocated(state, buf):
            raise fail(PRIM, what, f'buffer "{buf.name}" is not allocated as an intermediate '
                       "buffer in the function")

    ext: Dict[Var, PrimExpr] = {}
    for iv, v, p in zip(block.iter_vars, realize.iter_values, padding):
        if not isinstance(iv.dom.extent, IntImm):
            raise fail(PRIM, what, f'iterator "{iv.var.name}" has a symbolic extent')
        e = IntImm(iv.var.dtype, iv.dom.extent.value + p)
        ext[iv.var] = e
        ext[v] = e

    def padded(buf: Buffer, idx: List[Var]) -> Buffer:
        return dataclasses.replace(buf, shape=tuple(ext[v] for v in idx),
                                   name=buf.name + "_padded")

    remap: Dict[Buffer, Buffer] = {out_buf: padded(out_buf, out_idx)}
    writers = _writers(state)
    if [w.block for w in writers.get(out_buf, [])] != [block]:
        raise fail(PRIM, what, f'block "{block.name_hint}" must be the only writer of '
                   f'"{out_buf.name}"')
    preds: Dict[int, PrimExpr] = {}
    for buf, idx in inputs.items():
        ws = writers.get(buf, [])
        if len(ws) != 1:
            raise fail(PRIM, what, f'input "{buf.name}" must have exactly one producer block '
                       f"(it has {len(ws)})")
        prod = ws[0]
        pb = prod.block
        pwhat = f'producer block "{pb.name_hint}"'
        pstore = pb.body
        pidx = _trivial_indices(pstore) if isinstance(pstore, BufferStore) else None
        if pidx is None or len(pb.writes) != 1 or pb.init is not None or \
                buf in buffers_read(pb):
            raise fail(PRIM, what, f"{pwhat} cannot be padded: it must write one buffer with "
                       "a single store at its iterators")
        ppath = find_path(state.body, lambda s, p=prod: s is p)
        _check_nest(state, ppath, pwhat)
        new = padded(buf, idx)
        remap[buf] = new
        cond: PrimExpr = IntImm("bool", 1)
        by_var = {}
        for k, v in enumerate(pidx):
            if not (isinstance(new.shape[k], IntImm) and isinstance(buf.shape[k], IntImm)):
                raise fail(PRIM, what, f'buffer "{buf.name}" has a symbolic shape')
            if new.shape[k].value != buf.shape[k].value:
                c = v < buf.shape[k]
                cond = c if isinstance(cond, IntImm) else _op.logical_and(cond, c)
            by_var[v] = new.shape[k]
        for iv, v in zip(pb.iter_vars, prod.iter_values):
            hit = [e for u, e in by_var.items() if u is iv.var]
            if hit:
                ext[iv.var] = hit[0]
                ext[v] = hit[0]
            elif not (isinstance(iv.dom.extent, IntImm) and iv.dom.extent.value == 1):
                raise fail(PRIM, what, f'{pwhat} cannot be padded: iterator "{iv.var.name}" '
                           "does not index the buffer it writes")
        preds[id(pb)] = cond
    _Rewriter(remap, ext, preds).apply(state)


def _allocated(state: ScheduleState, buf: Buffer) -> bool:
    found = []
    walk_stmts(state.body, lambda s: found.append(s) if isinstance(s, Block)
               and buf in s.alloc_buffers else None)
    return bool(found)


def _writers(state: ScheduleState) -> Dict[Buffer, List[BlockRealize]]:
    out: Dict[Buffer, List[BlockRealize]] = {}

    def f(s):
        if isinstance(s, BlockRealize) and s.block.iter_vars:
            for b in buffers_written(s.block):
                out.setdefault(b, []).append(s)
    walk_stmts(state.body, f)
    return out


def _trivial_indices(node) -> Optional[List[Var]]:
    if all(isinstance(i, Var) for i in node.indices):
        return list(node.indices)
    return None


def _extract_einsum(block: Block, what: str):
    store = block.body
    bad = fail(PRIM, what, "the block is not a computation of the einsum pattern "
               "(O[idx] = O[idx] + products of loads at iterators, with T.init)")
    if not isinstance(store, BufferStore) or block.init is None:
        raise bad
    out_idx = _trivial_indices(store)
    init = block.init
    if out_idx is None or not isinstance(init, BufferStore) or init.buffer is not store.buffer \
            or not _same(init.indices, out_idx):
        raise bad
    val = store.value
    if not isinstance(val, Add):
        raise bad
    lhs, rhs = val.a, val.b
    if not isinstance(lhs, BufferLoad):
        lhs, rhs = rhs, lhs
    if not (isinstance(lhs, BufferLoad) and lhs.buffer is store.buffer
            and _same(lhs.indices, out_idx)):
        raise bad
    inputs: Dict[Buffer, List[Var]] = {}

    def visit(e) -> bool:
        if isinstance(e, Mul):
            return visit(e.a) and visit(e.b)
        if isinstance(e, Cast):
            return visit(e.value)
        if isinstance(e, BufferLoad):
            idx = _trivial_indices(e)
            if idx is None or e.buffer is store.buffer:
                return False
            if e.buffer in inputs:
                return _same(e.indices, inputs[e.buffer])
            inputs[e.buffer] = idx
            return True
        return False
    if not visit(rhs):
        raise bad
    return store.buffer, out_idx, inputs


def _same(a, b) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _check_nest(state: ScheduleState, path, what: str) -> None:
    """The block is alone under its outermost loop, each iterator bound to one loop of the
    iterator's range (the loops become the padded ones)."""
    realize = path[-1]
    loops = [s for s in path if isinstance(s, For)]
    if not loops or len(child_blocks(loops[0])) != 1:
        raise fail(PRIM, what, "the block must be the only block under its outermost loop")
    lvars = {lp.loop_var: lp for lp in loops}
    for iv, v in zip(realize.block.iter_vars, realize.iter_values):
        lp = lvars.get(v) if isinstance(v, Var) else None
        if lp is None or not (isinstance(lp.min, IntImm) and lp.min.value == 0) or \
                not _eq(lp.extent, iv.dom.extent) or not _eq(iv.dom.min, 0):
            raise fail(PRIM, what, f'iterator "{iv.var.name}" is not bound trivially to a '
                       "loop")
    if len(set(map(id, realize.iter_values))) != len(realize.iter_values):
        raise fail(PRIM, what, "two iterators are bound to the same loop")


def _eq(a, b) -> bool:
    a = simplify(_op.convert(a))
    b = simplify(_op.convert(b))
    return isinstance(a, IntImm) and isinstance(b, IntImm) and a.value == b.value


class _Rewriter(Mutator):
    def __init__(self, remap, ext, preds):
        self.remap, self.ext, self.preds = remap, ext, preds

    def apply(self, state: ScheduleState) -> None:
        state.set_body(self.visit(state.body))

    def visit_BufferLoad(self, e):
        e2 = self.generic(e)
        nb = self.remap.get(e2.buffer)
        return dataclasses.replace(e2, buffer=nb) if nb is not None else e2

    def visit_BufferStore(self, s):
        s2 = self.generic(s)
        nb = self.remap.get(s2.buffer)
        return dataclasses.replace(s2, buffer=nb) if nb is not None else s2

    def visit_BufferRegion(self, r):
        nb = self.remap.get(r.buffer)
        r2 = self.generic(r)
        return dataclasses.replace(r2, buffer=nb) if nb is not None else r2

    def visit_For(self, f):
        f2 = self.generic(f)
        e = self.ext.get(f2.loop_var)
        return dataclasses.replace(f2, extent=e) if e is not None else f2

    def visit_Block(self, b):
        pred = self.preds.get(id(b))
        b2 = self.generic(b)
        if b2.alloc_buffers:
            b2 = dataclasses.replace(b2, alloc_buffers=tuple(
                self.remap.get(x, x) for x in b2.alloc_buffers))
        if pred is not None and not isinstance(pred, IntImm):
            st = b2.body
            zero = _op.const(0, st.value.dtype)
            b2 = dataclasses.replace(b2, body=dataclasses.replace(
                st, value=_op.if_then_else(pred, st.value, zero)))
        ivs = tuple(IterVar(Range(IntImm(iv.var.dtype, 0), self.ext[iv.var]), iv.var,
                            iv.iter_type) if iv.var in self.ext else iv for iv in b2.iter_vars)
        if any(x is not y for x, y in zip(ivs, b2.iter_vars)):
            b2 = dataclasses.replace(b2, iter_vars=ivs)
        return b2
