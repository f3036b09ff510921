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
from ..analysis.verify_gpu_code import KERNEL_ATTR, LOCAL_TAGS, THREAD_TAGS
from ..buffer import Buffer
from ..expr import Add, BufferLoad, Call, IntImm, IterVar, Max, Min, Range, StringImm, Var
from ..functor import Mutator, Visitor, collect_vars, substitute
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
)
from .replicate_buffer import ReplicateBuffers

BLOCK_TAGS = THREAD_TAGS[:3]
BARRIER = "tir.tvm_storage_sync"


def warp_sync() -> Evaluate:
    """``__syncwarp()``: the threads of a warp wait for each other, and their memory accesses
    before it are seen by the others after it (a barrier of scope ``"warp"``)."""
    return Evaluate(Call("int32", BARRIER, (StringImm("warp"),)))


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
    def __init__(self, info: KernelInfo, warp_size: int = 32):
        self.info = info
        self.warp_size = warp_size  # 32: CUDA's warp shuffles; else (OpenCL: 1) none
        self.conds = 0  # enclosing ifs: a warp shuffle needs every thread of the warp
        self.outer: Dict[str, For] = {}  # tag -> the outermost enclosing loop bound to it

    def visit_For(self, s):
        tag = _bound_tag(s)
        if tag is None:
            return self.generic(s)
        outer = self.outer.get(tag)
        if outer is not None and outer.loop_var in collect_vars(s.body):
            # a nested loop bound to the same tag is the same index (cooperative fetching);
            # a body using both loops would see them take one value
            raise TVMError(f"{self.info.name}: loop {s.loop_var.name} is bound to {tag} inside "
                           f"loop {outer.loop_var.name}, also bound to {tag}, and its body uses "
                           f"{outer.loop_var.name}: a thread axis bound twice in one loop nest "
                           "(bind one of them to another axis)")
        if outer is None:
            self.outer[tag] = s
        try:
            return self._bound_loop(s, tag)
        finally:
            if outer is None:
                del self.outer[tag]

    def _bound_loop(self, s, tag: str):
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

    def visit_IfThenElse(self, s):
        self.conds += 1
        try:
            return self.generic(s)
        finally:
            self.conds -= 1

    def _cross_thread_reduce(self, loop, tag: str, store: BufferStore):
        """``for t (bound): ... X[i] = X[i] + v(t)``: each thread's ``v`` (the identity where
        its guards fail) is combined across the threads of ``tag``, then thread 0 updates
        ``X[i]``: with warp shuffles inside a warp and a shared buffer across warps
        (threadIdx.x over 2^k <= 32 or a multiple of 32 threads), else with a tree in shared
        memory; where the guards depend on ``t``, thread 0 folds a shared buffer under each
        thread's guards. Barriers come later, from :mod:`gpu_barrier`."""
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
        r = _Reduce(self.info, loop, tag, store, type(value), same_a,
                    value.b if same_a else value.a, path)
        launch = self.info.extent(tag)
        if any(loop.loop_var in collect_vars(c) for c in path) \
                or not (isinstance(loop.extent, IntImm) and loop.extent.value == launch.value):
            return r.serial_fold()
        n = int(launch.value)
        if self.warp_size == 32 and tag == "threadIdx.x" and self.conds == 0 \
                and r.dtype in _SHUFFLE_DTYPES \
                and (n in (2, 4, 8, 16, 32) or (n % 32 == 0 and n <= 1024)):
            return r.warp()
        return r.tree()

    def visit_Allocate(self, a):
        body = self.visit(a.body)
        if a.scope == "warp":
            a, body = self._warp_to_shared(a, body)
        if a.scope == "shared":
            self.info.shared.append(a)
            return body
        if body is a.body:
            return a
        return Allocate(a.buffer_var, a.dtype, a.extents, a.condition, body, a.annotations,
                        a.scope)


    def _warp_to_shared(self, a, body):
        """A ``"warp"`` buffer is shared by the threadIdx.x lanes of one (threadIdx.y,
        threadIdx.z) group: shared memory with one copy per group (barriers come from
        gpu_barrier), so lanes see each other's stores."""
        if len(a.extents) != 1 or not isinstance(a.extents[0], IntImm):
            raise TVMError(f"{self.info.name}: warp buffer {a.buffer_var.name} must have a "
                           f"constant flat size, got {list(a.extents)}")
        group, groups = IntImm("int32", 0), 1
        for tg in ("threadIdx.z", "threadIdx.y"):
            if tg in self.info.vars:
                group = _op.add(_op.mul(group, self.info.extent(tg)), self.info.vars[tg])
                groups *= int(self.info.extent(tg).value)
        size = int(a.extents[0].value)
        if groups > 1:
            body = ReplicateBuffers({a.buffer_var: IntImm("int32", size)}, group,
                                    self.info.name).visit(body)
        return Allocate(a.buffer_var, a.dtype, (IntImm("int32", size * groups),), a.condition,
                        body, a.annotations, "shared"), body


SHUFFLE_DOWN = "tir.tvm_warp_shuffle_down"
_SHUFFLE_DTYPES = ("float32", "float64", "int32", "int64")


def shuffle_down(value, offset: int, width: int):
    """``__shfl_down_sync(mask, value, offset, width)``: the value of the thread ``offset``
    lanes further in the same ``width``-lane group of the warp (its own past the group)."""
    return Call(value.dtype, SHUFFLE_DOWN, (value, IntImm("int32", offset),
                                            IntImm("int32", width)))


class _Reduce:
    """The lowerings of one cross-thread reduction (see ``_cross_thread_reduce``)."""

    def __init__(self, info, loop, tag, store, combiner, same_a, v, path):
        self.info, self.loop, self.tag, self.store = info, loop, tag, store
        self.combiner, self.same_a, self.v, self.path = combiner, same_a, v, path
        self.dtype = store.buffer.dtype
        self.ident = {Add: _op.const(0, self.dtype), Max: _op.min_value(self.dtype),
                      Min: _op.max_value(self.dtype)}[combiner]
        self.tv = info.vars[tag]
        self.n = int(info.extent(tag).value)
        # the thread's index in the block, and the index of its group (the other tags)
        tid, group, gsize = IntImm("int32", 0), IntImm("int32", 0), 1
        for tg in reversed(LOCAL_TAGS):
            if tg in info.vars:
                tid = _op.add(_op.mul(tid, info.extent(tg)), info.vars[tg])
                if tg != tag:
                    group = _op.add(_op.mul(group, info.extent(tg)), info.vars[tg])
                    gsize *= int(info.extent(tg).value)
        self.tid, self.group, self.gsize = tid, group, gsize

    def combine(self, a, b):
        return self.combiner(a, b)

    def shared(self, suffix: str, size: int) -> Buffer:
        name = f"red_{self.store.buffer.name}{suffix}"
        var = Var(name, "handle")
        self.info.shared.append(Allocate(var, self.dtype, (IntImm("int32", size),),
                                         IntImm("bool", 1), None, None, "shared"))
        return Buffer(var, self.dtype, (IntImm("int32", size),), name=name,
                      scope_name="shared")

    def cond(self):
        c = IntImm("bool", 1)
        for x in self.path:
            c = _op.logical_and(c, x)
        return c

    def contribution(self, buf: Buffer, idx):
        """``buf[idx] = identity``, then ``buf[idx] = v`` under the update's guards."""
        part = _replace_stmt(self.loop.body, self.store, BufferStore(buf, self.v, (idx,)))
        return SeqStmt.flatten(BufferStore(buf, self.ident, (idx,)), part)

    def update(self, result):
        """Thread 0 of the group: ``X[i] = X[i] op result`` under the update's guards."""
        old = BufferLoad(self.store.buffer, self.store.indices)
        val = self.combine(old, result) if self.same_a else self.combine(result, old)
        cond = _op.logical_and(_op.eq(self.tv, 0), self.cond())
        return IfThenElse(cond, BufferStore(self.store.buffer, val, self.store.indices))

    def serial_fold(self):
        """Every thread's part to shared memory; thread 0 folds them in order under each
        thread's own guards."""
        red = self.shared("", self.info.threads())
        t = Var(f"{self.loop.loop_var.name}_red", self.loop.loop_var.dtype)
        cond = substitute(self.cond(), {self.loop.loop_var: t})
        tid_t = substitute(self.tid, {self.tv: t})
        old = BufferLoad(self.store.buffer, self.store.indices)
        item = BufferLoad(red, (tid_t,))
        val = self.combine(old, item) if self.same_a else self.combine(item, old)
        upd = BufferStore(self.store.buffer, val, self.store.indices)
        fold = For(t, IntImm(t.dtype, 0), self.loop.extent, ForKind.SERIAL,
                   upd if isinstance(cond, IntImm) else IfThenElse(cond, upd))
        return SeqStmt.flatten(self.contribution(red, self.tid),
                               IfThenElse(_op.eq(self.tv, 0), fold))

    def tree(self):
        """Parts to shared memory, then halving steps ``red[t] op= red[t + s]`` (barriers
        between come from gpu_barrier); thread 0 of the group holds the result."""
        red = self.shared("", self.n * self.gsize)
        base = _op.mul(self.group, self.n)
        at = _op.add(base, self.tv)
        steps = [self.contribution(red, at)]
        s = 1
        while s < self.n:
            s *= 2
        s //= 2
        while s >= 1:
            ok = _op.logical_and(_op.lt(self.tv, s), _op.lt(_op.add(self.tv, s), self.n))
            nxt = BufferLoad(red, (_op.add(at, s),))
            steps.append(IfThenElse(ok, BufferStore(
                red, self.combine(BufferLoad(red, (at,)), nxt), (at,))))
            s //= 2
        steps.append(self.update(BufferLoad(red, (base,))))
        return SeqStmt.flatten(*steps)

    def warp(self):
        """Shuffles down within each warp (or ``n``-lane group); for more than 32 threads the
        warps' results go through shared memory to the first warp, which shuffles again."""
        name = f"red_{self.store.buffer.name}_local"
        var = Var(name, "handle")
        loc = Buffer(var, self.dtype, (IntImm("int32", 1),), name=name, scope_name="local")
        zero = (IntImm("int32", 0),)
        cur = BufferLoad(loc, zero)

        def shuffles(width: int, count: int):
            out, off = [], 1
            while off < count:
                off *= 2
            off //= 2
            while off >= 1:
                out.append(BufferStore(loc, self.combine(cur, shuffle_down(cur, off, width)),
                                       zero))
                off //= 2
            return out

        steps = [self.contribution(loc, zero[0])]
        width = min(self.n, 32)
        steps += shuffles(width, width)
        if self.n > 32:
            nw = self.n // 32
            red = self.shared("_warps", nw * self.gsize)
            lane0 = _op.eq(_op.floormod(self.tv, 32), 0)
            steps.append(IfThenElse(lane0, BufferStore(
                red, cur, (_op.add(_op.mul(self.group, nw), _op.floordiv(self.tv, 32)),))))
            steps.append(BufferStore(loc, self.ident, zero))
            steps.append(IfThenElse(_op.lt(self.tv, nw), BufferStore(
                loc, BufferLoad(red, (_op.add(_op.mul(self.group, nw), self.tv),)), zero)))
            steps += shuffles(32, nw)
        else:
            # the element thread 0 updates was set (e.g. zero-initialised) by every thread of
            # its group; shuffles order no memory, so the warp syncs before the update (above
            # 32 threads the barrier before the second round does it)
            steps.append(warp_sync())
        steps.append(self.update(cur))
        return Allocate(var, self.dtype, (IntImm("int32", 1),), IntImm("bool", 1),
                        SeqStmt.flatten(*steps), None, "local")


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
    def __init__(self, fname: str, max_threads: int, max_shared: int, warp_size: int = 32):
        self.fname, self.max_threads, self.max_shared = fname, max_threads, max_shared
        self.warp_size = warp_size
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
        body = _Normalize(info, self.warp_size).visit(s)
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


def _writes(s, buf) -> bool:
    found = []

    class _W(Visitor):
        def visit_BufferStore(self, st):
            if st.buffer.data is buf.data:
                found.append(st)
            self.generic(st)
    _W().visit(s)
    return bool(found)


class _ThreadExtentLoops(Mutator):
    """``AttrStmt(iv, "thread_extent", n)`` (classic ``ir_builder.scope_attr``, hybrid
    script) as the loop ``for iv.var in T.thread_binding(n, thread=iv.thread_tag)``."""

    def visit_AttrStmt(self, s):
        body = self.visit(s.body)
        if s.attr_key == "thread_extent" and isinstance(s.node, IterVar):
            return For(s.node.var, 0, s.value, ForKind.THREAD_BINDING, body, s.node)
        return s if body is s.body else AttrStmt(s.node, s.attr_key, s.value, body)


class _OneBlockReduce(Mutator):
    """A reduction into a 0-D output over threads only (``te.sum`` of everything, the reduce
    axis split and bound to ``threadIdx.x`` after ``rfactor``) leaves its init store in host
    code, just before the thread loop: both become one block (``blockIdx.x`` of extent 1), as
    when the output has an axis bound to ``blockIdx``."""

    def visit_For(self, s):
        return s if _bound_tag(s) is not None else self.generic(s)

    def visit_SeqStmt(self, s):
        seq = [self.visit(c) for c in s.seq]
        out, i = [], 0
        while i < len(seq):
            a = seq[i]
            b = seq[i + 1] if i + 1 < len(seq) else None
            if (isinstance(a, BufferStore) and isinstance(b, For)
                    and (_bound_tag(b) or "").startswith("threadIdx") and _writes(b, a.buffer)):
                bx = IterVar(Range(IntImm("int32", 0), IntImm("int32", 1)),
                             Var("blockIdx_x", "int32"), IterVar.ThreadIndex, "blockIdx.x")
                out.append(For(bx.var, 0, 1, ForKind.THREAD_BINDING, SeqStmt((a, b)), bx))
                i += 2
                continue
            out.append(a)
            i += 1
        return SeqStmt(tuple(out)) if len(out) > 1 else out[0]


def lower_gpu_kernels(func, max_threads: int = 1024, max_shared: int = 49152,
                      warp_size: int = 32):
    """Mark the kernels of ``func`` (see the module docstring); the host part may only
    launch them."""
    fname = str((func.attrs or {}).get("global_symbol", "default_function"))
    sp = _Split(fname, max_threads, max_shared, warp_size)
    body = _ThreadExtentLoops().visit(func.body)
    body = sp.visit(_SinkScoped(fname).visit(_OneBlockReduce().visit(body)))
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


__all__ = ["KernelInfo", "KERNEL_ATTR", "THREAD_TAGS", "BARRIER", "SHUFFLE_DOWN", "shuffle_down",
           "warp_sync", "lower_gpu_kernels", "has_barrier"]
