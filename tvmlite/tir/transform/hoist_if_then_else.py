"""Hoist loop-invariant ``if`` statements out of the loops they guard (``tir.HoistIfThenElse``).

An ``if`` reached from a loop through nothing but nested loops (it guards the whole body) and
whose condition uses none of those loops' variables moves above the outermost of them; each
branch gets its own copy of the loops (the ``else`` one with fresh loop variables). As in
classic TVM's pass, only pure conditions move (no buffer loads, no calls other than
``likely`` and pure arithmetic), never across a thread binding, an attribute, a ``let`` or a
sequence of statements. A condition dividing by something other than a positive constant
stays where it is: evaluated before a loop that may run zero times, it could divide by zero
where the original did not.

Before::

    for xo, xi, y in T.grid(4, 5, 16):
        if T.likely(xo * 5 + xi < 16):
            C[xo * 80 + xi * 16 + y] = A[xo * 80 + xi * 16 + y]

After::

    for xo, xi in T.grid(4, 5):
        if T.likely(xo * 5 + xi < 16):
            for y in range(16):
                C[xo * 80 + xi * 16 + y] = A[xo * 80 + xi * 16 + y]
"""
from __future__ import annotations

import dataclasses
from typing import List

from .. import expr as E
from .. import stmt as S
from ..functor import Mutator, post_order_visit
from .fresh_copy import fresh_copy

_PURE_CALLS = frozenset({"likely", "if_then_else", "abs", "min", "max", "shift_left",
                         "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor",
                         "bitwise_not"})
_DIVS = (E.Div, E.Mod, E.FloorDiv, E.FloorMod)


def _hoistable(cond: E.PrimExpr) -> bool:
    """Whether ``cond`` can be evaluated earlier and more or fewer times: no loads, only
    pure calls, divisors positive constants."""
    ok = [True]

    def f(x):
        if isinstance(x, E.BufferLoad) or (isinstance(x, E.Call) and x.op not in _PURE_CALLS):
            ok[0] = False
        elif isinstance(x, _DIVS) and not (isinstance(x.b, E.IntImm) and x.b.value > 0):
            ok[0] = False
        elif type(x).__name__ in ("Load", "ProducerLoad", "Let"):
            ok[0] = False

    post_order_visit(cond, f)
    return ok[0]


def _uses(cond: E.PrimExpr, var: E.Var) -> bool:
    hit = [False]

    def f(x):
        if x is var:
            hit[0] = True

    post_order_visit(cond, f)
    return hit[0]


def _rewrap(loops: List[S.For], body: S.Stmt) -> S.Stmt:
    for lp in reversed(loops):
        body = dataclasses.replace(lp, body=body)
    return body


class _Hoister(Mutator):

    def visit_For(self, op: S.For):
        op = self.generic(op)
        if op.kind == S.ForKind.THREAD_BINDING:
            return op
        loops = [op]
        inner = op.body
        while isinstance(inner, S.For) and inner.kind != S.ForKind.THREAD_BINDING:
            loops.append(inner)
            inner = inner.body
        if not isinstance(inner, S.IfThenElse):
            return op
        cond = inner.condition
        # the innermost loops the condition does not use; those outside it stay outside
        k = len(loops)
        while k > 0 and not _uses(cond, loops[k - 1].loop_var):
            k -= 1
        if k == len(loops) or not _hoistable(cond):
            return op
        moved = loops[k:]
        then = _rewrap(moved, inner.then_case)
        # the else copy binds its own loop variables (every loop defines a variable of its own)
        other = (fresh_copy(_rewrap(moved, inner.else_case), {})
                 if inner.else_case is not None else None)
        return _rewrap(loops[:k], S.IfThenElse(cond, then, other))


def hoist_if_then_else(body: S.Stmt, func=None) -> S.Stmt:
    """``body`` with its loop-invariant ``if`` statements above the loops they guard."""
    return _Hoister().visit(body)
