"""Comparisons and boolean connectives: decided from bounds and facts, else normalised."""
from __future__ import annotations

from ..ir import dtype as _dt
from ..tir import op as _op
from ..tir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    And,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Not,
    Or,
    PrimExpr,
)
from .common import FALSE, TRUE, as_bool, is_index_dtype
from .poly import Poly
from .rules import fire, rules

rules({
    "compare": {
        "fold_const": "3 < 4 -> true, x + 1 == x + 1 -> true",
        "prove_true": "x < x + 1 -> true, i < n for i in [0, n)",
        "prove_false": "x + 1 <= x -> false",
        "prove_ne": "x*2 == y*2 + 1 -> false",
        "divide_gcd": "x*4 < 9 -> x < 3",
        "cancel_common": "x + y < x + 5 -> y < 5",
        "floordiv_const": "x // 8 < 3 -> x < 24, 2 < x // 8 -> 23 < x",
    },
    "logic": {
        "absorb": "false && c -> false, true || c -> true",
        "neutral": "true && c -> c, false || c -> c",
        "duplicate": "c && c -> c",
        "complement": "c && !c -> false",
        "implied": "i < 3 && i < 4 -> i < 3",
        "bound_mod": "x < 256 && x % 128 < 127 -> x < 255 && x % 128 < 127",
        "contradiction": "x < y && y <= x -> false",
        "not_const": "!true -> false",
        "double_not": "!!c -> c",
        "not_cmp": "!(x < y) -> y <= x",
    },
})


class CompareMixin:
    """Rewrites of comparisons, ``and``, ``or`` and ``not`` (rules ``compare.*``, ``logic.*``)."""

    def _simp_cmp(self, e):
        t = type(e)
        a, b = e.a, e.b
        if not is_index_dtype(a.dtype):
            sa, sb = self._simp(a), self._simp(b)
            if isinstance(sa, (IntImm, FloatImm)) and isinstance(sb, (IntImm, FloatImm)):
                return fire("compare.fold_const", _op._cmp(t, sa, sb))
            if sa is a and sb is b:
                return e
            return t(sa, sb)
        pa, pb = self._lin(a), self._lin(b)
        if t is GT:
            t, pa, pb = LT, pb, pa
        elif t is GE:
            t, pa, pb = LE, pb, pa
        d = pa.sub(pb)
        if t is LT:
            if self._prove_le0(d.add_const(1)):
                return fire("compare.prove_true", TRUE)
            if self._prove_le0(d.scale(-1)):
                return fire("compare.prove_false", FALSE)
        elif t is LE:
            if self._prove_le0(d):
                return fire("compare.prove_true", TRUE)
            if self._prove_le0(d.scale(-1).add_const(1)):
                return fire("compare.prove_false", FALSE)
        else:
            if d.is_const:
                return fire("compare.fold_const", as_bool((d.const == 0) == (t is EQ)))
            g = d.coeff_gcd()
            if (g and d.const % g != 0) or self._prove_le0(d.add_const(1)) \
                    or self._prove_le0(d.scale(-1).add_const(1)):
                return fire("compare.prove_ne", as_bool(t is NE))
        return self._normalize_cmp(t, pa, pb)

    def _normalize_cmp(self, t, pa: Poly, pb: Poly) -> PrimExpr:
        dt = pa.dtype
        if pb.is_const or pa.is_const:
            left_const = pa.is_const
            n = pb if left_const else pa
            k = (pa.const - pb.const) if left_const else (pb.const - pa.const)
            n = Poly(dt, n.terms, 0)
            g = abs(n.coeff_gcd())
            if g > 1:
                fire("compare.divide_gcd")
                n = n.exact_div(g)
                if t is EQ or t is NE:
                    if k % g:
                        return fire("compare.prove_ne", as_bool(t is NE))
                    k //= g
                elif left_const:   # k < n*g  /  k <= n*g
                    k = k // g if t is LT else -((-k) // g)
                else:              # n*g < k  /  n*g <= k
                    k = (k - 1) // g + 1 if t is LT else k // g
            fd = n.single_atom()
            if type(fd) is FloorDiv and type(fd.b) is IntImm and fd.b.value > 0 \
                    and t in (LT, LE):
                r = self._floordiv_cmp(t, fd.a, fd.b.value, k, left_const)
                if r is not None:
                    return r
            kc = Poly.constant(dt, k)
            pa, pb = (kc, n) if left_const else (n, kc)
        else:
            common = [m for m, tm in pa.terms.items()
                      if m in pb.terms and pb.terms[m][0] == tm[0]]
            ta = {m: tm for m, tm in pa.terms.items() if m not in common}
            tb = {m: tm for m, tm in pb.terms.items() if m not in common}
            k = pb.const - pa.const
            if not ta or not tb:
                fire("compare.cancel_common")
                return self._normalize_cmp(t, Poly(dt, ta, 0), Poly(dt, tb, k))
            pa, pb = Poly(dt, ta, 0), Poly(dt, tb, k)
        return t(self._expr(pa), self._expr(pb))

    def _floordiv_cmp(self, t, x: PrimExpr, c: int, k: int, left_const: bool) -> PrimExpr:
        """``x // c`` (``c > 0``) compared with the constant ``k`` as a comparison of ``x``:
        ``x//c < k <=> x < k*c``, ``x//c <= k <=> x <= (k+1)*c - 1``,
        ``k < x//c <=> (k+1)*c - 1 < x``, ``k <= x//c <=> k*c <= x``. None when the new
        constant does not fit ``x``'s dtype."""
        px = self._lin(x)
        if left_const:
            kk = (k + 1) * c - 1 if t is LT else k * c
        else:
            kk = k * c if t is LT else (k + 1) * c - 1
        if not _dt.min_value(px.dtype) <= kk <= _dt.max_value(px.dtype):
            return None
        fire("compare.floordiv_const")
        if left_const:
            return self._normalize_cmp(t, Poly.constant(px.dtype, kk), px)
        return self._normalize_cmp(t, px, Poly.constant(px.dtype, kk))

    def _bound_mod(self, sa: PrimExpr, sb: PrimExpr):
        """``x < c1 && x % c2 < c3`` (either order, ``c2 > 0``, ``0 < c3 < c2``) with the
        bound on ``x`` tightened to the last value whose residue passes: with ``r`` the
        values of the last period below ``c1`` (``c1 % c2``, or ``c2``), those in
        ``[c1 - r, c1)`` pass only below ``c1 - r + c3`` (None when nothing is cut)."""
        for lt, md, first in ((sa, sb, True), (sb, sa, False)):
            if not (type(lt) is LT and type(lt.b) is IntImm and type(md) is LT
                    and type(md.b) is IntImm and type(md.a) is FloorMod
                    and type(md.a.b) is IntImm):
                continue
            c1, c2, c3 = lt.b.value, md.a.b.value, md.b.value
            if c2 <= 0 or not 0 < c3 < c2:
                continue
            r = c1 % c2 or c2          # the residues 0 .. r-1 of the last, partial period
            if r <= c3 or self._key(md.a.a) != self._key(lt.a):
                continue
            tight = LT(lt.a, IntImm(lt.b.dtype, c1 - r + c3))
            fire("logic.bound_mod")
            return And(tight, md) if first else And(md, tight)
        return None

    def _simp_and(self, e):
        return self._simp_logic(e, True)

    def _simp_or(self, e):
        return self._simp_logic(e, False)

    def _simp_logic(self, e, is_and: bool):
        """``a and b`` / ``a or b``: constants, duplicates, complements, and each side
        decided under the other (``x < y and y <= x`` is false, ``i < 3 and i < 4`` is
        ``i < 3``)."""
        absorb, neutral = (FALSE, TRUE) if is_and else (TRUE, FALSE)
        sa = self._simp(e.a)
        if type(sa) is IntImm and bool(sa.value) == bool(absorb.value):
            return fire("logic.absorb", absorb)
        sb = self._simp(e.b)
        if type(sa) is IntImm:
            return fire("logic.neutral", sb)
        if type(sb) is IntImm:
            if bool(sb.value) == bool(absorb.value):
                return fire("logic.absorb", absorb)
            return fire("logic.neutral", sa)
        ka, kb = self._key(sa), self._key(sb)
        if ka == kb:
            return fire("logic.duplicate", sa)
        if (type(sa) is Not and self._key(sa.a) == kb) or \
                (type(sb) is Not and self._key(sb.a) == ka):
            return fire("logic.complement", absorb)
        # only between two comparisons: deciding a whole sub-formula under the other side
        # would re-simplify left-nested chains exponentially often
        both = self._is_fact(sa) and self._is_fact(sb)
        for first, second, keep in ((sa, sb, sa), (sb, sa, sb)) if both else ():
            with self.constraint_scope(first if is_and else Not(first)):
                d = self._simp(second)
            if type(d) is IntImm:
                if bool(d.value) == bool(neutral.value):
                    return fire("logic.implied", keep)
                return fire("logic.contradiction", absorb)
        if is_and:
            r = self._bound_mod(sa, sb)
            if r is not None:
                return r
        if sa is e.a and sb is e.b:
            return e
        return And(sa, sb) if is_and else Or(sa, sb)

    @staticmethod
    def _is_fact(c) -> bool:
        return type(c) in (LT, LE, EQ, NE) and is_index_dtype(c.a.dtype)

    def _simp_not(self, e):
        sa = self._simp(e.a)
        t = type(sa)
        if t is IntImm:
            return fire("logic.not_const", IntImm(sa.dtype, 1 - sa.value))
        if t is Not:
            return fire("logic.double_not", sa.a)
        if t is EQ:
            return fire("logic.not_cmp", self._simp(NE(sa.a, sa.b)))
        if t is NE:
            return fire("logic.not_cmp", self._simp(EQ(sa.a, sa.b)))
        if t in (LT, LE, GT, GE) and _dt.is_integral(_dt.element(sa.a.dtype)):
            fire("logic.not_cmp")
            flip = {LT: LE, LE: LT, GT: GE, GE: GT}[t]
            return self._simp(flip(sa.b, sa.a))
        if sa is e.a:
            return e
        return Not(sa)
