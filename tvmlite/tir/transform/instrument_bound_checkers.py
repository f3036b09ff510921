"""Opt-in bound checks (``PassContext(config={"tir.instrument_bound_checkers": True})``).

Runs on flattened IR. Every statement that loads or stores a buffer gets an ``assert`` in front
of it checking each flat index against the buffer's extent; a load under an ``if_then_else``
branch is checked only when that branch is taken, so guarded padding reads stay legal::

    assert 0 <= i - 1 and i - 1 < 12 or not (1 <= i), "Out-of-bounds access: a[i - 1] ..."
    b[i] = T.if_then_else(1 <= i, a[i - 1], T.float32(0))
"""
from __future__ import annotations

from typing import List, Tuple

from ...arith import Analyzer
from .. import op as _op
from ..expr import BufferLoad, IntImm, Range, StringImm
from ..functor import Mutator, Visitor
from ..stmt import AssertStmt, LetStmt, Stmt
from .flatten_buffer import flat_extent


class _Collect(Visitor):
    """Loads (and their guard) in an expression, not entering nested statements."""

    def __init__(self):
        self.found: List[Tuple[BufferLoad, object]] = []
        self.guard = IntImm("bool", 1)

    def visit_BufferLoad(self, e):
        self.found.append((e, self.guard))
        self.generic(e)

    def visit_Call(self, e):
        if e.op == "if_then_else":
            c, t, f = e.args
            self.visit(c)
            saved = self.guard
            self.guard = _op.logical_and(saved, c)
            self.visit(t)
            self.guard = _op.logical_and(saved, _op.logical_not(c))
            self.visit(f)
            self.guard = saved
        else:
            self.generic(e)


def _checks(accesses, what: str) -> List[object]:
    out = []
    for buf, index, guard in accesses:
        if buf.scope() not in ("global", "") and not buf.shape:
            continue
        n = flat_extent(buf)
        ok = _op.logical_and(_op.le(0, index), _op.lt(index, n))
        cond = ok if (isinstance(guard, IntImm) and guard.value) else \
            _op.logical_or(ok, _op.logical_not(guard))
        msg = (f"Out-of-bounds access: {buf.name}[{index!r}] is outside the buffer's "
               f"{n!r} elements")
        out.append((cond, msg))
    return out


class _Instrument(Mutator):
    def __init__(self, analyzer):
        self.analyzer = analyzer
        self.loop_doms = []

    def _guarded(self, stmt: Stmt, exprs, store=None) -> Stmt:
        col = _Collect()
        for e in exprs:
            col.visit(e)
        accesses = [(ld.buffer, ld.indices[0], g) for ld, g in col.found if ld.indices]
        if store is not None and store.indices:
            accesses.append((store.buffer, store.indices[0], IntImm("bool", 1)))
        for cond, msg in reversed(_checks(accesses, "")):
            cond = self.analyzer.simplify(cond)
            if isinstance(cond, IntImm) and cond.value:
                continue
            stmt = AssertStmt(cond, StringImm(msg), stmt)
        return stmt

    def visit_For(self, s):
        with self.analyzer.constraint_scope(True):  # the range's facts hold in the body only
            self.analyzer.bind(s.loop_var, Range(s.min, s.extent))
            return self.generic(s)

    def visit_BufferStore(self, s):
        return self._guarded(s, [s.value], store=s)

    def visit_Evaluate(self, s):
        return self._guarded(s, [s.value])

    def visit_LetStmt(self, s):
        body = self.visit(s.body)
        new = s if body is s.body else LetStmt(s.var, s.value, body)
        return self._guarded(new, [s.value])

    def visit_IfThenElse(self, s):
        new = self.generic(s)
        return self._guarded(new, [s.condition])


def instrument_bound_checkers(body, func=None):
    """Insert bound-check asserts before buffer accesses (see the module docstring)."""
    return _Instrument(Analyzer()).visit(body)
