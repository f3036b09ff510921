"""Refuse, at build time, what is provably wrong at run time (beyond classic TVM).

- A buffer access outside the buffer: the index is bounded with the loop ranges (arith's
  constant interval analysis). When that cannot show it in bounds, a witness is searched among
  the corners of the loop ranges (every point of a small iteration space): an iteration that
  every enclosing condition (``if``, ``T.likely`` block predicates, ``if_then_else``/``Select``
  branches, the right side of ``&&``/``||``) lets through and whose index is outside the shape.
  Only a witness is reported, so a guarded or merely unprovable access is never flagged
  (``tir.instrument_bound_checkers`` remains the run-time check, and when it is on this pass
  leaves bounds to it).
- Integer division or modulo by a divisor that simplifies to zero (C would trap).
- A loop whose range cannot be counted in its variable's dtype.
- A store of a value whose type is not the buffer's (a ``"handle"`` buffer given floats):
  the C compiler would reject it with its own words.

The pass runs on the lowered-block form (after ``LowerBlocks``), where shapes are still the
user's and every predicate is an ``IfThenElse``; ``tvm.build`` runs it again on the final loops
(``lowered=True``), where a pass that dropped a guard or an iteration shows as an access
outside the flat buffer.
"""
from __future__ import annotations

import itertools
from typing import Dict, List, Optional, Tuple, Union

from ...arith.analyzer import Analyzer
from ...error import TVMError
from ...ir import dtype as _dt
from .. import op as _op
from ..expr import (
    And,
    BufferLoad,
    Call,
    Div,
    FloorDiv,
    FloorMod,
    IntImm,
    Let,
    Mod,
    Or,
    PrimExpr,
    Range,
    Select,
    Var,
)
from ..functor import Visitor, collect_vars
from ..stmt import AssertStmt, BufferStore, For, IfThenElse, LetStmt, Stmt, While

_MAX_WITNESS_VARS = 12  # 2**12 corner points at most per access
_MAX_WITNESS_POINTS = 512  # iteration spaces this small are searched point by point


class StaticCheckError(TVMError):
    """A kernel that would access memory out of bounds, divide by zero or overflow a loop."""


class _Checker(Visitor):
    def __init__(self, func_name: str, check_bounds: bool):
        self.func_name = func_name
        self.check_bounds = check_bounds
        self.ana = Analyzer()
        self.loops: List[For] = []                 # enclosing loops, outermost first
        self.conds: List[PrimExpr] = []            # conditions true where we are
        self.lets: List[Tuple[Var, PrimExpr]] = []
        self.opaque = 0                            # inside a While: reachability unknown
        self._interp = None

    # ------------------------------------------------------------------ context
    def _under(self, cond: PrimExpr, visit) -> None:
        # conditions are only recorded: the witness search evaluates them, and a finding is
        # dropped when one is provably false (dead code); handing each to the analyzer as a
        # constraint would cost more than the rest of the pass
        self.conds.append(cond)
        try:
            visit()
        finally:
            self.conds.pop()

    def _dead(self) -> bool:
        return any(self.ana.can_prove(_op.logical_not(c)) for c in self.conds)

    def visit_For(self, op: For) -> None:
        self.visit(op.min)
        self.visit(op.extent)
        mn, ext = op.min, op.extent
        dt = op.loop_var.dtype
        if isinstance(mn, IntImm) and isinstance(ext, IntImm) and ext.value > 0 \
                and _dt.is_integral(dt):
            last = mn.value + ext.value - 1
            if mn.value < _dt.min_value(dt) or last > _dt.max_value(dt):
                raise StaticCheckError(
                    f"{self.func_name}: loop {op.loop_var.name} in [{mn.value}, {last + 1}) "
                    f"cannot be counted in its dtype {dt} (at most {_dt.max_value(dt)}); use "
                    "an int64 loop variable")
        self.loops.append(op)
        # the range's facts hold in the body only (non-constant bounds also say the loop runs)
        with self.ana.constraint_scope(True):
            self.ana.bind(op.loop_var, Range(mn, ext), allow_override=True)
            try:
                self.visit(op.body)
            finally:
                self.loops.pop()

    def visit_IfThenElse(self, op: IfThenElse) -> None:
        self.visit(op.condition)
        self._under(op.condition, lambda: self.visit(op.then_case))
        if op.else_case is not None:
            self._under(_op.logical_not(op.condition), lambda: self.visit(op.else_case))

    def visit_AssertStmt(self, op: AssertStmt) -> None:
        self.visit(op.condition)
        self._under(op.condition, lambda: self.visit(op.body))

    def visit_LetStmt(self, op: Union[LetStmt, Let]) -> None:
        self.visit(op.value)
        self.ana.bind(op.var, op.value, allow_override=True)
        self.lets.append((op.var, op.value))
        try:
            self.visit(op.body)
        finally:
            self.lets.pop()

    def visit_While(self, op: While) -> None:
        self.opaque += 1
        try:
            self.generic(op)
        finally:
            self.opaque -= 1

    def visit_Select(self, op: Select) -> None:
        self.visit(op.condition)
        self._under(op.condition, lambda: self.visit(op.true_value))
        self._under(_op.logical_not(op.condition), lambda: self.visit(op.false_value))

    def visit_Call(self, op: Call) -> None:
        if op.op == "if_then_else" and len(op.args) == 3:
            c, t, f = op.args
            self.visit(c)
            self._under(c, lambda: self.visit(t))
            self._under(_op.logical_not(c), lambda: self.visit(f))
            return
        self.generic(op)

    def visit_And(self, op: And) -> None:
        self.visit(op.a)
        self._under(op.a, lambda: self.visit(op.b))

    def visit_Or(self, op: Or) -> None:
        self.visit(op.a)
        self._under(_op.logical_not(op.a), lambda: self.visit(op.b))

    visit_Let = visit_LetStmt  # the expression form scopes its variable the same way

    # ------------------------------------------------------------------ checks
    def _divide(self, op) -> None:
        self.generic(op)
        if not _dt.is_integral(op.dtype):
            return
        b = self.ana.simplify(op.b)
        if isinstance(b, IntImm) and b.value == 0 and not self._dead():
            what = {Div: "division", FloorDiv: "division", Mod: "modulo",
                    FloorMod: "modulo"}[type(op)]
            raise StaticCheckError(
                f"{self.func_name}: integer {what} by zero in {op}: the divisor {op.b} is always "
                f"0{self._loops_text()}")

    visit_Div = visit_FloorDiv = visit_Mod = visit_FloorMod = _divide

    def visit_BufferLoad(self, op: BufferLoad) -> None:
        self.generic(op)
        self._access(op.buffer, op.indices, "reads")

    def visit_BufferStore(self, op: BufferStore) -> None:
        self.generic(op)
        vt, bt = _dt.element(op.value.dtype), _dt.element(op.buffer.dtype)
        if vt != bt:
            ind = ", ".join(str(i) for i in op.indices)
            raise StaticCheckError(
                f"{self.func_name}: {op.buffer.name}[{ind}] = ... stores a {vt} value into a "
                f"buffer of dtype {bt}{self._loops_text()}; cast the value or fix the "
                "buffer's dtype")
        self._access(op.buffer, op.indices, "writes")

    def _access(self, buf, indices, verb: str) -> None:
        if not self.check_bounds or self.opaque:
            return
        if len(indices) != len(buf.shape):
            return
        for dim, (idx, n) in enumerate(zip(indices, buf.shape)):
            if not isinstance(n, IntImm) or not _dt.is_integral(idx.dtype) \
                    or _dt.lanes(idx.dtype) != 1:
                continue
            b = self.ana.const_int_bound(idx)
            if 0 <= b.min_value and b.max_value < n.value:
                continue
            hit = self._witness(idx, n.value)
            if hit is not None:
                env, value = hit
                at = ", ".join(f"{v.name} = {env[v]}" for v in env)
                ind = ", ".join(str(i) for i in indices)
                why = ""
                if b.max_value > _dt.max_value(idx.dtype) or \
                        b.min_value < _dt.min_value(idx.dtype):
                    why = (f"; the index overflows {idx.dtype} (its range is [{b.min_value}, "
                           f"{b.max_value}]): compute it in int64")
                raise StaticCheckError(
                    f"{self.func_name}: out-of-bounds access: {buf.name}[{ind}] {verb} index "
                    f"{value} of dimension {dim} (extent {n.value}) when {at}"
                    f"{self._loops_text()}{why}")

    def _loops_text(self) -> str:
        if not self.loops:
            return ""
        def rng(lp: For) -> str:
            if isinstance(lp.min, IntImm) and isinstance(lp.extent, IntImm):
                return f"[{lp.min.value}, {lp.min.value + lp.extent.value})"
            return f"[{lp.min}, {lp.min} + {lp.extent})"

        return " (loops: " + ", ".join(f"{lp.loop_var.name} in {rng(lp)}"
                                       for lp in self.loops) + ")"

    def _witness(self, idx: PrimExpr, extent: int) -> Optional[Tuple[Dict[Var, int], int]]:
        """An iteration of the enclosing loops, allowed by every enclosing condition, at which
        ``idx`` is outside ``[0, extent)``; None when none is found among the corners."""
        loop_of = {lp.loop_var: lp for lp in self.loops}
        # every enclosing loop must run at the witness: a constant one always, one with
        # bounds that depend on outer loops where its extent is positive (the analyzer cannot
        # say: inside the loop, its range implies that the loop runs)
        conds = list(self.conds)
        for lp in self.loops:
            if isinstance(lp.extent, IntImm):
                if lp.extent.value <= 0:
                    return None
            else:
                conds.append(_op.gt(lp.extent, 0))
        let_vars = {v for v, _ in self.lets}
        need = set(collect_vars(idx))
        for c in conds:
            need |= collect_vars(c)
        for _, val in self.lets:
            need |= collect_vars(val)
        free = need - let_vars
        if any(v not in loop_of for v in free):
            return None          # symbolic or data-dependent: not provable here
        pts = []
        space = 1
        for v in sorted(free, key=lambda x: self.loops.index(loop_of[x])):
            lp = loop_of[v]
            if not (isinstance(lp.min, IntImm) and isinstance(lp.extent, IntImm)):
                return None
            lo, hi = lp.min.value, lp.min.value + lp.extent.value - 1
            pts.append((v, lo, hi))
            space *= hi - lo + 1
        if len(pts) > _MAX_WITNESS_VARS:
            return None
        # the corners (where a linear index is extreme), then every iteration when there are
        # few (a guard may let through only inner points)
        combos = itertools.product(*[sorted({lo, hi}) for _, lo, hi in pts])
        if space <= _MAX_WITNESS_POINTS:
            combos = itertools.chain(combos, itertools.product(
                *[range(lo, hi + 1) for _, lo, hi in pts]))
        interp = self._interpreter()
        try:
            f_idx = interp.expr(idx)
            f_conds = [interp.expr(c) for c in conds]
            f_lets = [(v, interp.expr(val)) for v, val in self.lets]
        except NotImplementedError:  # e.g. a vector condition: the evaluator is scalar
            return None
        for combo in combos:
            env = interp.env
            env.clear()
            for (v, _, _), x in zip(pts, combo):
                env[v] = x
            try:
                for v, f in f_lets:
                    env[v] = f()
                if not all(bool(f()) for f in f_conds):
                    continue
                value = int(f_idx())
            except Exception:  # a load, a call or an overflow the evaluator refuses
                return None
            if not 0 <= value < extent:
                return {v: x for (v, _, _), x in zip(pts, combo)}, value
        return None

    def _interpreter(self):
        if self._interp is None:
            # numpy and the interpreter load on first use: ``import tvmlite`` stays fast
            from ..interpreter import Interpreter

            self._interp = Interpreter()
        return self._interp


def verify_static_bounds(body: Stmt, func=None, check_bounds: bool = True,
                         lowered: bool = False) -> Stmt:
    """Raise :class:`StaticCheckError` (a TVMError) for a provably out-of-bounds access, an
    integer division/modulo by a provably zero divisor, or a loop range its variable's dtype
    cannot count; return ``body`` unchanged otherwise. ``lowered``: ``body`` is the final
    loop nest (flat buffers, partitioned, unrolled), checked again so that what a lowering
    pass got wrong is an error at build, never a wrong answer at run time."""
    name = "main"
    if func is not None:
        name = func.attrs.get("global_symbol", name) if func.attrs else name
    try:
        _Checker(name, check_bounds).visit(body)
    except StaticCheckError as e:
        if not lowered:
            raise
        raise StaticCheckError(
            f"{e} [found in the lowered loops, after loop partitioning, unrolling and "
            "vectorizing; the check before them passed, so unless the program itself is out "
            "of bounds this is a tvmlite bug: please report it with the schedule]") from None
    return body
