"""Linear/polynomial normalisation: integer index expressions as canonical polynomials
(:class:`~.poly.Poly`) over atoms, and the keys that identify equal expressions."""
from __future__ import annotations

import itertools
from typing import Any

from ..ir import dtype as _dt
from ..tir import op as _op
from ..tir.expr import (
    Add,
    Call,
    Cast,
    Div,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mod,
    Mul,
    Node,
    PrimExpr,
    Range,
    SizeVar,
    Sub,
    Var,
)
from ..tir.functor import node_fields
from . import bound as _b
from .common import INT_ARITH_SET, is_index_dtype
from .poly import Poly
from .rules import fire, rules

_INTERN_IDS = itertools.count()

rules({"canonical": {
    "fold_const": "3 + 4*2 -> 11",
    "cancel": "x + y - x -> y",
    "distribute": "(x + 2)*3 -> x*3 + 6",
    "subst_var": "x -> e after bind(x, e)",
    "const_var": "x -> 5 when x is bound to [5, 5]",
    "cast_const": "int64(3) -> 3i64",
    "cast_push": "int64(x + 1) -> int64(x) + 1i64 when x + 1 fits int32",
    "fold_float": "2f * 3f -> 6f",
}})


class CanonicalMixin:
    """Turn integer expressions into canonical polynomials and back (rules ``canonical.*``).

    Atoms that are divisions, modulos or min/max are handed to :mod:`.div_mod` and
    :mod:`.min_max`; anything else is simplified by the dispatch of :mod:`.simplifier`."""

    def _key(self, e) -> Any:
        """A hashable key equal for expressions this analyzer considers identical: the
        canonical polynomial for integer arithmetic, the structure otherwise."""
        t = type(e)
        if t in INT_ARITH_SET and is_index_dtype(e.dtype):
            ent = self._keys.get(id(e))
            if ent is not None and ent[0] is e:
                return ent[1]
            k = ("p", e.dtype, self._lin(e).key())
            self._keys[id(e)] = (e, k)
            return k
        return self._skey(e)

    def _skey(self, e) -> Any:
        """A purely structural key (never simplifies anything, so it is safe on results that
        came from another context)."""
        t = type(e)
        if t is Var or t is SizeVar:
            return ("v", e)   # never a bare Var: ``==`` on a Var builds an EQ node
        if t is IntImm:
            return ("c", e.dtype, e.value)
        ent = self._skeys.get(id(e))
        if ent is not None and ent[0] is e:
            return ent[1]
        if isinstance(e, (PrimExpr, Range)):
            flat = (t.__name__,) + tuple(self._field_key(getattr(e, f)) for f in node_fields(t))
            if t is Cast or t is Call:
                flat = flat + (e.dtype,)
            # hash-consed: a small key, so hashing never walks a deep (or shared) tree
            k = self._intern.get(flat)
            if k is None:
                k = ("s", next(_INTERN_IDS))
                self._intern[flat] = k
        else:
            k = ("n", id(e), e)
        self._skeys[id(e)] = (e, k)
        return k

    def _field_key(self, v) -> Any:
        if isinstance(v, PrimExpr):
            return self._skey(v)
        if isinstance(v, tuple):
            return tuple(self._field_key(x) for x in v)
        if isinstance(v, Node):   # buffers, iter vars: by identity
            return ("n", id(v), v)
        return v

    def _expr(self, p: Poly) -> PrimExpr:
        r = p._expr
        if r is None:
            r = p.to_expr()
            p._expr = r
            self._lin_memo[id(r)] = (r, p)
        return r

    def _atom(self, cls, pa: Poly, pb: Poly, commutative: bool = False) -> Poly:
        if commutative:
            key = (cls.__name__, frozenset((pa.key(), pb.key())))
        else:
            key = (cls.__name__, pa.key(), pb.key())
        expr = cls(self._expr(pa), self._expr(pb))
        p = Poly.atom(pa.dtype, expr, key)
        self._lin_memo[id(expr)] = (expr, p)
        self._keys[id(expr)] = (expr, key)
        return p

    def _lin(self, e: PrimExpr) -> Poly:
        ent = self._lin_memo.get(id(e))
        if ent is not None and ent[0] is e:
            return ent[1]
        t = type(e)
        if t is IntImm:
            p = Poly.constant(e.dtype, e.value)
        elif t is Add or t is Sub:
            pa, pb = self._lin(e.a), self._lin(e.b)
            p = pa.add(pb, 1 if t is Add else -1)
            if not p.terms:
                if pa.terms or pb.terms or type(e.a) is IntImm or type(e.b) is IntImm:
                    fire("canonical.fold_const" if not pa.terms else "canonical.cancel")
            elif len(p.terms) < len(pa.terms) + len(pb.terms):
                fire("canonical.cancel")
            p = self._merge_divmod(p)
        elif t is Mul:
            pa, pb = self._lin(e.a), self._lin(e.b)
            p = pa.mul(pb)
            if pa.terms and pb.terms:
                p = self._merge_divmod(p)
            if not p.terms:
                fire("canonical.fold_const")
            elif len(pa.terms) + (pa.const != 0) > 1 and (pb.terms or pb.const != 1) \
                    or len(pb.terms) + (pb.const != 0) > 1 and (pa.terms or pa.const != 1):
                fire("canonical.distribute")
        elif t is Var or t is SizeVar:
            p = self._lin_var(e)
        else:
            # facts may mention this very node: a re-entrant request sees it as an atom
            if id(e) in self._busy:
                return Poly.atom(e.dtype, e, ("busy", id(e), e))
            self._busy.add(id(e))
            try:
                p = self._lin_slow(e, t)
            finally:
                self._busy.discard(id(e))
        self._lin_memo[id(e)] = (e, p)
        return p

    def _lin_slow(self, e: PrimExpr, t) -> Poly:
        if t is FloorDiv:
            p = self._fdiv(self._lin(e.a), self._lin(e.b))
        elif t is FloorMod:
            p = self._fmod(self._lin(e.a), self._lin(e.b))
        elif t is Div:
            p = self._tdiv(self._lin(e.a), self._lin(e.b))
        elif t is Mod:
            p = self._tmod(self._lin(e.a), self._lin(e.b))
        elif t is Min or t is Max:
            p = self._minmax(t, self._lin(e.a), self._lin(e.b))
        elif t is Cast and is_index_dtype(e.value.dtype):
            p = self._lin_cast(e)
        else:
            s = self._simp(e)
            ts = type(s)
            if ts is IntImm:
                p = Poly.constant(e.dtype, s.value)
            elif s is not e and (ts in INT_ARITH_SET or ts is Var or ts is SizeVar):
                p = self._lin(s)
            else:
                p = Poly.atom(e.dtype, s, self._key(s))
        return p

    def _lin_var(self, v: Var) -> Poly:
        self._observed.add(v)
        s = self._subst.get(v)
        if s is not None:
            if s.dtype != v.dtype:
                s = _op.cast(v.dtype, s)
            return fire("canonical.subst_var", self._lin(s))
        b = self._var_bound.get(v)
        if b is not None and b[0] == b[1]:
            return fire("canonical.const_var", Poly.constant(v.dtype, b[0]))
        return Poly.atom(v.dtype, v, ("v", v))

    def _lin_cast(self, e: Cast) -> Poly:
        """Push an integer cast into the sum when the value fits the target type, and its own
        where that wraps around (a narrow or unsigned ``uint8(x) + 128`` is not its terms'
        sum; int32/int64 sums are assumed not to overflow, as classic does)."""
        pv = self._lin(e.value)
        dt = e.dtype
        if pv.is_const:
            fire("canonical.cast_const")
            val, src = pv.const, e.value.dtype
            if _dt.bits(src) < 32 or src.startswith("uint"):  # the value as its dtype holds it
                slo, shi = _b.dtype_range(src)
                val = (val - slo) % (shi - slo + 1) + slo
            return Poly.constant(dt, _op.cast(dt, IntImm(src, val)).value)
        lo, hi = self._bound(pv)
        tlo, thi = _b.dtype_range(dt)
        src = e.value.dtype
        if _dt.bits(src) < 32 or src.startswith("uint"):  # sums that wrap (no UB assumed)
            slo, shi = _b.dtype_range(src)
            tlo, thi = max(tlo, slo), min(thi, shi)
        if not (tlo <= lo and hi <= thi):
            s = Cast(dt, self._expr(pv))
            return Poly.atom(dt, s, self._key(s))
        fire("canonical.cast_push")
        out = Poly.constant(dt, pv.const)
        for c, atoms, _ in pv.terms.values():
            term = Poly.constant(dt, c)
            for a in atoms:
                ca = Cast(dt, a)
                term = term.mul(Poly.atom(dt, ca, self._key(ca)))
            out = out.add(term)
        return out

    def _simp_leaf(self, e):
        return e

    def _simp_var(self, e):
        if is_index_dtype(e.dtype):
            return self._expr(self._lin(e))
        s = self._subst.get(e)
        if s is not None:
            self._observed.add(e)
            return fire("canonical.subst_var", s)
        return e

    def _simp_arith(self, e):
        if is_index_dtype(e.dtype):
            return self._expr(self._lin(e))
        sa, sb = self._simp(e.a), self._simp(e.b)
        t = type(e)
        if _dt.lanes(e.dtype) > 1:
            v = self._simp_vector(t, sa, sb)
            if v is not None:
                return v
        folded = _op._fold(t, sa, sb)
        if folded is not None:
            return fire("canonical.fold_float", folded)
        if sa is e.a and sb is e.b:
            return e
        return t(sa, sb)
