"""Find the GPU kernels of a lowered function and give each its launch parameters.

A kernel is a loop nest whose outermost loop is bound to ``blockIdx.*``/``threadIdx.*``. Every
loop bound to the same tag in one kernel is the same hardware index (classic TE: the cached
loads of cooperative fetching reuse the threads of the consumer), so each tag becomes one
variable, and a loop shorter than the launch extent is guarded. ``shared`` allocations move to
the kernel's top (one per block); a shared or local allocation left in host code moves into the
one kernel using it. Before::

    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            C[bx * 64 + tx] = A[bx * 64 + tx] + B[bx * 64 + tx]

After (``AttrStmt(KernelInfo, "tvmlite.gpu_kernel", ...)`` around the body)::

    with T.attr(kernel0{blockIdx.x: 4, threadIdx.x: 64}, "tvmlite.gpu_kernel", 0):
        C[blockIdx_x * 64 + threadIdx_x] = ...

A reduction loop bound to ``threadIdx`` (directly or after ``rfactor``) becomes a cross-thread
reduction: each thread writes its part to a shared buffer ``red_X`` and thread 0 folds them
(the barrier between comes from :mod:`gpu_barrier`).

Checks, each a TVMError naming the function: threads per block and shared memory per block
within the target's limits, constant thread extents, reductions over blocks or in a form not
recognised (threads would update one element), and no store outside every kernel (an unbound
loop, or nothing bound at all). Nested loops bound to one tag are the same index.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ...error import TVMError
from ...ir import dtype as _dt
from ...ir.structural import structural_equal
from .. import op as _op
from ..buffer import Buffer
from ..expr import Add, BufferLoad, IntImm, Max, Min, Var
from ..functor import Mutator, Visitor, collect_vars, substitute
from ..stmt import Allocate, AttrStmt, BufferStore, For, ForKind, IfThenElse, LetStmt, SeqStmt

KERNEL_ATTR = "tvmlite.gpu_kernel"
THREAD_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
               "threadIdx.z")
BLOCK_TAGS = THREAD_TAGS[:3]
LOCAL_TAGS = THREAD_TAGS[3:]
BARRIER = "tir.tvm_storage_sync"


@dataclass(eq=False)
class KernelInfo:
    """One kernel: its name, a variable and launch extent per thread tag, its shared
    allocations (bodies dropped) and its parameters (free variables, set by the host split)."""

    name: str
    vars: Dict[str, Var] = field(default_factory=dict)
    extents: Dict[str, object] = field(default_factory=dict)
    shared: List[Allocate] = field(default_factory=list)

    def extent(self, tag: str):
        return self.extents.get(tag, IntImm("int32", 1))

    def threads(self) -> int:
        n = 1
        for t in LOCAL_TAGS:
            n *= int(self.extent(t).value)
        return n

    def __repr__(self) -> str:
        dims = ", ".join(f"{t}: {e}" for t, e in self.extents.items())
        return f"{self.name}{{{dims}}}"


def _bound_tag(s) -> Optional[str]:
    tb = s.thread_binding
    if s.kind == ForKind.THREAD_BINDING and tb is not None and tb.thread_tag in THREAD_TAGS:
        return tb.thread_tag
    return None


class _Extents(Visitor):
    def __init__(self):
        self.found: Dict[str, list] = {}

    def visit_For(self, s):
        tag = _bound_tag(s)
        if tag is not None:
            self.found.setdefault(tag, []).append(s)
        self.generic(s)


def _path_to(s, target) -> Optional[list]:
    """The conditions of the ifs between ``s`` and the statement ``target``, or None when a
    loop or a let lies between them."""
    if s is target:
        return []
    if isinstance(s, SeqStmt):
        for c in s.seq:
            p = _path_to(c, target)
            if p is not None:
                return p
        return None
    if isinstance(s, IfThenElse):
        p = _path_to(s.then_case, target)
        if p is not None:
            return [s.condition] + p
        if s.else_case is not None:
            p = _path_to(s.else_case, target)
            if p is not None:
                return [_op.logical_not(s.condition)] + p
        return None
    if isinstance(s, Allocate):
        return _path_to(s.body, target)
    return None


def _replace_stmt(s, target, new):
    class _R(Mutator):
        def visit_BufferStore(self, x):
            return new if x is target else x

    return _R().visit(s)


class _Accumulations(Visitor):
    """Stores ``X[i] = f(X[i], ...)`` to a buffer shared by threads whose index ``i`` does
    not depend on ``var``: every thread of that axis updates the same element."""

    def __init__(self, var):
        self.var = var
        self.found = None

    def visit_BufferStore(self, s):
        if self.found is None and s.buffer.scope() != "local" \
                and not any(self.var in collect_vars(i) for i in s.indices):
            same = []

            class _L(Visitor):
                def visit_BufferLoad(self, e):
                    if e.buffer.data is s.buffer.data:
                        same.append(e)
                    self.generic(e)

            _L().visit(s.value)
            if same:
                self.found = s
        self.generic(s)


class _Normalize(Mutator):
    def __init__(self, info: KernelInfo):
        self.info = info

    def visit_For(self, s):
        tag = _bound_tag(s)
        if tag is None:
            return self.generic(s)
        acc = _Accumulations(s.loop_var)
        if not (isinstance(s.extent, IntImm) and s.extent.value == 1):  # one thread: no race
            acc.visit(s.body)
        source = s.body
        if acc.found is not None:
            source = self._cross_thread_reduce(s, tag, acc.found)
        body = self.visit(source)
        tv = self.info.vars[tag]
        val = tv if _is_zero(s.min) else _op.add(tv, s.min)
        body = substitute(body, {s.loop_var: val})
        launch = self.info.extents[tag]
        if not (isinstance(launch, IntImm) and isinstance(s.extent, IntImm)
                and launch.value == s.extent.value) and launch is not s.extent:
            body = IfThenElse(_op.lt(tv, s.extent), body)
        return body

    def _cross_thread_reduce(self, loop, tag: str, store: BufferStore):
        """``for t (bound): ... X[i] = X[i] + v(t)`` → each thread writes ``v`` to a shared
        buffer, then (after a barrier, inserted later) thread 0 folds the buffer into
        ``X[i]`` under the store's own guards."""
        what = (f"{self.info.name}: loop {loop.loop_var.name} bound to {tag} is a reduction "
                f"loop of {store.buffer.name}")
        if tag not in LOCAL_TAGS:
            raise TVMError(f"{what}: blocks cannot reduce into one element (bind the reduction "
                           "to threadIdx, or keep it serial)")
        path = _path_to(loop.body, store)
        if path is None:
            raise TVMError(f"{what}, but the update sits under a loop or a let inside it: every "
                           "thread would update the same element (cross-thread reductions "
                           "need the update directly under the bound loop)")
        value = store.value
        old = BufferLoad(store.buffer, store.indices)
        if not isinstance(value, (Add, Max, Min)) or not any(
                isinstance(x, BufferLoad) and structural_equal(x, old)
                for x in (value.a, value.b)):
            raise TVMError(f"{what}, and the update is not a sum, min or max of the element: "
                           "every thread would update the same element")
        same_a = isinstance(value.a, BufferLoad) and structural_equal(value.a, old)
        v = value.b if same_a else value.a
        dt = store.buffer.dtype
        ident = {Add: _op.const(0, dt), Max: _op.min_value(dt), Min: _op.max_value(dt)}
        ident = ident[type(value)]
        n = self.info.threads()
        tid = IntImm("int32", 0)
        for tg in reversed(LOCAL_TAGS):
            if tg in self.info.vars:
                tid = _op.add(_op.mul(tid, self.info.extent(tg)), self.info.vars[tg])
        red_var = Var(f"red_{store.buffer.name}", "handle")
        red = Buffer(red_var, dt, (IntImm("int32", n),), name=f"red_{store.buffer.name}",
                     scope_name="shared")
        self.info.shared.append(Allocate(red_var, dt, (IntImm("int32", n),), IntImm("bool", 1),
                                         None, None, "shared"))
        tv = self.info.vars[tag]
        # each thread: its contribution (the identity where its guards fail)
        part = _replace_stmt(loop.body, store, BufferStore(red, v, (tid,)))
        part = SeqStmt.flatten(BufferStore(red, ident, (tid,)), part)
        # thread 0: fold the contributions in thread order, under each one's guards
        t = Var(f"{loop.loop_var.name}_red", loop.loop_var.dtype)
        cond = IntImm("bool", 1)
        for c in path:
            cond = _op.logical_and(cond, c)
        cond = substitute(cond, {loop.loop_var: t})
        tid_t = substitute(tid, {tv: t})
        combined = type(value)(old, BufferLoad(red, (tid_t,))) if same_a else \
            type(value)(BufferLoad(red, (tid_t,)), old)
        upd = BufferStore(store.buffer, combined, store.indices)
        fold = For(t, IntImm(t.dtype, 0), loop.extent, ForKind.SERIAL,
                   upd if isinstance(cond, IntImm) else IfThenElse(cond, upd))
        return SeqStmt.flatten(part, IfThenElse(_op.eq(tv, 0), fold))

    def visit_Allocate(self, a):
        body = self.visit(a.body)
        if a.scope == "shared":
            self.info.shared.append(a)
            return body
        if body is a.body:
            return a
        return Allocate(a.buffer_var, a.dtype, a.extents, a.condition, body, a.annotations,
                        a.scope)


def _is_zero(e) -> bool:
    return isinstance(e, IntImm) and e.value == 0


def _launch_extent(tag: str, loops: list, fname: str):
    exts = [lp.extent for lp in loops]
    if all(isinstance(e, IntImm) for e in exts):
        return IntImm("int32", max(e.value for e in exts))
    if tag in LOCAL_TAGS:
        raise TVMError(f"{fname}: the extent of the loop {loops[0].loop_var.name} bound to "
                       f"{tag} is not a constant ({exts[0]}); threads per block must be known "
                       "when compiling")
    first = exts[0]
    if any(not structural_equal(first, e) for e in exts[1:]):
        raise TVMError(f"{fname}: loops bound to {tag} have different symbolic extents "
                       f"({', '.join(map(str, exts))})")
    return first


def _dtype_bytes(dt: str) -> int:
    return max(_dt.bits(dt), 8) // 8 * _dt.lanes(dt)


class _Split(Mutator):
    def __init__(self, fname: str, max_threads: int, max_shared: int):
        self.fname, self.max_threads, self.max_shared = fname, max_threads, max_shared
        self.kernels: List[KernelInfo] = []

    def visit_For(self, s):
        if _bound_tag(s) is None:
            return self.generic(s)
        info = KernelInfo(f"{self.fname}_kernel{len(self.kernels)}")
        col = _Extents()
        col.visit(s)
        for tag in THREAD_TAGS:
            if tag in col.found:
                info.vars[tag] = Var(tag.replace(".", "_"), "int32")
                info.extents[tag] = _launch_extent(tag, col.found[tag], self.fname)
        n = info.threads()
        if n > self.max_threads:
            dims = " x ".join(f"{t}={info.extents[t]}" for t in LOCAL_TAGS if t in info.extents)
            raise TVMError(f"{self.fname}: {n} threads per block ({dims}) exceed the "
                           f"target's limit of {self.max_threads}")
        body = _Normalize(info).visit(s)
        shared = 0
        for a in info.shared:
            count = 1
            for e in a.extents:
                if not isinstance(e, IntImm):
                    raise TVMError(f"{self.fname}: shared buffer {a.buffer_var.name} has a "
                                   f"symbolic size ({e}); shared memory must be static")
                count *= e.value
            shared += count * _dtype_bytes(a.dtype)
        if shared > self.max_shared:
            names = ", ".join(a.buffer_var.name for a in info.shared)
            raise TVMError(f"{self.fname}: {shared} bytes of shared memory per block ({names}) "
                           f"exceed the target's limit of {self.max_shared} bytes")
        self.kernels.append(info)
        return AttrStmt(info, KERNEL_ATTR, IntImm("int32", 0), body)

    def visit_AttrStmt(self, s):
        if s.attr_key == KERNEL_ATTR:
            return s
        return self.generic(s)


class _HostAccess(Visitor):
    """The first store outside every kernel, with the loops around it."""

    def __init__(self):
        self.loops: List[For] = []
        self.found = None

    def visit_AttrStmt(self, s):
        if s.attr_key != KERNEL_ATTR:
            self.generic(s)

    def visit_For(self, s):
        self.loops.append(s)
        self.generic(s)
        self.loops.pop()

    def visit_BufferStore(self, s: BufferStore):
        if self.found is None:
            self.found = (s, list(self.loops))


def _uses(s, var) -> bool:
    found = []

    class _V(Visitor):
        def visit_BufferLoad(self, e):
            if e.buffer.data is var:
                found.append(e)
            self.generic(e)

        def visit_BufferStore(self, st):
            if st.buffer.data is var:
                found.append(st)
            self.generic(st)

    _V().visit(s)
    return bool(found)


def _sink(a: Allocate, fname: str):
    """Move a shared or local allocation from host code into the one kernel using it."""
    body = a.body

    def wrap(inner):
        return Allocate(a.buffer_var, a.dtype, a.extents, a.condition, inner, a.annotations,
                        a.scope)

    if isinstance(body, For):
        inner = wrap(body.body)
        if _bound_tag(body) is None:
            inner = _sink(inner, fname)
        return For(body.loop_var, body.min, body.extent, body.kind, inner, body.thread_binding,
                   body.annotations)
    if isinstance(body, SeqStmt):
        users = [k for k, c in enumerate(body.seq) if _uses(c, a.buffer_var)]
        if len(users) > 1:
            raise TVMError(f"{fname}: the {a.scope} buffer {a.buffer_var.name} is used by "
                           "several kernels; its contents do not outlive a kernel")
        if users:
            seq = list(body.seq)
            seq[users[0]] = _sink(wrap(seq[users[0]]), fname)
            return SeqStmt(tuple(seq))
        return body
    if isinstance(body, LetStmt):
        return LetStmt(body.var, body.value, _sink(wrap(body.body), fname))
    if isinstance(body, Allocate):
        return Allocate(body.buffer_var, body.dtype, body.extents, body.condition,
                        _sink(wrap(body.body), fname), body.annotations, body.scope)
    return a


class _SinkScoped(Mutator):
    def __init__(self, fname: str):
        self.fname = fname

    def visit_For(self, s):
        return s if _bound_tag(s) is not None else self.generic(s)

    def visit_Allocate(self, a):
        a = self.generic(a)
        if a.scope in ("shared", "local", "warp"):
            return _sink(a, self.fname)
        return a


def lower_gpu_kernels(func, max_threads: int = 1024, max_shared: int = 49152):
    """Mark the kernels of ``func`` (see the module docstring); the host part may only
    launch them."""
    fname = str(func.attrs.get("global_symbol", "default_function"))
    sp = _Split(fname, max_threads, max_shared)
    body = sp.visit(_SinkScoped(fname).visit(func.body))
    chk = _HostAccess()
    chk.visit(body)
    if chk.found is not None:
        store, loops = chk.found
        where = (f" in loop {loops[-1].loop_var.name}" if loops else "")
        if not sp.kernels:
            raise TVMError(f"{fname}: nothing is bound to a GPU thread; bind loops to "
                           f"blockIdx/threadIdx (s[C].bind(x, te.thread_axis(\"blockIdx.x\"))) "
                           f"to build for a GPU target")
        raise TVMError(f"{fname}: the store to {store.buffer.name}{where} runs on the host: "
                       "the loop is not bound to any GPU thread (did you forget to bind it?)")
    return func.with_body(body)


def has_barrier(s) -> bool:
    """Whether ``s`` contains a ``__syncthreads()``."""
    found = []

    class _V(Visitor):
        def visit_Call(self, e):
            if e.op == BARRIER:
                found.append(e)
            self.generic(e)

    _V().visit(s)
    return bool(found)


__all__ = ["KernelInfo", "KERNEL_ATTR", "THREAD_TAGS", "BARRIER", "lower_gpu_kernels",
           "has_barrier"]
