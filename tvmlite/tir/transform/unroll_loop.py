"""Unroll loops (``tir.UnrollLoop``).

- A loop annotated ``pragma_auto_unroll_max_step = N`` (TE: ``s[B].pragma(i,
  "auto_unroll_max_step", N)``) unrolls every serial loop under it, itself included, with a
  constant extent whose unrolled size (extent times the statements of its unrolled body) is at
  most ``N``, innermost first. ``pragma_unroll_explicit`` (default 1, as in TVM) chooses between
  copying the body in the IR (1) and marking the loop ``unroll`` for the C compiler (0).
- ``unroll`` loops (``s[B].unroll(i)``) with a constant extent up to ``EXPLICIT_LIMIT`` are
  copied in the IR; longer ones stay loops that the C backend prints with ``#pragma GCC unroll``.
- The PassContext config ``tir.UnrollLoop`` (``auto_max_step``, ``explicit_unroll``) sets the
  defaults for the whole function, as in TVM.

Before::

    for i in T.serial(2, annotations={"pragma_auto_unroll_max_step": 16}):
        for j in T.unroll(2):
            B[i * 2 + j] = A[i * 2 + j] + 1.0

After::

    B[0] = A[0] + 1.0
    B[1] = A[1] + 1.0
    B[2] = A[2] + 1.0
    B[3] = A[3] + 1.0
"""
from __future__ import annotations

from typing import Optional

from ...ir.transform import PassContext
from .. import expr as E
from .. import stmt as S
from ..functor import Mutator
from .fresh_copy import fresh_copy
from .function_pass import PrimFuncPass, stmt_pass
from .simplify import simplify_stmt

EXPLICIT_LIMIT = 16
_BIG = 1 << 30


def _steps(s) -> int:
    """Statements executed by ``s`` (loops multiply, except a vectorized loop: its body runs
    once, on vectors; unknown extents count as huge)."""
    if isinstance(s, S.SeqStmt):
        return sum(_steps(x) for x in s.seq)
    if isinstance(s, S.For):
        if not isinstance(s.extent, E.IntImm):
            return _BIG
        if s.kind == S.ForKind.VECTORIZED:  # becomes vector statements, once
            return _steps(s.body)
        return min(_BIG, s.extent.value * _steps(s.body))
    if isinstance(s, (S.LetStmt, S.AttrStmt, S.Allocate, S.AssertStmt)):
        return _steps(s.body)
    if isinstance(s, S.IfThenElse):
        return 1 + max(_steps(s.then_case), _steps(s.else_case) if s.else_case else 0)
    return 1


def _unrolled(op: S.For, body: S.Stmt) -> S.Stmt:
    lo, n = op.min.value, op.extent.value
    v = op.loop_var
    return S.SeqStmt.flatten(*[simplify_stmt(fresh_copy(body, {v: E.IntImm(v.dtype, lo + k)}))
                               for k in range(n)])


class _Unroller(Mutator):

    def visit_SeqStmt(self, op):
        seq = [self.visit(x) for x in op.seq]
        if all(a is b for a, b in zip(seq, op.seq)):
            return op
        return S.SeqStmt.flatten(*seq)

    def __init__(self, max_step: int, explicit: bool):
        self.max_step = max_step
        self.explicit = explicit

    def visit_For(self, op: S.For):
        ann = dict(op.annotations or {})
        saved = (self.max_step, self.explicit)
        if "pragma_auto_unroll_max_step" in ann:
            self.max_step = int(_value(ann.pop("pragma_auto_unroll_max_step")))
        if "pragma_unroll_explicit" in ann:
            self.explicit = bool(int(_value(ann.pop("pragma_unroll_explicit"))))
        body = self.visit(op.body)
        max_step, explicit = self.max_step, self.explicit
        self.max_step, self.explicit = saved
        const = isinstance(op.extent, E.IntImm) and isinstance(op.min, E.IntImm)
        kind = op.kind
        if const and kind == S.ForKind.SERIAL and max_step > 0 \
                and op.extent.value * _steps(body) <= max_step:
            if explicit:
                return _unrolled(op, body)
            kind = S.ForKind.UNROLLED
        elif const and kind == S.ForKind.UNROLLED and op.extent.value <= EXPLICIT_LIMIT \
                and _steps(body) * op.extent.value <= 4 * EXPLICIT_LIMIT:
            return _unrolled(op, body)
        if body is op.body and kind == op.kind and ann == (op.annotations or {}):
            return op
        return S.For(op.loop_var, op.min, op.extent, kind, body, op.thread_binding, ann or None)


def _value(x):
    return x.value if isinstance(x, (E.IntImm, E.FloatImm)) else x


def unroll_loop(body: S.Stmt, func=None, auto_max_step: Optional[int] = None,
                explicit_unroll: Optional[bool] = None) -> S.Stmt:
    """Unroll the loops of ``body`` (see the module docstring)."""
    if auto_max_step is None or explicit_unroll is None:
        cfg = PassContext.current().config.get("tir.UnrollLoop") or {}
        if auto_max_step is None:
            auto_max_step = int(cfg.get("auto_max_step", 0))
        if explicit_unroll is None:
            explicit_unroll = bool(cfg.get("explicit_unroll", True))
    return _Unroller(auto_max_step, explicit_unroll).visit(body)


def UnrollLoop() -> PrimFuncPass:  # noqa: N802
    """The ``tir.UnrollLoop`` pass."""
    return stmt_pass(unroll_loop, "tir.UnrollLoop")
