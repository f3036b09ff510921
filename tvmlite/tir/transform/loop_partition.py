"""Split loops where guards become provably true (``tir.LoopPartition``).

For a loop with constant bounds, every condition under it (``if`` statements, ``T.likely``
guards, ``if_then_else`` conditions) is cut into its ``and``-ed comparisons. A comparison
linear in the loop variable holds for *all* values of the other variables (inner loops and
enclosing loops relaxed to their ranges) on an interval of the loop variable; the loop is split
so that the intersection of those intervals runs as its own piece, where ``Simplify`` removes
the guards; the pieces before and after are split again the same way. Serial, vectorized and
unrolled loops become consecutive loops; a parallel loop stays one loop (one OpenMP region)
whose body dispatches to the pieces by its index.

Before (seed 000's v4, M=4096, N=128)::

    for n_outer in T.parallel(528):
        for n_inner in T.vectorized(8):
            for k in range(128):
                if T.likely(n_outer * 8 + n_inner < 4223):
                    B[...] += T.if_then_else(0 <= n - k and n - k < 4096, A[n - k] * W[k], 0)

After::

    for n_outer in T.parallel(528):
        if n_outer < 16:        # the if_then_else still needed, no likely guard
            ...
        elif n_outer < 512:     # guard-free
            for n_inner in T.vectorized(8):
                for k in range(128):
                    B[n_outer * 8 + n_inner] = B[n_outer * 8 + n_inner] + A[...] * W[k]
        elif n_outer < 527:     # the likely guard is gone
            ...
        else:                   # the tail: n_outer = 527, n_inner < 7
            for n_inner in T.vectorized(7): ...

Intervals are checked with ``arith.Analyzer.can_prove`` before use, so a piece only loses a
guard the analyzer proves redundant.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ...arith.analyzer import Analyzer, is_index_dtype
from ..expr import GE, GT, LE, LT, And, Call, IntImm, Not, Or, PrimExpr, Range, Var
from ..functor import Mutator, Visitor, post_order_visit
from ..stmt import For, ForKind, IfThenElse, SeqStmt, Stmt
from .fresh_copy import fresh_copy
from .function_pass import PrimFuncPass, stmt_pass
from .simplify import simplify_stmt

MAX_PIECES = 6  # pieces per loop; each piece copies the loop body


def _atoms(cond: PrimExpr, out: List[PrimExpr], negate: bool = False) -> None:
    """Comparisons whose joint truth decides ``cond``: and-ed comparisons (where all hold,
    ``cond`` holds) and negated or-ed ones (where all hold, ``cond`` is false)."""
    if isinstance(cond, Call) and cond.op == "likely":
        cond = cond.args[0]
    if isinstance(cond, Not):
        _atoms(cond.a, out, not negate)
    elif isinstance(cond, And) and not negate or isinstance(cond, Or):
        _atoms(cond.a, out, negate or isinstance(cond, Or))
        _atoms(cond.b, out, negate or isinstance(cond, Or))
    elif isinstance(cond, (LT, LE, GT, GE)):
        out.append(Not(cond) if negate else cond)


def _negative_form(atom: PrimExpr) -> Optional[PrimExpr]:
    """``d`` with ``atom <=> d < 0`` for integer comparisons, else None."""
    neg = False
    while isinstance(atom, Not):
        atom, neg = atom.a, not neg
    if not isinstance(atom, (LT, LE, GT, GE)) or not is_index_dtype(atom.a.dtype):
        return None
    a, b = atom.a, atom.b
    one = IntImm(a.dtype, 1)
    if neg:  # not (a < b) == b <= a, ...
        atom = {LT: GE, LE: GT, GT: LE, GE: LT}[type(atom)](a, b)
    if isinstance(atom, LT):
        return a - b
    if isinstance(atom, LE):
        return a - b - one
    if isinstance(atom, GT):
        return b - a
    return b - a - one


class _Conditions(Visitor):
    """Collects condition atoms under a loop, binding inner loop ranges in the analyzer."""

    def __init__(self, ana: Analyzer):
        self.ana = ana
        self.atoms: List[PrimExpr] = []

    def visit_For(self, op: For):
        # Relaxed to the constant hull of its range: non-constant bounds would also say the loop
        # runs (``min <= max``), false for the atoms outside it and for the pieces simplified
        # with this analyzer.
        lo = self.ana.const_int_bound(op.min).min_value
        hi = self.ana.const_int_bound(op.min + op.extent - 1).max_value
        dt = op.loop_var.dtype
        self.ana.bind(op.loop_var, Range(IntImm(dt, lo), IntImm(dt, max(hi - lo + 1, 1))),
                      allow_override=True)
        self.generic(op)

    def visit_IfThenElse(self, op: IfThenElse):
        _atoms(op.condition, self.atoms)
        self.generic(op)

    def visit_Call(self, op: Call):
        if op.op == "if_then_else" and op.args:
            _atoms(op.args[0], self.atoms)
        self.generic(op)


class _Partitioner(Mutator):

    def visit_SeqStmt(self, op):
        seq = [self.visit(x) for x in op.seq]
        if all(a is b for a, b in zip(seq, op.seq)):
            return op
        return SeqStmt.flatten(*seq)

    def __init__(self) -> None:
        self.ana = Analyzer()

    # ------------------------------------------------------------------ intervals
    def _true_interval(self, atom, v: Var, lo: int, hi: int) -> Optional[Tuple[int, int]]:
        """The interval of ``v`` within ``[lo, hi]`` where ``atom`` provably holds."""
        d = _negative_form(atom)
        if d is None:
            return None
        lin = self.ana.detect_linear_equation(d, [v])
        if not lin or not isinstance(lin[0], IntImm) or lin[0].value == 0:
            return None
        c, base = lin[0].value, lin[1]
        bmax = self.ana.const_int_bound(base).max_value
        if abs(bmax) >= 1 << 62:
            return None
        if c > 0:
            a, b = lo, min(hi, (-bmax - 1) // c)
        else:
            a, b = max(lo, bmax // (-c) + 1), hi
        if a > b:
            return None
        self.ana.bind(v, Range(IntImm(v.dtype, a), IntImm(v.dtype, b - a + 1)),
                      allow_override=True)
        ok = self.ana.can_prove(atom)
        self.ana.bind(v, Range(IntImm(v.dtype, lo), IntImm(v.dtype, hi - lo + 1)),
                      allow_override=True)
        return (a, b) if ok else None

    def _pieces(self, atoms, v: Var, lo: int, hi: int, budget: int,
                small: bool = False) -> List[Tuple[int, int]]:
        """Intervals cutting ``[lo, hi]``; pieces much smaller than the loop only when
        ``small`` (a vectorized loop: one guard left in it makes all of it serial)."""
        if budget < 3 or lo >= hi:
            return [(lo, hi)]
        self.ana.bind(v, Range(IntImm(v.dtype, lo), IntImm(v.dtype, hi - lo + 1)),
                      allow_override=True)
        ivs = []
        for at in atoms:
            iv = self._true_interval(at, v, lo, hi)
            if iv is not None and iv != (lo, hi):
                ivs.append(iv)
        if not ivs:
            return [(lo, hi)]
        ivs.sort(key=lambda x: x[0] - x[1])  # widest first
        a, b = ivs[0]
        for x, y in ivs[1:]:
            if max(a, x) <= min(b, y):
                a, b = max(a, x), min(b, y)
        if (a, b) == (lo, hi) or not small and (b - a + 1) * 4 < (hi - lo + 1) and b - a < 2:
            return [(lo, hi)]
        left = self._pieces(atoms, v, lo, a - 1, budget - 2, small) if a > lo else []
        right = self._pieces(atoms, v, b + 1, hi, budget - 1 - len(left), small) \
            if b < hi else []
        return left + [(a, b)] + right

    # ------------------------------------------------------------------ statements
    def visit_For(self, op: For):
        v = op.loop_var
        if not (isinstance(op.min, IntImm) and isinstance(op.extent, IntImm)) \
                or op.thread_binding is not None or op.extent.value <= 1:
            return self._descend(op)
        lo, hi = op.min.value, op.min.value + op.extent.value - 1
        col = _Conditions(self.ana)
        col.visit(op.body)
        atoms = [a for a in col.atoms if _mentions(a, v)]
        pieces = self._pieces(atoms, v, lo, hi, MAX_PIECES, op.kind == ForKind.VECTORIZED) \
            if atoms else [(lo, hi)]
        self.ana.bind(v, Range(op.min, op.extent), allow_override=True)
        if len(pieces) == 1:
            return self._descend(op)
        if op.kind == ForKind.PARALLEL:
            chain = None
            for _a, b in reversed(pieces):
                body = fresh_copy(op.body, {})
                chain = body if chain is None else IfThenElse(v < IntImm(v.dtype, b + 1), body,
                                                              chain)
            new = For(v, op.min, op.extent, op.kind, chain, None, op.annotations)
            return self._descend(simplify_stmt(new, self.ana))
        out = []
        for a, b in pieces:
            nv = Var(v.name, v.dtype)
            piece = For(nv, IntImm(v.dtype, a), IntImm(v.dtype, b - a + 1), op.kind,
                        fresh_copy(op.body, {v: nv}), None, op.annotations)
            piece = simplify_stmt(piece, self.ana)
            # the piece's own loop is final; loops inside it are partitioned in turn
            if isinstance(piece, For) and piece.loop_var is nv:
                out.append(self._descend(piece))
            else:
                out.append(self.visit(piece))
        return SeqStmt.flatten(*out)

    def _descend(self, op: For):
        with self.ana.constraint_scope(True):  # the range's facts hold in the body only
            self.ana.bind(op.loop_var, Range(op.min, op.extent), allow_override=True)
            body = self.visit(op.body)
        if body is op.body:
            return op
        return For(op.loop_var, op.min, op.extent, op.kind, body, op.thread_binding,
                   op.annotations)

    def visit_IfThenElse(self, op: IfThenElse):
        cond = op.condition
        inner = cond.args[0] if isinstance(cond, Call) and cond.op == "likely" else cond
        with self.ana.constraint_scope(inner):
            then_case = self.visit(op.then_case)
        else_case = op.else_case
        if else_case is not None:
            with self.ana.constraint_scope(Not(inner)):
                else_case = self.visit(else_case)
        if then_case is op.then_case and else_case is op.else_case:
            return op
        return IfThenElse(cond, then_case, else_case)


def _mentions(e, v: Var) -> bool:
    hit = []
    post_order_visit(e, lambda n: hit.append(1) if n is v else None)
    return bool(hit)


def loop_partition(body: Stmt, func=None) -> Stmt:
    """Partition the loops of ``body`` (see the module docstring)."""
    return _Partitioner().visit(body)


def LoopPartition() -> PrimFuncPass:  # noqa: N802
    """The ``tir.LoopPartition`` pass."""
    return stmt_pass(loop_partition, "tir.LoopPartition")
