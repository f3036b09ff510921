"""Narrow a serial loop to the iterations its guard lets through.

A loop whose whole body is an ``if`` bounding the loop variable by loop-invariant values
(``lo <= k``, ``k < hi`` ...) runs only the iterations inside those bounds. The TE lowering
makes such loops for a reduction whose range depends on the output element or on data
(``te.reduce_axis((0, L[i]))`` iterates the hull of the ranges, up to the largest int32 for a
data-dependent one, and skips the values outside the current range); narrowed, the loop runs
the range itself. Bounds that load a buffer count as invariant only when the loop writes no
buffer of that name; a bound with a call other than a pure arithmetic one stays a guard.

Before::

    for k in range(2147483647):
        if k < L[i]:
            C[i] = C[i] + X[k]

After::

    for k in range(T.max(T.min(L[i], 2147483647), 0)):
        C[i] = C[i] + X[k]
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from ...arith import Analyzer
from .. import expr as E
from .. import op as _op
from .. import stmt as S
from ..functor import Mutator, post_order_visit

_PURE_CALLS = frozenset({"abs", "min", "max", "likely"})  # Call.op is the bare name


def _conjuncts(cond: E.PrimExpr) -> List[E.PrimExpr]:
    if isinstance(cond, E.And):
        return _conjuncts(cond.a) + _conjuncts(cond.b)
    return [cond]


def _invariant(e: E.PrimExpr, var: E.Var, written: set) -> bool:
    ok = [True]

    def f(x):
        if x is var or isinstance(x, E.ProducerLoad) or \
                (isinstance(x, E.BufferLoad) and x.buffer.data in written) or \
                (isinstance(x, E.Call) and x.op not in _PURE_CALLS):
            ok[0] = False

    post_order_visit(e, f)
    return ok[0]


def _bound(c: E.PrimExpr, var: E.Var) -> Optional[Tuple[str, E.PrimExpr]]:
    """``("lo", a)`` for ``a <= var`` and ``("hi", b)`` for ``var < b`` (other spellings of
    the same included); None for any other condition."""
    one = E.IntImm(var.dtype, 1)
    if isinstance(c, (E.LT, E.LE)):
        if c.a is var:
            return "hi", c.b if isinstance(c, E.LT) else _op.add(c.b, one)
        if c.b is var:
            return "lo", c.a if isinstance(c, E.LE) else _op.add(c.a, one)
    if isinstance(c, (E.GT, E.GE)):
        if c.a is var:
            return "lo", c.b if isinstance(c, E.GE) else _op.add(c.b, one)
        if c.b is var:
            return "hi", c.a if isinstance(c, E.GT) else _op.add(c.a, one)
    return None


def _stored_buffers(s: S.Stmt) -> set:
    out = set()

    def f(x):
        if isinstance(x, S.BufferStore):
            out.add(x.buffer.data)

    post_order_visit(s, f)
    return out


class _Narrow(Mutator):
    def __init__(self):
        self.ana = Analyzer()

    def visit_For(self, loop: S.For):
        # the enclosing loops' ranges let the new bounds simplify (min(9, n) is n in range(10))
        self.ana.bind(loop.loop_var, E.Range(loop.min, loop.extent), allow_override=True)
        loop = self.generic(loop)
        body = loop.body
        if loop.kind != S.ForKind.SERIAL or loop.thread_binding is not None or \
                not isinstance(body, S.IfThenElse) or body.else_case is not None:
            return loop
        var, written = loop.loop_var, _stored_buffers(body.then_case)
        lo, hi, rest = [loop.min], [_op.add(loop.min, loop.extent)], []
        for c in _conjuncts(body.condition):
            b = _bound(c, var)
            if b is None or not _invariant(b[1], var, written):
                rest.append(c)
                continue
            value = b[1] if b[1].dtype == var.dtype else _op.cast(b[1], var.dtype)
            (lo if b[0] == "lo" else hi).append(value)
        if len(lo) == 1 and len(hi) == 1:
            return loop
        start, end = lo[0], hi[0]
        for x in lo[1:]:
            start = E.Max(start, x)
        for x in hi[1:]:
            end = E.Min(end, x)
        extent = self.ana.simplify(E.Max(_op.sub(end, start), E.IntImm(var.dtype, 0)))
        new_body = body.then_case
        if rest:
            cond = rest[0]
            for c in rest[1:]:
                cond = _op.logical_and(cond, c)
            new_body = dataclasses.replace(body, condition=cond)
        return dataclasses.replace(loop, min=self.ana.simplify(start), extent=extent,
                                   body=new_body)


def narrow_guarded_loops(body: S.Stmt, func=None) -> S.Stmt:
    """``body`` with each serial loop narrowed to the bounds its whole-body guard sets."""
    return _Narrow().visit(body)
