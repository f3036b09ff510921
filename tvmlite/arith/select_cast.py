"""``select``, ``if_then_else``, ``likely``, casts, vector lanes and the generic fallback."""
from __future__ import annotations

from typing import Optional

from ..ir import dtype as _dt
from ..tir import op as _op
from ..tir.expr import (
    Add,
    Broadcast,
    Call,
    Cast,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Mul,
    Not,
    PrimExpr,
    Ramp,
    Select,
    Sub,
)
from ..tir.functor import node_fields, post_order_visit
from .common import is_index_dtype
from .poly import Poly
from .rules import fire, rules

rules({
    "select": {
        "const_cond": "select(true, a, b) -> a",
        "same_arms": "select(c, a, a) -> a",
    },
    "if_then_else": {
        "const_cond": "if_then_else(i < 0, a, b) -> b for i >= 0",
        "same_arms": "if_then_else(c, a, a) -> a (a pure)",
    },
    "likely": {"const": "likely(true) -> true"},
    "cast": {
        "fold_const": "float32(2) -> 2f",
        "same_dtype": "float32(x + y) -> x + y for float32 operands",
    },
    "vector": {
        "broadcast_op": "x4(a) + x4(b) -> x4(a + b)",
        "ramp_offset": "ramp(b, s, 4) + x4(c) -> ramp(b + c, s, 4)",
        "ramp_ramp": "ramp(a, s, 4) + ramp(b, t, 4) -> ramp(a + b, s + t, 4)",
        "ramp_scale": "ramp(b, s, 4) * x4(c) -> ramp(b*c, s*c, 4)",
        "ramp_div": "ramp(x*8, 1, 4) // x4(8) -> x4(x)",
        "ramp_mod": "ramp(x*8, 1, 4) % x4(8) -> ramp(0, 1, 4)",
    },
})

_MAX_BRANCH_DEPTH = 3    # nested if_then_else branches simplified under their condition
# ... and at most this many such branch pairs per simplify() call: with many guarded loads and
# no iterator ranges (create_prim_func) each scope re-simplifies shared sub-expressions from a
# fresh memo, and a 4-level random expression took 100 s; past the budget a branch is
# simplified without its condition (still correct, less folded)
BRANCH_BUDGET = 64


class SelectCastMixin:
    """Rewrites of selects, calls, casts and vector (Ramp/Broadcast) arithmetic (rules
    ``select.*``, ``if_then_else.*``, ``likely.*``, ``cast.*``, ``vector.*``)."""

    def _simp_select(self, e):
        c = self._simp(e.condition)
        if type(c) is IntImm:
            return fire("select.const_cond", self._simp(e.true_value if c.value else e.false_value))
        # Select evaluates both operands, so they are simplified without assuming ``c``
        # (that could move a division by zero into the unselected operand)
        t, f = self._simp(e.true_value), self._simp(e.false_value)
        if self._key(t) == self._key(f):
            return fire("select.same_arms", t)
        if c is e.condition and t is e.true_value and f is e.false_value:
            return e
        return Select(c, t, f)

    def _branches(self, c, t, f):
        # each scope starts a fresh memo, so nested scopes over shared sub-expressions cost
        # 2**depth: past a few levels the branches are simplified without the condition
        if _dt.lanes(c.dtype) != 1 or self._branch_depth >= _MAX_BRANCH_DEPTH or \
                self._branch_budget <= 0:
            return self._simp(t), self._simp(f)
        self._branch_budget -= 1
        self._branch_depth += 1
        try:
            with self.constraint_scope(c):
                st = self._simp(t)
            with self.constraint_scope(Not(c)):
                sf = self._simp(f)
        finally:
            self._branch_depth -= 1
        # results found under a condition are final here too: re-simplifying them in this
        # context would redo the nested scopes (exponential on shared sub-expressions)
        return st, sf

    def _simp_call(self, e):
        if e.op == "if_then_else" and len(e.args) == 3:
            c = self._simp(e.args[0])
            if type(c) is IntImm:
                fire("if_then_else.const_cond")
                return self._simp(e.args[1] if c.value else e.args[2])
            t, f = self._branches(c, e.args[1], e.args[2])
            if self._skey(t) == self._skey(f) and _is_pure(t):
                return fire("if_then_else.same_arms", t)
            return Call(e.dtype, e.op, (c, t, f))
        if e.op == "likely" and len(e.args) == 1:
            c = self._simp(e.args[0])
            if type(c) is IntImm:
                return fire("likely.const", c)
            return e if c is e.args[0] else Call(e.dtype, e.op, (c,))
        return self._simp_generic(e)

    def _simp_cast(self, e):
        if is_index_dtype(e.dtype) and is_index_dtype(e.value.dtype):
            return self._expr(self._lin(e))
        v = self._simp(e.value)
        if type(v) is IntImm or type(v) is FloatImm:
            return fire("cast.fold_const", _op.cast(e.dtype, v))
        if v.dtype == e.dtype:
            return fire("cast.same_dtype", v)
        return e if v is e.value else Cast(e.dtype, v)

    def _simp_vector(self, t, a, b) -> Optional[PrimExpr]:
        ta, tb = type(a), type(b)
        if ta is Broadcast and tb is Broadcast and a.lanes == b.lanes:
            return fire("vector.broadcast_op", Broadcast(self._simp(t(a.value, b.value)), a.lanes))
        if t is Add or t is Sub:
            if ta is Ramp and tb is Broadcast:
                fire("vector.ramp_offset")
                return Ramp(self._simp(t(a.base, b.value)), a.stride, a.lanes)
            if ta is Broadcast and tb is Ramp and t is Add:
                fire("vector.ramp_offset")
                return Ramp(self._simp(Add(a.value, b.base)), b.stride, b.lanes)
            if ta is Ramp and tb is Ramp and a.lanes == b.lanes:
                fire("vector.ramp_ramp")
                return Ramp(self._simp(t(a.base, b.base)), self._simp(t(a.stride, b.stride)),
                            a.lanes)
        elif t is Mul:
            if ta is Broadcast and tb is Ramp:
                a, b, ta, tb = b, a, tb, ta
            if ta is Ramp and tb is Broadcast:
                fire("vector.ramp_scale")
                return Ramp(self._simp(Mul(a.base, b.value)), self._simp(Mul(a.stride, b.value)),
                            a.lanes)
        elif (t is FloorDiv or t is FloorMod) and ta is Ramp and tb is Broadcast \
                and type(b.value) is IntImm and b.value.value > 0 and type(a.stride) is IntImm \
                and a.stride.value >= 0 and is_index_dtype(a.base.dtype):
            c, s = b.value.value, a.stride.value
            pm = self._fmod(self._lin(a.base), Poly.constant(a.base.dtype, c))
            if self._bound(pm)[1] + s * (a.lanes - 1) < c:
                if t is FloorDiv:
                    fire("vector.ramp_div")
                    return Broadcast(self._simp(FloorDiv(a.base, b.value)), a.lanes)
                return fire("vector.ramp_mod", Ramp(self._expr(pm), a.stride, a.lanes))
        return None

    def _simp_generic(self, e):
        cls = type(e)
        try:
            names = node_fields(cls)
        except TypeError:
            return e
        vals = [getattr(e, n) for n in names]
        new = []
        changed = False
        for v in vals:
            if isinstance(v, PrimExpr):
                nv = self._simp(v)
            elif isinstance(v, tuple) and v and any(isinstance(x, PrimExpr) for x in v):
                nv = tuple(self._simp(x) if isinstance(x, PrimExpr) else x for x in v)
                if all(x is y for x, y in zip(nv, v)):
                    nv = v
            else:
                nv = v
            changed |= nv is not v
            new.append(nv)
        return cls(*new) if changed else e


def _is_pure(e) -> bool:
    found = []

    def f(x):
        if isinstance(x, Call) and x.op in ("call_extern", "call_packed", "call_intrin"):
            found.append(x)

    post_order_visit(e, f)
    return not found
