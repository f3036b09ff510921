"""Turn ``vectorized`` loops into vector operations (``tir.VectorizeLoop``).

The loop variable becomes ``T.Ramp(min, 1, lanes)``; scalars meeting vectors are broadcast;
loads and stores with a vector index are vector loads/stores. Inner loops whose bounds do not
vary by lane stay loops inside the vector body; allocations under the vector loop are widened
by the lane count (lane ``l`` of element ``i`` lives at ``i * lanes + l``). A lane-varying
``if_then_else`` stays lazy: the C backend evaluates its branches with masked loads.

Before::

    for i in T.vectorized(8):
        for k in range(128):
            B[n * 8 + i] = B[n * 8 + i] + A[n * 8 + i - k] * W[k]

After::

    for k in range(128):
        B[T.Ramp(n * 8, 1, 8)] = B[T.Ramp(n * 8, 1, 8)] \
            + A[T.Ramp(n * 8 - k, 1, 8)] * T.Broadcast(W[k], 8)

A loop that cannot be vectorized (a lane-varying ``if`` statement, lane-varying loop bounds, a
store whose lanes collide, a symbolic extent) becomes a serial loop named ``<name>_s``, as in
classic TVM. Lane counts that are not a power of two (an AutoTVM split may pick 41) are split
into power-of-two pieces (32 + 8 + 1) so every piece maps to a machine vector type; counts over
``MAX_LANES`` are strip-mined. ``PassContext`` config ``tir.disable_vectorize`` makes every
vectorized loop serial.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...arith.analyzer import Analyzer
from ...ir import dtype as _dt
from ...ir.transform import PassContext
from .. import expr as E
from .. import stmt as S
from ..functor import Mutator, post_order_visit, substitute
from .fresh_copy import fresh_copy
from .function_pass import PrimFuncPass, stmt_pass
from .simplify import simplify_stmt

MAX_LANES = 64


class _CannotVectorize(Exception):
    pass


def _lanes(e) -> int:
    return _dt.lanes(e.dtype) if isinstance(e, E.PrimExpr) else 1


def _is_int(e: E.PrimExpr) -> bool:
    return _dt.element(e.dtype).startswith(("int", "uint"))


def _bcast(e: E.PrimExpr, lanes: int) -> E.PrimExpr:
    n = _lanes(e)
    if n == lanes:
        return e
    if n != 1:
        raise _CannotVectorize(f"mixing {n} and {lanes} lanes")
    return E.Broadcast(e, lanes)


def _int(dtype: str, v: int) -> E.IntImm:
    return E.IntImm(dtype, v)


_BIN = (E.Add, E.Sub, E.Mul, E.Div, E.Mod, E.FloorDiv, E.FloorMod, E.Min, E.Max, E.And, E.Or,
        E.EQ, E.NE, E.LT, E.LE, E.GT, E.GE)
_NO_VECTOR_CALLS = ("call_extern", "call_pure_extern", "call_packed", "address_of",
                    "address_of_elem", "tvm_access_ptr")


class _Vectorizer:
    """Rewrites the body of one vectorized loop (raises _CannotVectorize when it cannot)."""

    def __init__(self, var: E.Var, base: E.PrimExpr, lanes: int):
        self.ana = Analyzer()
        self.lanes = lanes
        self.vmap: Dict[E.Var, E.PrimExpr] = {var: E.Ramp(base, _int(var.dtype, 1), lanes)}
        self.widened: set = set()

    def ramp(self, base, stride, lanes: int) -> E.Ramp:
        return E.Ramp(self.ana.simplify(base), self.ana.simplify(stride), lanes)

    # ------------------------------------------------------------------ expressions
    def e(self, x):
        if isinstance(x, E.Var):
            return self.vmap.get(x, x)
        if isinstance(x, (E.IntImm, E.FloatImm, E.StringImm)) or not isinstance(x, E.PrimExpr):
            return x
        if isinstance(x, _BIN):
            return self._binary(x)
        if isinstance(x, E.Not):
            a = self.e(x.a)
            return x if a is x.a else E.Not(a)
        if isinstance(x, E.Cast):
            v = self.e(x.value)
            if v is x.value:
                return x
            return E.Cast(_dt.with_lanes(x.dtype, _lanes(v)), v)
        if isinstance(x, E.Select):
            c, t, f = self.e(x.condition), self.e(x.true_value), self.e(x.false_value)
            if c is x.condition and t is x.true_value and f is x.false_value:
                return x
            n = max(_lanes(c), _lanes(t), _lanes(f))
            return E.Select(c if _lanes(c) == 1 else _bcast(c, n), _bcast(t, n), _bcast(f, n))
        if isinstance(x, E.Call):
            return self._call(x)
        if isinstance(x, E.BufferLoad):
            idx = self._index(x.buffer, x.indices)
            if idx == tuple(x.indices):
                return x
            return E.BufferLoad(x.buffer, idx)
        if isinstance(x, E.Let):
            v = self.e(x.value)
            if _lanes(v) != 1:
                nv = E.Var(x.var.name, v.dtype)
                self.vmap[x.var] = nv
                return E.Let(nv, v, self.e(x.body))
            b = self.e(x.body)
            return x if v is x.value and b is x.body else E.Let(x.var, v, b)
        raise _CannotVectorize(f"cannot vectorize {type(x).__name__}")

    def _binary(self, x):
        a, b = self.e(x.a), self.e(x.b)
        if a is x.a and b is x.b:
            return x
        la, lb = _lanes(a), _lanes(b)
        if la == 1 and lb == 1:
            return type(x)(a, b)
        # keep index arithmetic in Ramp form so loads stay contiguous
        if isinstance(x, (E.Add, E.Sub)) and (isinstance(a, E.Ramp) or la == 1) \
                and (isinstance(b, E.Ramp) or lb == 1):
            op = type(x)
            ab, asd = (a.base, a.stride) if isinstance(a, E.Ramp) else (a, _int(a.dtype, 0))
            bb, bsd = (b.base, b.stride) if isinstance(b, E.Ramp) else (b, _int(b.dtype, 0))
            n = a.lanes if isinstance(a, E.Ramp) else b.lanes
            return self.ramp(op(ab, bb), op(asd, bsd), n)
        if isinstance(x, E.Mul) and isinstance(a, E.Ramp) and lb == 1:
            return self.ramp(E.Mul(a.base, b), E.Mul(a.stride, b), a.lanes)
        if isinstance(x, E.Mul) and isinstance(b, E.Ramp) and la == 1:
            return self.ramp(E.Mul(a, b.base), E.Mul(a, b.stride), b.lanes)
        n = max(la, lb)
        a, b = _bcast(a, n), _bcast(b, n)
        out = type(x)(a, b)
        if _is_int(out) and all(isinstance(v, (E.Ramp, E.Broadcast)) for v in (a, b)):
            # index arithmetic stays a ramp where it can (a contiguous access):
            # ramp(32 * i + 16, 1, 16) // 32 -> broadcast(i), % 32 -> ramp(16, 1, 16)
            return self.ana.simplify(out)
        return out

    def _call(self, x: E.Call):
        args = tuple(self.e(a) if isinstance(a, E.PrimExpr) else a for a in x.args)
        if all(a is b for a, b in zip(args, x.args)):
            return x
        if x.op in _NO_VECTOR_CALLS:
            raise _CannotVectorize(f"{x.op} with lane-varying arguments")
        if x.op == "if_then_else":
            c, t, f = args
            n = max(_lanes(c), _lanes(t), _lanes(f))
            c = c if _lanes(c) == 1 else _bcast(c, n)
            return E.Call(_dt.with_lanes(x.dtype, n), x.op, (c, _bcast(t, n), _bcast(f, n)))
        n = max(_lanes(a) for a in args if isinstance(a, E.PrimExpr))
        args = tuple(_bcast(a, n) if isinstance(a, E.PrimExpr) and
                     not isinstance(a, E.StringImm) else a for a in args)
        return E.Call(_dt.with_lanes(x.dtype, n), x.op, args)

    def _index(self, buf, indices):
        idx = tuple(self.e(i) for i in indices)
        if buf.data in self.widened:
            if len(idx) != 1:
                raise _CannotVectorize("multi-dimensional access to a widened buffer")
            i = idx[0]
            L = self.lanes
            if _lanes(i) == 1:
                idx = (self.ramp(E.Mul(i, _int(i.dtype, L)), _int(i.dtype, 1), L),)
            else:
                el = _dt.element(i.dtype)
                idx = (E.Add(E.Mul(i, E.Broadcast(_int(el, L), L)),
                             E.Ramp(_int(el, 0), _int(el, 1), L)),)
        elif any(_lanes(i) != 1 for i in idx[:-1]):
            raise _CannotVectorize("lane-varying index in a leading dimension")
        return idx

    # ------------------------------------------------------------------ statements
    def s(self, st):
        if isinstance(st, S.SeqStmt):
            return S.SeqStmt.flatten(*[self.s(x) for x in st.seq])
        if isinstance(st, S.BufferStore):
            value = self.e(st.value)
            idx = self._index(st.buffer, st.indices)
            n = _lanes(idx[-1]) if idx else 1
            if n == 1:
                if _lanes(value) != 1:
                    raise _CannotVectorize(f"all lanes store to one element of {st.buffer.name}")
                if _reads(value, st.buffer.data):
                    raise _CannotVectorize(f"lane-invariant update of {st.buffer.name}")
            else:
                value = _bcast(value, n)
            return S.BufferStore(st.buffer, value, idx)
        if isinstance(st, S.For):
            mn, ext = self.e(st.min), self.e(st.extent)
            if _lanes(mn) != 1 or _lanes(ext) != 1:
                raise _CannotVectorize(f"bounds of loop {st.loop_var.name} vary by lane")
            if st.kind in (S.ForKind.PARALLEL, S.ForKind.THREAD_BINDING):
                raise _CannotVectorize("parallel loop inside a vectorized loop")
            return S.For(st.loop_var, mn, ext, st.kind, self.s(st.body), st.thread_binding,
                         st.annotations)
        if isinstance(st, S.IfThenElse):
            c = self.e(st.condition)
            if _lanes(c) != 1:
                raise _CannotVectorize("lane-varying if statement")
            els = self.s(st.else_case) if st.else_case is not None else None
            return S.IfThenElse(c, self.s(st.then_case), els)
        if isinstance(st, S.LetStmt):
            v = self.e(st.value)
            if _lanes(v) != 1:
                nv = E.Var(st.var.name, v.dtype)
                self.vmap[st.var] = nv
                return S.LetStmt(nv, v, self.s(st.body))
            return S.LetStmt(st.var, v, self.s(st.body))
        if isinstance(st, S.Allocate):
            if len(st.extents) != 1:
                raise _CannotVectorize("multi-dimensional allocation")
            self.widened.add(st.buffer_var)
            ext = (self.ana.simplify(E.Mul(st.extents[0], _int(st.extents[0].dtype, self.lanes))),)
            return S.Allocate(st.buffer_var, st.dtype, ext, st.condition, self.s(st.body),
                              st.annotations, st.scope)
        if isinstance(st, S.Evaluate):
            return S.Evaluate(self.e(st.value))
        if isinstance(st, S.AttrStmt):
            v = self.e(st.value) if isinstance(st.value, E.PrimExpr) else st.value
            if _lanes(v) != 1:
                raise _CannotVectorize("lane-varying attribute")
            return S.AttrStmt(st.node, st.attr_key, v, self.s(st.body))
        raise _CannotVectorize(f"cannot vectorize {type(st).__name__}")


def _reads(e, data) -> bool:
    hit = []
    post_order_visit(e, lambda n: hit.append(1) if isinstance(n, E.BufferLoad)
                     and n.buffer.data is data else None)
    return bool(hit)


def _serial(loop: S.For, suffix: str = "_s") -> S.For:
    nv = E.Var(loop.loop_var.name + suffix, loop.loop_var.dtype)
    body = substitute(loop.body, {loop.loop_var: nv})
    return S.For(nv, loop.min, loop.extent, S.ForKind.SERIAL, body, None, loop.annotations)


def _pow2_pieces(n: int) -> List[tuple]:
    """(lanes, repeats) pieces covering ``n``: 41 -> (32, 1), (8, 1), (1, 1)."""
    out = [(MAX_LANES, n // MAX_LANES)] if n >= MAX_LANES else []
    p = MAX_LANES // 2
    rest = n % MAX_LANES
    while rest:
        if p <= rest:
            out.append((p, 1))
            rest -= p
        p //= 2
    return out


def vectorize_for(loop: S.For) -> S.Stmt:
    """Vectorize one ``vectorized`` loop whose body is already processed."""
    if not isinstance(loop.extent, E.IntImm):
        return _serial(loop)
    n = int(loop.extent.value)
    v = loop.loop_var
    if n <= 1:
        if n == 0:
            return S.Evaluate(_int("int32", 0))

        # fold the now-constant indices and guards (a one-lane tail piece: ``C[36]``)
        return simplify_stmt(substitute(loop.body, {v: loop.min}))
    if n > MAX_LANES or n & (n - 1):
        ana = Analyzer()
        parts, start = [], 0
        for p, reps in _pow2_pieces(n):
            i = E.Var(v.name, v.dtype)
            if reps > 1:
                o = E.Var(v.name + "_o", v.dtype)
                lo = ana.simplify(loop.min + _int(v.dtype, start) + o * _int(v.dtype, p))
                inner = S.For(i, lo, _int(v.dtype, p), S.ForKind.VECTORIZED,
                              fresh_copy(loop.body, {v: i}))
                parts.append(S.For(o, _int(v.dtype, 0), _int(v.dtype, reps), S.ForKind.SERIAL,
                                   vectorize_for(inner)))
            else:
                lo = ana.simplify(loop.min + _int(v.dtype, start))
                inner = S.For(i, lo, _int(v.dtype, p), S.ForKind.VECTORIZED,
                              fresh_copy(loop.body, {v: i}))
                parts.append(vectorize_for(inner))
            start += p * reps
        return S.SeqStmt.flatten(*parts)
    if _has_float16(loop.body):  # the C backend has no float16 vector type
        return _serial(loop)
    try:
        out = _Vectorizer(v, loop.min, n).s(loop.body)
    except _CannotVectorize:
        return _serial(loop)
    return _SplitWide().visit(out)


def _has_float16(body) -> bool:
    found = []

    def f(x):
        dt = getattr(x, "dtype", None)
        if isinstance(dt, str) and _dt.element(dt) == "float16":
            found.append(x)

    post_order_visit(body, f)
    return bool(found)


# ---------------------------------------------------------------------------- machine-wide parts
NATIVE_BYTES = 64  # one AVX-512 register


class _NoSplit(Exception):
    pass


def _part(e, j: int, w: int, ana):
    """Lanes ``[j*w, (j+1)*w)`` of the vector expression ``e``."""
    if not isinstance(e, E.PrimExpr) or _lanes(e) == 1:
        return e
    if isinstance(e, E.Ramp):
        return E.Ramp(ana.simplify(e.base + e.stride * _int(e.base.dtype, j * w)), e.stride, w)
    if isinstance(e, E.Broadcast):
        return E.Broadcast(e.value, w)
    if isinstance(e, _BIN):
        out = type(e)(_part(e.a, j, w, ana), _part(e.b, j, w, ana))
        # a part of an index may fall inside one block of a division the whole vector
        # straddled: simplified, its loads are contiguous again instead of gathered
        return ana.simplify(out) if _is_int(out) else out
    if isinstance(e, E.Not):
        return E.Not(_part(e.a, j, w, ana))
    if isinstance(e, E.Cast):
        return E.Cast(_dt.with_lanes(e.dtype, w), _part(e.value, j, w, ana))
    if isinstance(e, E.Select):
        return E.Select(*(_part(x, j, w, ana) for x in (e.condition, e.true_value,
                                                          e.false_value)))
    if isinstance(e, E.Call):
        return E.Call(_dt.with_lanes(e.dtype, w), e.op, tuple(_part(a, j, w, ana)
                                                               for a in e.args))
    if isinstance(e, E.BufferLoad):
        return E.BufferLoad(e.buffer, tuple(_part(i, j, w, ana) for i in e.indices))
    raise _NoSplit()


class _SplitWide(Mutator):
    """A store wider than a machine register becomes one store per register-wide part, so the
    parts are independent operations (several accumulators in flight, none spilled)."""

    def __init__(self):
        self.ana = Analyzer()

    def visit_BufferStore(self, op: S.BufferStore):
        n = _lanes(op.indices[-1]) if op.indices else 1
        el = _dt.element(op.buffer.dtype)
        w = max(1, NATIVE_BYTES * 8 // max(8, _dt.bits(el)))
        if n <= w or n % w:
            return op
        try:
            parts = [S.BufferStore(op.buffer, _part(op.value, j, w, self.ana),
                                   tuple(_part(i, j, w, self.ana) for i in op.indices))
                     for j in range(n // w)]
        except _NoSplit:
            return op
        return S.SeqStmt.flatten(*parts)

    def visit_SeqStmt(self, op):
        seq = [self.visit(x) for x in op.seq]
        if all(a is b for a, b in zip(seq, op.seq)):
            return op
        return S.SeqStmt.flatten(*seq)


class _VectorizeLoops(Mutator):

    def visit_SeqStmt(self, op):
        seq = [self.visit(x) for x in op.seq]
        if all(a is b for a, b in zip(seq, op.seq)):
            return op
        return S.SeqStmt.flatten(*seq)

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def visit_For(self, op: S.For):
        body = self.visit(op.body)
        if op.kind != S.ForKind.VECTORIZED:
            if body is op.body:
                return op
            return S.For(op.loop_var, op.min, op.extent, op.kind, body, op.thread_binding,
                         op.annotations)
        loop = S.For(op.loop_var, op.min, op.extent, op.kind, body, op.thread_binding,
                     op.annotations)
        if not self.enabled:
            return S.For(op.loop_var, op.min, op.extent, S.ForKind.SERIAL, body,
                         op.thread_binding, op.annotations)
        return vectorize_for(loop)


def vectorize_loop(body: S.Stmt, func=None, enabled: Optional[bool] = None) -> S.Stmt:
    """Vectorize every ``vectorized`` loop of ``body`` (see the module docstring)."""
    if enabled is None:
        enabled = not PassContext.current().config.get("tir.disable_vectorize", False)
    return _VectorizeLoops(enabled).visit(body)


def VectorizeLoop(enable_vectorize: bool = True) -> PrimFuncPass:  # noqa: N802
    """The ``tir.VectorizeLoop`` pass."""
    return stmt_pass(lambda body, func: vectorize_loop(
        body, func, None if enable_vectorize else False), "tir.VectorizeLoop")
