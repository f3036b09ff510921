"""Checking mode of the GPU emulation: find shared-memory races and out-of-bounds accesses.

Every shared buffer ``X`` gets shadow arrays recording, per element, the phase (barrier
interval) and thread of its last write and last read. Before each statement, a read of an
element another thread wrote in the same phase (a missing barrier), a write of an element
another thread read in the same phase, a read of an element never written, and an index
outside ``X`` fail with a message naming the buffer and the statement. Enabled with
``TVMLITE_GPU_EMULATION=check``.
"""
from __future__ import annotations

from typing import List

from .. import op as _op
from ..buffer import Buffer
from ..expr import BufferLoad, Call, IntImm, Select, StringImm, Var
from ..functor import Mutator, Visitor
from ..stmt import Allocate, AssertStmt, BufferStore, Evaluate, For, ForKind, SeqStmt

_I32 = "int32"


def _i(v: int) -> IntImm:
    return IntImm(_I32, v)


class _Loads(Visitor):
    """Shared loads evaluated whenever the statement runs (not under a select's branches)."""

    def __init__(self, shared):
        self.shared = shared
        self.found: List[BufferLoad] = []

    def visit_BufferLoad(self, e):
        if e.buffer.data in self.shared:
            self.found.append(e)
        self.generic(e)

    def visit_Call(self, e):
        if e.op == "if_then_else":
            self.visit(e.args[0])
            return
        self.generic(e)

    def visit_Select(self, e: Select):
        self.visit(e.condition)


class _Shadow:
    def __init__(self, alloc: Allocate):
        size = 1
        for e in alloc.extents:
            size *= int(e.value)
        self.size = size
        self.name = alloc.buffer_var.name
        self.bufs = {}
        self.allocs = []
        for k in ("w_phase", "w_tid", "r_phase", "r_tid"):
            v = Var(f"{self.name}_{k}", "handle")
            self.bufs[k] = Buffer(v, _I32, (_i(size),), name=f"{self.name}_{k}")
            self.allocs.append(Allocate(v, _I32, (_i(size),), IntImm("bool", 1), None))

    def load(self, k, i):
        return BufferLoad(self.bufs[k], (i,))

    def store(self, k, i, v):
        return BufferStore(self.bufs[k], v, (i,))


class RaceCheck:
    """Instrument one kernel body; ``init`` clears the shadows, ``on_barrier`` starts a phase."""

    def __init__(self, info, tid):
        self.info, self.tid = info, tid
        self.shadows = {a.buffer_var: _Shadow(a) for a in info.shared}
        pv = Var("race_phase", "handle")
        self.phase_buf = Buffer(pv, _I32, (_i(1),), name="race_phase")
        self.allocs = [Allocate(pv, _I32, (_i(1),), IntImm("bool", 1), None)]
        for sh in self.shadows.values():
            self.allocs += sh.allocs

    @property
    def phase(self):
        return BufferLoad(self.phase_buf, (_i(0),))

    def init(self):
        out = [BufferStore(self.phase_buf, _i(0), (_i(0),))]
        for sh in self.shadows.values():
            e = Var("e", _I32)
            body = SeqStmt.flatten(sh.store("w_phase", e, _i(-1)), sh.store("r_phase", e, _i(-1)))
            out.append(For(e, _i(0), _i(sh.size), ForKind.SERIAL, body))
        return SeqStmt.flatten(*out)

    def on_barrier(self):
        return BufferStore(self.phase_buf, _op.add(self.phase, _i(1)), (_i(0),))

    def _assert(self, cond, msg, body):
        return AssertStmt(cond, StringImm(msg), body)

    def _where(self, s) -> str:
        return f"the store to {s.buffer.name}"

    def instrument(self, body):
        rc = self

        class M(Mutator):
            def visit_BufferStore(self, s):
                return rc._store(s)

        return M().visit(body)

    def _inside(self, sh, i):
        return _op.logical_and(_op.le(_i(0), i), _op.lt(i, _i(sh.size)))

    def _store(self, s: BufferStore):
        col = _Loads(self.shadows)
        col.visit(s.value)
        for i in s.indices:
            col.visit(i)
        pre, post = [], []
        where = self._where(s)
        ph, tid = self.phase, self.tid
        for ld in col.found:
            sh = self.shadows[ld.buffer.data]
            i = ld.indices[0]
            pre.append(self._assert(self._inside(sh, i), f"out-of-bounds read of shared buffer "
                                    f"{sh.name} (size {sh.size}) in {where}", Evaluate(_i(0))))
            wp = sh.load("w_phase", i)
            pre.append(self._assert(_op.ne(wp, _i(-1)), f"read of shared buffer {sh.name} "
                                    f"before any thread wrote it, in {where}", Evaluate(_i(0))))
            pre.append(self._assert(
                _op.logical_not(_op.logical_and(_op.eq(wp, ph),
                                                _op.ne(sh.load("w_tid", i), tid))),
                f"race on shared buffer {sh.name}: a thread reads an element another thread "
                f"wrote since the last barrier (missing __syncthreads?), in {where}",
                Evaluate(_i(0))))
            same = _op.logical_and(_op.eq(sh.load("r_phase", i), ph),
                                   _op.ne(sh.load("r_tid", i), tid))
            post.append(sh.store("r_tid", i, Call(_I32, "if_then_else", (same, _i(-2), tid))))
            post.append(sh.store("r_phase", i, ph))
        if s.buffer.data in self.shadows:
            sh = self.shadows[s.buffer.data]
            i = s.indices[0]
            pre.append(self._assert(self._inside(sh, i), f"out-of-bounds write of shared buffer "
                                    f"{sh.name} (size {sh.size}) in {where}", Evaluate(_i(0))))
            pre.append(self._assert(
                _op.logical_not(_op.logical_and(_op.eq(sh.load("r_phase", i), ph),
                                                _op.ne(sh.load("r_tid", i), tid))),
                f"race on shared buffer {sh.name}: a thread overwrites an element another "
                f"thread read since the last barrier (missing __syncthreads?), in {where}",
                Evaluate(_i(0))))
            post.append(sh.store("w_phase", i, ph))
            post.append(sh.store("w_tid", i, tid))
        if not pre:
            return s
        return SeqStmt.flatten(*pre, s, *post)
