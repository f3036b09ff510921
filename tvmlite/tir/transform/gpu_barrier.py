"""Insert ``__syncthreads()`` where threads of a block exchange data through shared memory.

In each kernel (marked by :mod:`gpu_kernels`), statements run by every thread in order; a
barrier goes before a statement that reads a shared buffer written since the last barrier (a
thread may read what another wrote) or writes one read or written since then (another thread
may still read the old value), and at the end of a loop body whose next iteration would
conflict with the last one. Barriers are placed only where every thread arrives: never under
a condition or a loop bound that depends on the thread index. Before::

    for k in range(4):
        A_shared[tx] = A[k * 64 + tx]
        acc[0] = acc[0] + A_shared[63 - tx]

After::

    for k in range(4):
        A_shared[tx] = A[k * 64 + tx]
        T.tvm_storage_sync("shared")
        acc[0] = acc[0] + A_shared[63 - tx]
        T.tvm_storage_sync("shared")
"""
from __future__ import annotations

from typing import Set, Tuple

from ..expr import Call, StringImm
from ..functor import Mutator, Visitor, collect_vars
from ..stmt import Allocate, AttrStmt, Evaluate, For, IfThenElse, LetStmt, SeqStmt
from .gpu_kernels import BARRIER, KERNEL_ATTR


def barrier() -> Evaluate:
    """The ``__syncthreads()`` statement."""
    return Evaluate(Call("int32", BARRIER, (StringImm("shared"),)))


class _Access(Visitor):
    def __init__(self, shared: Set):
        self.shared = shared
        self.reads: Set = set()
        self.writes: Set = set()

    def visit_BufferLoad(self, e):
        if e.buffer.data in self.shared:
            self.reads.add(e.buffer.data)
        self.generic(e)

    def visit_BufferStore(self, s):
        if s.buffer.data in self.shared:
            self.writes.add(s.buffer.data)
        self.generic(s)


class _Sync:
    def __init__(self, shared: Set, thread_vars: Set):
        self.shared, self.tvars = shared, thread_vars

    def access(self, s) -> Tuple[Set, Set]:
        a = _Access(self.shared)
        a.visit(s)
        return a.reads, a.writes

    def uniform(self, e) -> bool:
        return not (collect_vars(e) & self.tvars)

    def run(self, s, state):
        """``s`` with barriers; ``state`` = (reads, writes) since the last barrier, updated."""
        if isinstance(s, SeqStmt):
            out = []
            for c in s.seq:
                out.extend(self._item(c, state))
            return SeqStmt.flatten(*out)
        return SeqStmt.flatten(*self._item(s, state))

    def _conflict(self, r, w, state) -> bool:
        pr, pw = state
        # read after write, write after read; two writes of one element by different threads
        # race with or without a barrier
        return bool(r & pw or w & pr)

    def _item(self, s, state):
        if isinstance(s, SeqStmt):  # a nested sequence is part of this one
            return [x for c in s.seq for x in self._item(c, state)]
        r, w = self.access(s)
        if not (r or w):
            return [s]
        if isinstance(s, For) and self.uniform(s.min) and self.uniform(s.extent):
            pre = []
            if self._conflict(r, w, state):
                pre = [barrier()]
                state[0].clear()
                state[1].clear()
            inner = [set(), set()]
            body = self.run(s.body, inner)
            # the next iteration's accesses meet this iteration's last ones
            head_r, head_w = self._head(body)
            if self._conflict(head_r, head_w, inner):
                body = SeqStmt.flatten(body, barrier())
                inner = [set(), set()]
            state[0] |= inner[0]
            state[1] |= inner[1]
            return pre + [For(s.loop_var, s.min, s.extent, s.kind, body, s.thread_binding,
                              s.annotations)]
        if isinstance(s, IfThenElse) and self.uniform(s.condition):
            pre = []
            if self._conflict(r, w, state):
                pre = [barrier()]
                state[0].clear()
                state[1].clear()
            st_then = [set(state[0]), set(state[1])]
            then = self.run(s.then_case, st_then)
            st_else = [set(state[0]), set(state[1])]
            els = self.run(s.else_case, st_else) if s.else_case is not None else None
            state[0] |= st_then[0] | st_else[0]
            state[1] |= st_then[1] | st_else[1]
            return pre + [IfThenElse(s.condition, then, els)]
        if isinstance(s, (Allocate, LetStmt)) and (not isinstance(s, LetStmt)
                                                   or self.uniform(s.value)):
            body = self.run(s.body, state)
            if isinstance(s, Allocate):
                return [Allocate(s.buffer_var, s.dtype, s.extents, s.condition, body,
                                 s.annotations, s.scope)]
            return [LetStmt(s.var, s.value, body)]
        out = []
        if self._conflict(r, w, state):
            out.append(barrier())
            state[0].clear()
            state[1].clear()
        state[0] |= r
        state[1] |= w
        out.append(s)
        return out

    def _head(self, body):
        """Shared accesses before the first barrier of ``body``."""
        items = body.seq if isinstance(body, SeqStmt) else (body,)
        hr, hw = set(), set()
        for c in items:
            if _is_barrier(c) and c.value.args[0].value == "shared":  # not a warp's sync
                break
            r, w = self.access(c)
            hr |= r
            hw |= w
        return hr, hw


def _is_barrier(s) -> bool:
    return isinstance(s, Evaluate) and isinstance(s.value, Call) and s.value.op == BARRIER


class _Kernels(Mutator):
    def visit_AttrStmt(self, s):
        if s.attr_key != KERNEL_ATTR:
            return self.generic(s)
        info = s.node
        shared = {a.buffer_var for a in info.shared}
        if not shared:
            return s
        body = _Sync(shared, set(info.vars.values())).run(s.body, [set(), set()])
        return AttrStmt(s.node, s.attr_key, s.value, body)


def inject_barriers(func):
    """Insert shared-memory barriers in every kernel of ``func`` (module docstring)."""
    return func.with_body(_Kernels().visit(func.body))
