"""Inject virtual threads (``vthread``, ``cthread``): interleave their iterations.

A loop bound to a virtual thread disappears; each statement of its body that depends on the
virtual thread is replicated once per virtual thread, as deep in the loop nest as possible, so
that the innermost loop holds the copies of all virtual threads side by side (classic TVM's
InjectVirtualThread). A statement without loops is unrolled (fewer than 16 virtual threads);
one with loops, or with more virtual threads, gets a serial loop ``<name>.s`` over them.
Statements that do not depend on the virtual thread (a shared-memory load of the whole tile) run
once. Buffers allocated inside the loop whose contents depend on the virtual thread are
replicated, one copy per virtual thread (indexed ``i + vt * extent`` by
:mod:`replicate_buffer`); the others stay shared by all virtual threads, and so do shared-memory
buffers, which belong to the thread block (buffer compaction sizes one for what every thread and
virtual thread accesses), unless one allocated under the virtual thread is sized for one virtual
thread (no store into it depends on the virtual thread): that one is replicated. For ``cthread``
(VTA) every buffer is replicated and every store repeated, as classic TVM does.
Before::

    for vx in T.thread_binding(2, thread="vthread"):
        C_local = T.allocate([4], "float32", "local")
        for k in range(16):
            for i in range(4):
                C_local[i] = C_local[i] + A[k, vx * 4 + i]

After::

    C_local = T.allocate([8], "float32", "local")
    for k in range(16):
        for i in range(4):
            C_local[i] = C_local[i] + A[k, i]
            C_local[i + 4] = C_local[i + 4] + A[k, 4 + i]

Runs on flat buffers (after ``FlattenBuffer``), as classic TVM's pass does.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Set, Tuple

from ...arith.analyzer import Analyzer
from ...error import TVMError
from ..analysis.verify_gpu_code import VIRTUAL_THREAD_ATTR, VIRTUAL_THREADS
from ..buffer import Buffer
from ..expr import BufferLoad, IntImm, PrimExpr, Var
from ..functor import Mutator, Visitor, post_order_visit, substitute
from ..stmt import (
    Allocate,
    AttrStmt,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    SeqStmt,
    Stmt,
)
from .replicate_buffer import ReplicateBuffers

#: fewer copies than this (the product over nested virtual threads) are unrolled; more get a
#: serial loop
MAX_UNROLLED = 16


def _vars_of(node) -> Set[Var]:
    """The variables ``node`` uses, with the data variables of the buffers it accesses."""
    out: Set[Var] = set()

    def f(x):
        if isinstance(x, Var):
            out.add(x)
        elif isinstance(x, (BufferLoad, BufferStore)):
            out.add(x.buffer.data)

    post_order_visit(node, f)
    return out


def _contains(node, types) -> bool:
    found = []

    def f(x):
        if isinstance(x, types):
            found.append(x)

    post_order_visit(node, f)
    return bool(found)


class _Dependencies(Visitor):
    """Which variable's value depends on which: a buffer on what is stored into it (indices,
    value, and the conditions around the store), a let or loop variable on its value or
    bounds, an allocation on its extents."""

    def __init__(self):
        self.deps: Dict[Var, Set[Var]] = {}
        self.control: List[Set[Var]] = []

    def _add(self, var: Var, deps: Set[Var]) -> None:
        self.deps.setdefault(var, set()).update(deps)

    def visit_For(self, s):
        self._add(s.loop_var, _vars_of(s.min) | _vars_of(s.extent))
        self.generic(s)

    def visit_LetStmt(self, s):
        self._add(s.var, _vars_of(s.value))
        self.generic(s)

    def visit_Allocate(self, s):
        self._add(s.buffer_var, _vars_of(s.extents))
        self.generic(s)

    def visit_IfThenElse(self, s):
        self.control.append(_vars_of(s.condition))
        self.visit(s.then_case)
        if s.else_case is not None:
            self.visit(s.else_case)
        self.control.pop()

    def visit_BufferStore(self, s):
        deps = _vars_of(s.value) | _vars_of(s.indices)
        for c in self.control:
            deps |= c
        self._add(s.buffer.data, deps)


def _touched(body: Stmt, vt: Var) -> Set[Var]:
    """The variables (buffer data included) whose value depends on ``vt``, and ``vt``."""
    col = _Dependencies()
    col.visit(body)
    users: Dict[Var, List[Var]] = {}
    for var, deps in col.deps.items():
        for d in deps:
            users.setdefault(d, []).append(var)
    seen, todo = {vt}, [vt]
    while todo:
        for u in users.get(todo.pop(), ()):
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return seen


class _Resize(Mutator):
    """Give the accesses of one replicated buffer its new (longer) shape."""

    def __init__(self, data: Var, extent: PrimExpr):
        self.data, self.extent = data, extent
        self.memo: Dict[int, Tuple[Buffer, Buffer]] = {}  # id -> (buffer, resized)

    def _buf(self, buf: Buffer) -> Buffer:
        ent = self.memo.get(id(buf))
        if ent is None or ent[0] is not buf:
            ent = self.memo[id(buf)] = (buf, dataclasses.replace(buf, shape=(self.extent,)))
        return ent[1]

    def visit_BufferLoad(self, e):
        new = self.generic(e)
        if e.buffer.data is not self.data:
            return new
        return BufferLoad(self._buf(new.buffer), new.indices)

    def visit_BufferStore(self, s):
        new = self.generic(s)
        if s.buffer.data is not self.data:
            return new
        return BufferStore(self._buf(new.buffer), new.value, new.indices)


class _Injector:
    """Interleave the iterations of one virtual-thread loop (see the module docstring)."""

    def __init__(self, loop: For, copies: int = 1):
        tag = loop.thread_binding.thread_tag
        if not isinstance(loop.extent, IntImm):
            raise TVMError(f"virtual thread {loop.loop_var.name!r} ({tag}) needs a constant "
                           f"extent, got {loop.extent}")
        self.var, self.min, self.n = loop.loop_var, loop.min, loop.extent.value
        self.copies = copies  # the copies inner virtual threads already made of a statement
        self.share = tag != "cthread"  # classic: only "vthread*" share unchanged buffers
        self.touched = _touched(loop.body, self.var)
        self.extents: Dict[Var, PrimExpr] = {}  # replicated buffer → extent of one copy

    def _uses(self, node) -> bool:
        return not self.touched.isdisjoint(_vars_of(node))

    def _stores_by_vthread(self, data: Var, body: Stmt) -> bool:
        """Whether some store into ``data`` has an index that depends on the virtual thread."""
        found, ana = [], Analyzer()

        def f(x):
            if isinstance(x, BufferStore) and x.buffer.data is data and self._uses(
                    tuple(ana.simplify(i) for i in x.indices)):  # ``i - i`` uses no ``i``
                found.append(x)

        post_order_visit(body, f)
        return bool(found)

    def _needs(self, s: Stmt) -> bool:
        """Whether ``s`` differs from one virtual thread to the next."""
        if self._uses(s):
            return True
        return not self.share and _contains(s, (BufferStore, Evaluate))

    def visit(self, s: Stmt) -> Stmt:
        if not self._needs(s):
            return s
        if isinstance(s, SeqStmt):
            return SeqStmt.flatten(*[self.visit(c) for c in s.seq])
        if isinstance(s, For) and not self._uses((s.min, s.extent)):
            return dataclasses.replace(s, body=self.visit(s.body))
        if isinstance(s, IfThenElse) and not self._uses(s.condition):
            return IfThenElse(s.condition, self.visit(s.then_case),
                              None if s.else_case is None else self.visit(s.else_case))
        if isinstance(s, AttrStmt) and not self._uses(s.value):
            return dataclasses.replace(s, body=self.visit(s.body))
        if isinstance(s, LetStmt) and not self._uses(s.value):
            return LetStmt(s.var, s.value, self.visit(s.body))
        if isinstance(s, Allocate) and not self._uses((s.extents, s.condition)):
            return self._allocate(s)
        return self._replicate(s)

    def _allocate(self, s: Allocate) -> Stmt:
        # shared memory belongs to the thread block, which the virtual threads share like
        # real threads do: one copy when compaction sized it for every virtual thread (its
        # stores are indexed by the virtual thread; a copy per vthread would leave each one
        # partly written when a statement of every vthread reads the whole buffer, e.g.
        # write_at's copy-back). A shared buffer allocated under the virtual thread and sized
        # for one (stores at the same place in every vthread) is replicated like local memory.
        shared = s.scope.startswith("shared") and self._stores_by_vthread(s.buffer_var, s.body)
        if self.share and (s.buffer_var not in self.touched or shared):
            return dataclasses.replace(s, body=self.visit(s.body))
        if len(s.extents) != 1:
            raise TVMError(f"virtual thread injection: allocation {s.buffer_var.name!r} is "
                           "not flat")
        extent = s.extents[0]
        total = IntImm(extent.dtype, extent.value * self.n) if isinstance(extent, IntImm) \
            else extent * self.n
        self.extents[s.buffer_var] = extent
        body = _Resize(s.buffer_var, total).visit(self.visit(s.body))
        return dataclasses.replace(s, extents=(total,), body=body)

    def _replicate(self, s: Stmt) -> Stmt:
        """``s`` once per virtual thread: copies side by side, or a serial loop over them."""
        def copy(vt, index):
            out = substitute(s, {self.var: vt})
            return ReplicateBuffers(self.extents, index, "virtual thread injection").visit(out) \
                if self.extents else out

        if self.n * self.copies < MAX_UNROLLED and not _contains(s, (For, Allocate)):
            return SeqStmt.flatten(*[copy(self.min + i, IntImm(self.var.dtype, i))
                                     for i in range(self.n)])
        idx = Var(self.var.name + ".s", self.var.dtype)
        body = copy(idx + self.min, idx)
        return For(idx, IntImm(idx.dtype, 0), IntImm(idx.dtype, self.n), ForKind.SERIAL, body)


def _is_virtual(s: For) -> bool:
    tb = s.thread_binding
    return s.kind == ForKind.THREAD_BINDING and tb is not None \
        and tb.thread_tag in VIRTUAL_THREADS


class _Lower(Mutator):
    def __init__(self):
        self.copies = 1  # the copies the virtual threads inside the current one make
        self.product = 1  # of the vthread extents around the current loop
        self.max_product = 1

    def visit_For(self, s):
        if not _is_virtual(s):
            return self.generic(s)
        outer, around = self.copies, self.product
        self.copies = 1
        if s.thread_binding.thread_tag != "cthread" and isinstance(s.extent, IntImm):
            self.product = around * s.extent.value
            self.max_product = max(self.max_product, self.product)
        try:
            new = self.generic(s)  # inner virtual threads first
        finally:
            self.product = around
        inner = self.copies
        inj = _Injector(new, inner)
        out = inj.visit(new.body)
        unrolled = inj.n * inner < MAX_UNROLLED
        self.copies = max(outer, inner * inj.n if unrolled else inner)
        return out


def lower_virtual_thread(body: Stmt, func=None) -> Stmt:
    """Inject the virtual-thread loops of ``body`` (see the module docstring)."""
    return _Lower().visit(body)


def lower_virtual_thread_func(func, mod=None, ctx=None):
    """Inject the virtual-thread loops of ``func``, recording the largest product of nested
    ``vthread`` extents as the attribute ``VIRTUAL_THREAD_ATTR`` (when above 1)."""
    low = _Lower()
    body = low.visit(func.body)
    if body is func.body:
        return func
    out = func.with_body(body)
    if low.max_product > 1:
        out = out.with_attr(VIRTUAL_THREAD_ATTR, IntImm("int32", low.max_product))
    return out
