"""Constant bounds of polynomials and proofs of ``p <= 0`` from bounds and known facts."""
from __future__ import annotations

from ..ir import dtype as _dt
from ..tir.expr import (
    Call,
    Cast,
    Div,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mod,
    PrimExpr,
    Select,
    SizeVar,
    Var,
)
from . import bound as _b
from .bound import Interval
from .common import INT_ARITH_SET, is_index_dtype
from .poly import Poly

# the bound of ``a op b`` from the bounds of ``a`` and ``b`` (+, -, * go through polynomials)
_BINARY_BOUNDS = {FloorDiv: _b.floordiv, FloorMod: _b.floormod, Div: _b.truncdiv,
                  Mod: _b.truncmod, Min: _b.min_, Max: _b.max_}


class ProveMixin:
    """Bounds and proofs the rewrites rely on."""

    def _bound(self, p: Poly) -> Interval:
        res = (p.const, p.const)
        for c, atoms, _ in p.terms.values():
            b = self._atom_bound(atoms[0])
            for a in atoms[1:]:
                b = _b.mul(b, self._atom_bound(a))
            res = _b.add(res, _b.scale(b, c))
        return res

    def _atom_bound(self, e: PrimExpr) -> Interval:
        ent = self._bnd.get(id(e))
        if ent is not None and ent[0] is e:
            return ent[1]
        t = type(e)
        rng = _b.dtype_range(e.dtype)
        if t is Var or t is SizeVar:
            self._observed.add(e)
            s = self._subst.get(e)
            if s is not None and is_index_dtype(s.dtype):
                b = self._bound(self._lin(s))
            else:
                b = self._var_bound.get(e, rng)
                if t is SizeVar:
                    b = (max(b[0], 0), b[1])
        elif t is IntImm:
            b = (e.value, e.value)
        elif t in INT_ARITH_SET and is_index_dtype(e.dtype):
            ba, bb = self._bound(self._lin(e.a)), self._bound(self._lin(e.b))
            combine = _BINARY_BOUNDS.get(t)
            b = combine(ba, bb) if combine is not None else self._bound(self._lin(e))
        elif t is Cast:
            v = e.value
            if is_index_dtype(v.dtype):
                b = self._bound(self._lin(v))
                if not (rng[0] <= b[0] and b[1] <= rng[1]):
                    b = rng
            elif _dt.is_bool(v.dtype):
                b = (0, 1)
            else:
                b = rng
        elif t is Select and is_index_dtype(e.dtype):
            b = _b.union(self._bound(self._lin(e.true_value)),
                         self._bound(self._lin(e.false_value)))
        elif t is Call and is_index_dtype(e.dtype):
            b = rng
            if e.op == "if_then_else":
                b = _b.union(self._bound(self._lin(e.args[1])), self._bound(self._lin(e.args[2])))
            elif e.op == "shift_right" and isinstance(e.args[1], IntImm) \
                    and 0 <= e.args[1].value < 63:
                b = _b.floordiv_const(self._bound(self._lin(e.args[0])), 1 << e.args[1].value)
            elif e.op == "bitwise_and":
                for x in e.args:
                    if isinstance(x, IntImm) and x.value >= 0:
                        b = (0, x.value)
        else:
            b = rng
        b = _b.intersect(b, rng)
        self._bnd[id(e)] = (e, b)
        return b

    def _prove_le0(self, p: Poly) -> bool:
        """Prove ``p <= 0`` from bounds, then from each known fact ``f <= 0``."""
        if p.is_const:
            return p.const <= 0
        if self._bound(p)[1] <= 0:
            return True
        for f in self._facts_all():
            # p <= k*f + (p - k*f) <= p - k*f for k > 0; k matches a shared term
            k = 1
            for m, (a, _, _) in p.terms.items():
                t = f.terms.get(m)
                if t is not None:
                    if (a > 0) == (t[0] > 0) and a % t[0] == 0:
                        k = a // t[0]
                    break
            d = self._merge_divmod(p.sub(f.scale(k)))
            if d.is_const:
                if d.const <= 0:
                    return True
            elif self._bound(d)[1] <= 0:
                return True
        return False
