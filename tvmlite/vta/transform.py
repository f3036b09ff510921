"""VTA passes in the one lowering pipeline.

``AnnotatePragmas`` (phase 0) turns the loops carrying a VTA pragma (``dma_copy``, ``alu``,
``vta_gemm``) into ``AttrStmt("pragma_<name>")`` around the loop, so the region survives the
removal of unit loops later in the pipeline; the VTA code generator (:mod:`.codegen`) maps each
region to instructions. A loop bound to a ``cthread`` (VTA's virtual thread) becomes a serial
loop inside ``AttrStmt("vta.cthread")``: the code generator interleaves the threads' instruction
streams (the generic virtual-thread lowering would run them one after the other).
"""
from __future__ import annotations

import dataclasses

from ..arith import Analyzer
from ..tir import op as _op
from ..tir.expr import (
    GE,
    GT,
    LE,
    LT,
    Add,
    And,
    BufferLoad,
    Call,
    Cast,
    IntImm,
    Max,
    Min,
    Mul,
    StringImm,
)
from ..tir.functor import Mutator, collect_vars, post_order_visit, substitute
from ..tir.stmt import Allocate, AttrStmt, BufferStore, Evaluate, For, ForKind, LetStmt, SeqStmt
from ..tir.transform.function_pass import prim_func_pass
from .environment import get_env

#: pragmas the VTA code generator consumes
VTA_PRAGMAS = ("dma_copy", "alu", "vta_gemm", "skip_dma_copy", "skip_alu")
#: attribute marking a virtual-thread loop whose iterations the code generator interleaves
CTHREAD_ATTR = "vta.cthread"


class _Annotate(Mutator):
    def visit_For(self, s):
        new = self.generic(s)
        tb = new.thread_binding
        if new.kind == ForKind.THREAD_BINDING and tb is not None and tb.thread_tag == "cthread":
            loop = For(new.loop_var, new.min, new.extent, ForKind.SERIAL, new.body, None,
                       new.annotations)
            return AttrStmt(StringImm("cthread"), CTHREAD_ATTR, StringImm(""), loop)
        keys = [k for k in (new.annotations or {}) if k.startswith("pragma_")
                and k[len("pragma_"):] in VTA_PRAGMAS]
        if not keys:
            return new
        ann = {k: v for k, v in new.annotations.items() if k not in keys}
        loop = For(new.loop_var, new.min, new.extent, new.kind, new.body, new.thread_binding,
                   ann)
        for k in keys:
            loop = AttrStmt(StringImm(k[len("pragma_"):]), "pragma_" + k[len("pragma_"):],
                            StringImm(""), loop)
        return loop


def _annotate(func, mod, ctx):
    return func.with_body(_Annotate().visit(func.body))


def AnnotatePragmas():  # noqa: N802  (TVM's pass naming)
    """The pass described in the module docstring."""
    return prim_func_pass(_annotate, opt_level=0, name="vta.AnnotatePragmas")


# ------------------------------------------------------------------ the printed program
#: classic memory ids and ALU opcodes in the printed intrinsic calls
_MEM_ID = {"uop": 0, "wgt": 1, "inp": 2, "acc": 3, "out": 4}
_ALU_OP = {"min": 0, "max": 1, "add": 2, "shr": 3, "mul": 4}
_SCOPE_MEM = {"local.inp_buffer": "inp", "local.wgt_buffer": "wgt", "local.acc_buffer": "acc"}


def _nest(s):
    loops = []
    while isinstance(s, For):
        loops.append(s)
        s = s.body
    return loops, s


class _Intrinsics(Mutator):
    """VTA regions → the classic runtime calls (``VTALoadBuffer2D``, ``VTAStoreBuffer2D``,
    micro-op kernels pushed in ``coproc_uop_scope``) in ``coproc_scope`` of their queue."""

    def __init__(self, env):
        super().__init__()

        self.env, self.ana = env, Analyzer()
        self.tile = {"inp": env.BATCH * env.BLOCK_IN, "wgt": env.BLOCK_OUT * env.BLOCK_IN,
                     "acc": env.BATCH * env.BLOCK_OUT}

    def _at(self, e, vmap):

        return self.ana.simplify(substitute(e, vmap))

    def _tiles(self, loops, tile):
        inner, k = 1, len(loops)
        while k > 0 and inner < tile:
            k -= 1
            inner *= int(loops[k].extent.value)
        return (loops[:k], loops[k:]) if inner == tile else (None, None)

    def visit_AttrStmt(self, s):
        try:
            if s.attr_key == "pragma_dma_copy":
                return self._dma(s.body)
            if s.attr_key == "pragma_alu":
                return self._alu(s.body)
        except (AttributeError, TypeError, ValueError, KeyError, IndexError):
            pass  # a form the printer does not know: printed as it is (build checks it)
        return self.generic(s)

    def visit_For(self, s):
        loops, leaf = _nest(s)
        tile_loops = []
        if isinstance(leaf, AttrStmt) and leaf.attr_key == "pragma_vta_gemm":
            tile_loops, leaf = _nest(leaf.body)
        if isinstance(leaf, BufferStore) and _SCOPE_MEM.get(leaf.buffer.scope_name) == "acc":

            if isinstance(leaf.value, IntImm) or tile_loops:
                try:
                    return self._gemm(loops + tile_loops, leaf, isinstance(leaf.value, IntImm))
                except (AttributeError, TypeError, ValueError, KeyError, IndexError):
                    pass
        return self.generic(s)

    @staticmethod
    def _scope(qid, body, uop_kind=None):
        if uop_kind is not None:
            body = AttrStmt(StringImm("vta"), "coproc_uop_scope", StringImm(uop_kind), body)
        return AttrStmt(StringImm("vta"), "coproc_scope", qid, body)

    def _uop_nest(self, uloops, args, fuse=False):
        """The micro-op kernel: up to two outer loops whose (dst, src, wgt) steps are
        constant become ``VTAUopLoopBegin/End`` (classic's loop compression; an ALU nest is
        first fused where its indices continue each other), the rest push micro-ops."""
        idx = list(args[2:5])
        loops = [(lp.loop_var, int(lp.extent.value)) for lp in uloops]
        if fuse:
            while len(loops) > 1:
                (vo, eo), (vi, ei) = loops[-2], loops[-1]
                so, si = self._steps(idx, vo, eo), self._steps(idx, vi, ei)
                if so is None or si is None or any(a != b * ei for a, b in zip(so, si)):
                    break
                idx = [self._at(e, {vo: 0}) for e in idx]
                loops[-2:] = [(vi, eo * ei)]
        marks = []
        while loops and len(marks) < 2:
            v, ext = loops[0]
            st = self._steps(idx, v, ext)
            if st is None:
                break
            marks.append((ext, st))
            idx = [self._at(e, {v: 0}) for e in idx]
            loops = loops[1:]
        push = Evaluate(_op.call_extern("int32", "VTAUopPush", *args[:2], *idx, *args[5:]))
        extent = {lp.loop_var: lp for lp in uloops}
        body = push
        for v, ext in reversed(loops):
            body = For(v, extent[v].min, IntImm("int32", ext), ForKind.SERIAL, body)
        for ext, st in reversed(marks):
            body = SeqStmt([Evaluate(_op.call_extern("int32", "VTAUopLoopBegin", ext, *st)),
                            body, Evaluate(_op.call_extern("int32", "VTAUopLoopEnd"))])
        return body

    def _steps(self, idx, v, ext):
        """The constant steps of the indices ``idx`` along loop ``v`` (None: not affine)."""
        out = []
        for e in idx:
            at = [self._at(e, {v: k}) for k in range(min(ext, 3))]
            d = [self.ana.simplify(b - a) for a, b in zip(at, at[1:])] or [IntImm("int32", 0)]
            if not all(isinstance(x, IntImm) and x.value == d[0].value for x in d):
                return None
            out.append(int(d[0].value))
        return out

    def _gemm(self, loops, store, reset):
        t = self.tile["acc"]
        uloops, tloops = self._tiles(loops, t * (1 if reset else self.env.BLOCK_IN))
        zero = {lp.loop_var: 0 for lp in tloops}
        dst = self._at(store.indices[-1] // t, zero)
        src = wgt = 0
        if not reset:
            loads = []

            post_order_visit(store.value, lambda x: loads.append(x)
                             if isinstance(x, BufferLoad) and x.buffer is not store.buffer
                             else None)
            for ld in loads:
                mem = _SCOPE_MEM[ld.buffer.scope_name]
                idx = self._at(ld.indices[-1] // self.tile[mem], zero)
                src, wgt = (idx, wgt) if mem == "inp" else (src, idx)
        return self._scope(2, self._uop_nest(uloops, (0, int(reset), dst, src, wgt, 0, 0, 0)),
                           "VTAPushGEMMOp")

    def _alu(self, body):

        loops, store = _nest(body)
        uloops, tloops = self._tiles(loops, self.tile["acc"])
        v = store.value
        if isinstance(v, Call):
            op, a, b = "shr", v.args[0], v.args[1]
        else:
            op = {Max: "max", Min: "min", Add: "add", Mul: "mul"}[type(v)]
            a, b = v.a, v.b
        if not isinstance(a, BufferLoad):
            a, b = b, a
        zero = {lp.loop_var: 0 for lp in tloops}
        t = self.tile["acc"]
        dst = self._at(store.indices[-1] // t, zero)
        imm = isinstance(b, IntImm)
        src = self._at((a if imm else b).indices[-1] // t, zero)
        return self._scope(2, self._uop_nest(uloops, (1, 0, dst, src, 0, _ALU_OP[op], int(imm),
                                                      b.value if imm else 0), fuse=True),
                           "VTAPushALUOp")

    def _dma(self, body):

        loops, store = _nest(body)
        val, cond = store.value, None
        if isinstance(val, Call) and val.op in ("if_then_else", "tir.if_then_else"):
            cond, val = val.args[0], val.args[1]
        while isinstance(val, Cast):
            val = val.value
        dmem = _SCOPE_MEM.get(store.buffer.scope_name)
        mem = dmem or "acc"
        outer, tl = self._tiles(loops, self.tile[mem])
        y = outer[0] if len(outer) > 1 else None
        x = outer[-1] if outer else None
        ext = {lp.loop_var: int(lp.extent.value) for lp in outer}
        pads = {lp.loop_var: [0, 0] for lp in outer}
        for c in _conjuncts(cond):
            lv = [lp.loop_var for lp in outer if lp.loop_var in collect_vars(c)]
            if len(lv) != 1:
                continue
            w = lv[0]
            e, lo, hi = _bound(c)
            if lo is not None:
                pads[w][0] = self.ana.simplify(_op.max(lo - self._at(e, {w: 0}), 0))
            if hi is not None:
                pads[w][1] = self.ana.simplify(_op.max(self._at(e, {w: ext[w] - 1}) - hi + 1, 0))
        first = {lp.loop_var: 0 for lp in tl}
        for lp in outer:
            first[lp.loop_var] = pads[lp.loop_var][0]
        t = self.tile[mem]
        y_size = self.ana.simplify(ext[y.loop_var] - pads[y.loop_var][0] - pads[y.loop_var][1]) \
            if y is not None else 1
        xp = pads[x.loop_var] if x is not None else [0, 0]
        x_size = 1
        for lp in outer[1:] or outer:  # the rows' loops fuse into one (padded: the last only)
            x_size = x_size * ext[lp.loop_var]
        x_size = self.ana.simplify(x_size - xp[0] - xp[1])
        step = {lv: 0 for lv in first}
        if y is not None:
            step[y.loop_var] = 1
        s_idx = val.indices[-1]
        stride = self._at(s_idx // t, step) - self._at(s_idx // t, {lv: 0 for lv in first}) \
            if y is not None else x_size
        cmd = _op.call_extern("handle", "VTATLSCommandHandle")
        if dmem is not None:
            yp = pads[y.loop_var] if y is not None else [0, 0]
            call = _op.call_extern(
                "int32", "VTALoadBuffer2D", cmd, val.buffer.data, self._at(s_idx // t, first),
                x_size, y_size, self.ana.simplify(stride), xp[0], yp[0], xp[1], yp[1],
                self._at(store.indices[-1] // t, {lv: 0 for lv in first}),
                _MEM_ID[dmem])
            return self._scope(2 if dmem == "acc" else 1, Evaluate(call))
        call = _op.call_extern(
            "int32", "VTAStoreBuffer2D", cmd, self._at(s_idx // t, first), _MEM_ID["out"],
            store.buffer.data, self._at(store.indices[-1] // t, first), x_size, y_size,
            self.ana.simplify(stride))
        return self._scope(3, Evaluate(call))


def _conjuncts(c):
    if c is None:
        return []
    if isinstance(c, And):
        return _conjuncts(c.a) + _conjuncts(c.b)
    return [c]


def _vars(e):
    return collect_vars(e)


def _bound(c):
    """``(e, lo, hi)`` of a guard ``lo <= e`` or ``e < hi`` (``None`` for the missing one)."""
    if isinstance(c, LE):
        return (c.b, c.a, None) if isinstance(c.a, IntImm) else (c.a, None, c.b + 1)
    if isinstance(c, LT):
        return (c.b, c.a + 1, None) if isinstance(c.a, IntImm) else (c.a, None, c.b)
    if isinstance(c, GE):
        return (c.a, c.b, None) if isinstance(c.b, IntImm) else (c.b, None, c.a + 1)
    if isinstance(c, GT):
        return (c.a, c.b + 1, None) if isinstance(c.b, IntImm) else (c.b, None, c.a)
    raise ValueError(c)


def _dep(kind: str, a: int, b: int) -> Evaluate:
    return Evaluate(Call("int32", f"vta.coproc_dep_{kind}", [IntImm("int32", a),
                                                             IntImm("int32", b)]))


def _queue(s):
    if isinstance(s, AttrStmt) and s.attr_key == "coproc_scope":
        return int(getattr(s.value, "value", s.value))
    return None


class _Sync:
    """Dependence tokens between the queues' ``coproc_scope`` regions, as classic's
    coprocessor sync injection prints them: where one queue's region follows another's,
    the first ends with ``coproc_dep_push(a, b)`` and the next starts with
    ``coproc_dep_pop(a, b)``; a loop whose body starts and ends on different queues passes
    its back edge's token on, with a push before the loop and a pop after it."""

    def run(self, s):
        return self._seq([self.visit(s)])[0]

    def visit(self, s):  # → (stmt, first queue, last queue)
        q = _queue(s)
        if q is not None:
            return s, q, q
        if isinstance(s, For):
            loops, leaf = _nest(s)
            if _queue(leaf) is not None:  # one region per iteration: the scope around the loop
                inner = leaf.body
                for lp in reversed(loops):
                    inner = For(lp.loop_var, lp.min, lp.extent, lp.kind, inner,
                                lp.thread_binding, lp.annotations)
                return AttrStmt(leaf.node, "coproc_scope", leaf.value, inner), *(2 * [_queue(leaf)])
            body, first_q, last_q = self.visit(s.body)
            if first_q is not None and first_q != last_q:
                body = self._edge(body, last_q, first_q)
            return For(s.loop_var, s.min, s.extent, s.kind, body, s.thread_binding,
                       s.annotations), first_q, last_q
        if isinstance(s, SeqStmt):
            items = [self.visit(c) for c in s.seq]
            return self._seq(items)
        if isinstance(s, AttrStmt) and s.attr_key == CTHREAD_ATTR:
            # each virtual thread has its own tokens: no back edge across the threads' loop
            lp = s.body
            body, first_q, last_q = self._seq([self.visit(lp.body)])
            return dataclasses.replace(s, body=dataclasses.replace(lp, body=body)), first_q, last_q
        if isinstance(s, (AttrStmt, Allocate, LetStmt)):
            body, first_q, last_q = self.visit(s.body)
            return dataclasses.replace(s, body=body), first_q, last_q
        return s, None, None

    def _edge(self, body, a, b):
        """A loop body ending on queue ``a`` and starting on ``b``: push at its last region,
        pop at its first."""
        return self._at(self._at(body, _dep("push", a, b), last=True), _dep("pop", a, b),
                        last=False)

    def _at(self, s, call, last):
        """``call`` at the start (or end) of the first (last) region of ``s``."""
        q = _queue(s)
        if q is not None:
            body = SeqStmt([s.body, call] if last else [call, s.body])
            return AttrStmt(s.node, s.attr_key, s.value, body)
        if isinstance(s, SeqStmt):
            seq = list(s.seq)
            order = range(len(seq) - 1, -1, -1) if last else range(len(seq))
            for k in order:
                if _has_region(seq[k]):
                    seq[k] = self._at(seq[k], call, last)
                    return SeqStmt(seq)
        if isinstance(s, (AttrStmt, Allocate, LetStmt)):
            return dataclasses.replace(s, body=self._at(s.body, call, last))
        return SeqStmt([s, call] if last else [call, s])  # a loop: the token around it

    def _seq(self, items):
        out = []
        prev_last = None
        first = None
        k = 0
        while k < len(items):
            st, first_q, last_q = items[k]
            if first_q is None:
                out.append(st)
                k += 1
                continue
            if first is None:
                first = first_q
            loop_tok = (last_q, first_q) if first_q != last_q and _is_loop(st) else None
            if prev_last is not None and prev_last != first_q:
                tok = (prev_last, first_q)
                out[-1] = self._at(out[-1], _dep("push", *tok), last=True)
                if tok != loop_tok:  # (else the loop's first region pops it)
                    st = self._at(st, _dep("pop", *tok), last=False) if loop_tok is None \
                        else SeqStmt([_dep("pop", *tok), st])
            elif loop_tok is not None:
                st = SeqStmt([_dep("push", *loop_tok), st])
            if loop_tok is not None:
                nxt = next((it for it in items[k + 1:] if it[1] is not None), None)
                if nxt is None or nxt[1] != first_q:
                    st = SeqStmt([st, _dep("pop", *loop_tok)])
                    if nxt is not None and nxt[1] != last_q:
                        out.append(st)
                        out.append(_dep("push", last_q, nxt[1]))
                        items[k + 1:] = [it if it is not nxt else (
                            self._at(it[0], _dep("pop", last_q, nxt[1]), last=False), *it[1:])
                            for it in items[k + 1:]]
                        prev_last = None
                        k += 1
                        continue
                else:
                    out.append(st)
                    prev_last = None  # the loop's back-edge push feeds the next region
                    k += 1
                    continue
            out.append(st)
            prev_last = last_q
            k += 1
        last = next((it[2] for it in reversed(items) if it[2] is not None), None)
        return (SeqStmt(out) if len(out) != 1 else out[0]), first, last


def _is_loop(s):
    while isinstance(s, (AttrStmt, Allocate, LetStmt)) and _queue(s) is None \
            and getattr(s, "attr_key", "") != CTHREAD_ATTR:
        s = s.body
    return isinstance(s, For)


def _has_region(s):
    found = []
    post_order_visit(s, lambda x: found.append(1) if _queue(x) is not None else None)
    return bool(found)


def _intrinsics(func, mod, ctx):

    body = _Sync().run(_Intrinsics(get_env()).visit(func.body))
    return func.with_body(SeqStmt([body, Evaluate(Call("int32", "vta.coproc_sync", []))]))


def LowerToIntrinsics():  # noqa: N802  (TVM's pass naming)
    """For ``vta.lower(..., simple_mode=True)``: print each VTA region as the classic runtime
    call it becomes (the code generator reads the regions themselves when building)."""
    return prim_func_pass(_intrinsics, opt_level=0, name="vta.LowerToIntrinsics")
