"""Run GPU kernels on the CPU: blocks become a parallel loop, the threads of a block loops
split at barriers.

Each kernel (marked by :mod:`gpu_kernels`, barriers from :mod:`gpu_barrier`) becomes::

    for b in T.parallel(gx * gy * gz):          # one OpenMP iteration per block
        blockIdx_x = b % gx; ...
        A_shared = T.allocate(...)              # shared memory: one per block
        for threadIdx_y, threadIdx_x in T.grid(ty, tx):
            phase 0                             # everything up to the first barrier
        for threadIdx_y, threadIdx_x in T.grid(ty, tx):
            phase 1 ...

A barrier under a serial loop or a condition that every thread takes alike splits that loop's
body into phases in the same way. Local buffers move to the block, one copy per thread.
A missing barrier shows as a wrong answer, as on a GPU (a thread reads shared data that later
threads of its block have not written yet).
"""
from __future__ import annotations

import math

from ...error import TVMError
from ...ir import dtype as _dt
from .. import op as _op
from ..buffer import Buffer
from ..expr import BufferLoad, Call, FloatImm, IntImm, Var
from ..functor import Mutator, collect_vars, post_order_visit
from ..stmt import Allocate, BufferStore, For, ForKind, IfThenElse, LetStmt, SeqStmt
from .gpu_barrier import _is_barrier, barrier
from .gpu_kernels import (
    BLOCK_TAGS,
    KERNEL_ATTR,
    LOCAL_TAGS,
    SHUFFLE_DOWN,
    has_barrier,
)
from .gpu_race_check import RaceCheck
from .replicate_buffer import ReplicateBuffers


class _Shuffles(Mutator):
    """Warp shuffles as the emulation runs them: ``x = f(x, shuffle_down(e, off, w))``
    becomes ``stage[tid] = e``, a barrier, ``x = f(x, stage[src])`` with ``src = tid + off``
    inside the thread's ``w``-lane group (else its own), and a barrier before the stage is
    written again. ``stage`` is one value per thread of the block."""

    def __init__(self, info, tid):
        self.info, self.tid = info, tid
        self.stages = {}  # dtype -> (Allocate, Buffer)

    def stage(self, dtype):
        if dtype not in self.stages:
            n = IntImm("int32", self.info.threads())
            var = Var(f"shuffle_{dtype}", "handle")
            self.stages[dtype] = (Allocate(var, dtype, (n,), IntImm("bool", 1), None, None,
                                           "global"),
                                  Buffer(var, dtype, (n,), name=var.name))
        return self.stages[dtype][1]

    def visit_BufferStore(self, s):
        calls = []
        post_order_visit(s.value, lambda e: calls.append(e)
                         if isinstance(e, Call) and e.op == SHUFFLE_DOWN else None)
        if not calls:
            return s
        if len(calls) != 1:
            raise TVMError(f"{self.info.name}: a statement with {len(calls)} warp shuffles")
        call = calls[0]
        value, off, width = call.args
        buf = self.stage(call.dtype)
        lane = _op.floormod(_op.floormod(self.tid, 32), width)
        src = _op.if_then_else(_op.lt(_op.add(lane, off), width), _op.add(self.tid, off),
                               self.tid)

        class _Swap(Mutator):
            def visit_Call(self, e):
                return BufferLoad(buf, (src,)) if e is call else self.generic(e)

        return SeqStmt.flatten(BufferStore(buf, value, (self.tid,)), barrier(),
                               BufferStore(s.buffer, _Swap().visit(s.value), s.indices),
                               barrier())


class _Phases:
    def __init__(self, info, on_barrier=None):
        self.info = info
        self.on_barrier = on_barrier  # a statement run once per block at each barrier
        self.tvars = {info.vars[t] for t in LOCAL_TAGS if t in info.vars}
        tid = IntImm("int32", 0)
        for t in reversed(LOCAL_TAGS):  # z outermost
            if t in info.vars:
                tid = _op.add(_op.mul(tid, info.extent(t)), info.vars[t])
        self.tid = tid

    def threads(self, s):
        for t in LOCAL_TAGS:  # x innermost
            if t in self.info.vars:
                s = For(self.info.vars[t], IntImm("int32", 0), self.info.extent(t),
                        ForKind.SERIAL, s)
        return s

    def uniform(self, e) -> bool:
        return not (collect_vars(e) & self.tvars)

    def run(self, s):
        if not has_barrier(s):
            return self.threads(s)
        if isinstance(s, SeqStmt):
            out, seg = [], []
            for c in s.seq:
                if _is_barrier(c):
                    if seg:
                        out.append(self.run(SeqStmt.flatten(*seg)))
                    seg = []
                    if self.on_barrier is not None:
                        out.append(self.on_barrier)
                elif has_barrier(c):
                    if seg:
                        out.append(self.run(SeqStmt.flatten(*seg)))
                    seg = []
                    out.append(self.run(c))
                else:
                    seg.append(c)
            if seg:
                out.append(self.run(SeqStmt.flatten(*seg)))
            return SeqStmt.flatten(*out)
        if _is_barrier(s):
            return SeqStmt.flatten()
        if isinstance(s, For) and self.uniform(s.min) and self.uniform(s.extent):
            return For(s.loop_var, s.min, s.extent, ForKind.SERIAL, self.run(s.body))
        if isinstance(s, IfThenElse) and self.uniform(s.condition):
            return IfThenElse(s.condition, self.run(s.then_case),
                              None if s.else_case is None else self.run(s.else_case))
        if isinstance(s, LetStmt) and self.uniform(s.value):
            return LetStmt(s.var, s.value, self.run(s.body))
        raise TVMError(f"{self.info.name}: a barrier under a {type(s).__name__} that depends "
                       "on the thread index: not every thread of the block reaches it")


class _HoistLocals(Mutator):
    """Take every local allocation of a kernel out to the block, one copy per thread: a
    buffer live across a barrier must be, and a malloc per thread and iteration is slow."""

    def __init__(self, phases: _Phases):
        self.phases = phases
        self.allocs = []

    def visit_Allocate(self, a):
        body = self.visit(a.body)
        size = IntImm("int32", 1)
        for e in a.extents:
            if not isinstance(e, IntImm):
                raise TVMError(f"{self.phases.info.name}: local buffer {a.buffer_var.name} has "
                               f"a symbolic size ({e})")
            size = _op.mul(size, e)
        n = IntImm("int32", self.phases.info.threads())
        self.allocs.append(Allocate(a.buffer_var, a.dtype, (_op.mul(size, n),), a.condition,
                                    None, a.annotations, "global"))
        return ReplicateBuffers({a.buffer_var: size}, self.phases.tid,
                                self.phases.info.name).visit(body)


def _poison(shared) -> list:
    """Fill each shared buffer with garbage when a block starts (NaN for floats, 0x5A bytes
    for integers): a thread reading an element no thread of its block has written yet (a
    missing barrier) then reads garbage every time, not what the previous block left at the
    same address."""
    out = []
    for a in shared:
        if _dt.lanes(a.dtype) != 1:
            continue
        if _dt.is_float(a.dtype):
            val = FloatImm(a.dtype, math.nan)
        elif _dt.is_bool(a.dtype):
            val = IntImm(a.dtype, 1)
        else:
            val = IntImm(a.dtype, 0x5A5A5A5A5A5A5A5A >> (64 - _dt.bits(a.dtype)))
        size = IntImm("int64", 1)
        for e in a.extents:
            size = _op.mul(size, _op.cast("int64", e))
        buf = Buffer(a.buffer_var, a.dtype, (size,), name=f"{a.buffer_var.name}_poison")
        e = Var("e", "int64")
        out.append(For(e, IntImm("int64", 0), size, ForKind.SERIAL,
                       BufferStore(buf, val, (e,))))
    return out


class _Emulate(Mutator):
    def __init__(self, check: bool):
        self.check = check

    def visit_AttrStmt(self, s):
        if s.attr_key != KERNEL_ATTR:
            return self.generic(s)
        info = s.node
        phases = _Phases(info)
        hoist = _HoistLocals(phases)
        body = hoist.visit(s.body)
        shuffles = _Shuffles(info, phases.tid)
        body = shuffles.visit(body)
        check = RaceCheck(info, phases.tid) if self.check and info.shared else None
        if check is not None:
            body = check.instrument(body)
            phases.on_barrier = check.on_barrier()
        body = phases.run(body)
        if check is not None:
            body = SeqStmt.flatten(check.init(), body)
        else:
            body = SeqStmt.flatten(*_poison(info.shared), body)
        stages = [a for a, _ in shuffles.stages.values()]
        for a in reversed(hoist.allocs + stages + info.shared
                          + (check.allocs if check else [])):
            body = Allocate(a.buffer_var, a.dtype, a.extents, a.condition, body,
                            a.annotations, "global")
        b = Var("block", "int64")
        dims = [t for t in BLOCK_TAGS if t in info.vars]
        rest = b
        lets = []
        for k, t in enumerate(dims):
            ext = _op.cast("int64", info.extent(t))
            val = rest if k == len(dims) - 1 else _op.floormod(rest, ext)
            lets.append((info.vars[t], _op.cast("int32", val)))
            rest = _op.floordiv(rest, ext)
        for v, val in reversed(lets):
            body = LetStmt(v, val, body)
        total = IntImm("int64", 1)
        for t in dims:
            total = _op.mul(total, _op.cast("int64", info.extent(t)))
        return For(b, IntImm("int64", 0), total, ForKind.PARALLEL, body)


def emulate_gpu_kernels(func, check: bool = False):
    """Replace every kernel of ``func`` by its CPU emulation (module docstring); ``check``
    adds the race and bounds checks of :mod:`gpu_race_check` on shared memory."""
    return func.with_body(_Emulate(check).visit(func.body)).with_attr(
        "tvmlite.arg_device_type", 2)
