"""Division and modulo rewrites (floor and truncating), resolved with constant bounds and
facts: ``(x*8 + y) // 8 -> x`` for ``0 <= y < 8``."""
from __future__ import annotations

from math import gcd
from typing import Any, Dict

from ..tir.expr import Div, FloorDiv, FloorMod, IntImm, Mod
from .bound import is_finite
from .poly import Poly, mono_key
from .rules import fire, rules

rules({"div_mod": {
    "fold_const": "7 // 2 -> 3",
    "by_one": "x // 1 -> x, x % 1 -> 0",
    "common_factor": "(x*4 + 2) // 6 -> (x*2 + 1) // 3",
    "split_multiple": "(x*8 + 11) // 8 -> x + 1, (x*8 + y) // 8 -> x + y // 8",
    "bound_collapse": "(x*8 + y) // 8 -> x for 0 <= y < 8",
    "gcd_split": "(x*4 + y) // 8 -> x // 2 for 0 <= y < 4",
    "nested_div": "x // 4 // 2 -> x // 8",
    "nested_mod": "x % 16 % 8 -> x % 8",
    "symbolic": "(x*n + y) // n -> x for 0 <= y < n",
    "in_range": "y % n -> y, y // n -> 0 for 0 <= y < n",
    "merge": "x // 8 * 8 + x % 8 -> x",
    "div_to_mod": "x - x // 8 * 8 -> x % 8",
    "trunc_exact": "truncdiv(x*4, 2) -> x*2",
    "trunc_to_floor": "truncdiv(x, 4) -> x // 4 for x >= 0",
}})


def _tdiv_int(x: int, c: int) -> int:
    q = abs(x) // abs(c)
    return q if (x >= 0) == (c > 0) else -q


class DivModMixin:
    """Rewrites of ``//``, ``%``, ``truncdiv`` and ``truncmod`` on polynomials (rules
    ``div_mod.*``); ranges come from :mod:`.prove`."""

    def _div_to_mod(self, p: Poly) -> Poly:
        """``c*x - c*d*(x // d) -> c*(x % d)`` for an atom ``x`` and a constant ``d > 0``."""
        for m, (cf, atoms, _keys) in p.terms.items():
            if len(atoms) != 1 or type(atoms[0]) is not FloorDiv:
                continue
            a = atoms[0]
            if type(a.b) is not IntImm or a.b.value <= 0:
                continue
            d = a.b.value
            num = self._lin(a.a)
            if num.const != 0 or len(num.terms) != 1 or cf % d != 0:
                continue
            (nm, (nc, _, _)), = num.terms.items()
            other = p.terms.get(nm)
            if nc != 1 or other is None or other[0] != -(cf // d):
                continue
            terms = {k: v for k, v in p.terms.items() if k != m and k != nm}
            mod = self._fmod_const(num, d).scale(other[0])
            return fire("div_mod.div_to_mod", Poly(p.dtype, terms, p.const).add(mod))
        return p

    def _merge_divmod(self, p: Poly) -> Poly:
        """``c*R*(x // d)*d + c*R*(x % d) -> c*R*x`` (also for a symbolic one-term ``d``)."""
        if len(p.terms) < 2:
            return p
        for m, (c, atoms, keys) in p.terms.items():
            for i, a in enumerate(atoms):
                if type(a) is not FloorMod:
                    continue
                akey = keys[i]
                if not (isinstance(akey, tuple) and akey[0] == "FloorMod"):
                    continue
                dkey = ("FloorDiv",) + akey[1:]
                rest_a, rest_k = atoms[:i] + atoms[i + 1:], keys[:i] + keys[i + 1:]
                pb = self._lin(a.b)
                if pb.is_const:
                    tkeys, tcoeff = rest_k + (dkey,), c * pb.const
                elif pb.const == 0 and len(pb.terms) == 1:
                    (dc, _, dks), = pb.terms.values()
                    tkeys, tcoeff = rest_k + (dkey,) + dks, c * dc
                else:
                    continue
                tm = mono_key(tkeys)
                other = p.terms.get(tm)
                if other is None or other[0] != tcoeff or tm == m:
                    continue
                terms = {k: v for k, v in p.terms.items() if k != m and k != tm}
                rest = Poly.constant(p.dtype, c)
                for ra, rk in zip(rest_a, rest_k):
                    rest = rest.mul(Poly.atom(p.dtype, ra, rk))
                merged = Poly(p.dtype, terms, p.const).add(rest.mul(self._lin(a.a)))
                return fire("div_mod.merge", self._merge_divmod(merged))
        return self._div_to_mod(p) if len(p.terms) >= 2 else p

    def _split_terms(self, pa: Poly, c: int):
        """Split ``pa`` (constant excluded) into ``c*Q + R`` with |R's coefficients| < c."""
        q, r = {}, {}
        for m, (a, atoms, keys) in pa.terms.items():
            if a % c == 0:
                q[m] = (a // c, atoms, keys)
                continue
            qq = a // c if a > 0 else -((-a) // c)
            if qq:
                q[m] = (qq, atoms, keys)
            r[m] = (a - qq * c, atoms, keys)
        return Poly(pa.dtype, q, 0), Poly(pa.dtype, r, 0)

    def _gcd_split(self, rp: Poly, k: int, c: int):
        """Find ``g | c`` with ``rp + k = g*A + B`` and ``0 <= B < g``; returns (A, B, g)."""
        cands = sorted({gcd(a, c) for a, _, _ in rp.terms.values()} - {1}, reverse=True)
        for g in cands:
            at, bt = {}, {}
            for m, (a, atoms, keys) in rp.terms.items():
                if a % g == 0:
                    at[m] = (a // g, atoms, keys)
                else:
                    bt[m] = (a, atoms, keys)
            if not at:
                continue
            bp = Poly(rp.dtype, bt, k % g)
            lo, hi = self._bound(bp)
            if lo >= 0 and hi < g:
                return Poly(rp.dtype, at, k // g), bp, g
        return None

    def _fdiv(self, pa: Poly, pb: Poly) -> Poly:
        if pb.is_const:
            c = pb.const
            if c == 0:
                return self._atom(FloorDiv, pa, pb)
            if pa.is_const:
                return fire("div_mod.fold_const", Poly.constant(pa.dtype, pa.const // c))
            if c == 1:
                return fire("div_mod.by_one", pa)
            if c < 0:
                return self._atom(FloorDiv, pa, pb)
            return self._fdiv_const(pa, c)
        qr = self._split_symbolic(pa, pb)
        if qr is not None:
            q, rem = qr
            if rem.is_const and rem.const == 0:
                return fire("div_mod.symbolic", q)
            if self._in_zero_to(rem, pb):
                return fire("div_mod.symbolic", q)
        elif self._in_zero_to(pa, pb):
            return fire("div_mod.in_range", Poly.constant(pa.dtype, 0))
        return self._atom(FloorDiv, pa, pb)

    def _fdiv_const(self, pa: Poly, c: int) -> Poly:
        dt = pa.dtype
        if pa.is_const:
            return fire("div_mod.fold_const", Poly.constant(dt, pa.const // c))
        g = gcd(gcd(pa.coeff_gcd(), pa.const), c)
        if g > 1:
            fire("div_mod.common_factor")
            pa, c = pa.exact_div(g), c // g
            if c == 1:
                return pa
        q, r = self._split_terms(pa, c)
        k = pa.const
        if not r.terms:
            return fire("div_mod.split_multiple", q.add_const(k // c))
        lo, hi = self._bound(r)
        if is_finite(lo) and is_finite(hi) and (lo + k) // c == (hi + k) // c:
            return fire("div_mod.bound_collapse", q.add_const((lo + k) // c))
        split = self._gcd_split(r, k, c)
        if split is not None:
            a, _, g2 = split
            return fire("div_mod.gcd_split", q.add(self._fdiv_const(a, c // g2)))
        inner = r.single_atom()
        if inner is not None and type(inner) is FloorDiv and type(inner.b) is IntImm \
                and inner.b.value > 0:
            c1 = inner.b.value
            fire("div_mod.nested_div")
            return q.add(self._fdiv_const(self._lin(inner.a).add_const(k * c1), c1 * c))
        if q.terms:
            fire("div_mod.split_multiple")
        atom = self._atom(FloorDiv, r.add_const(k % c), Poly.constant(dt, c))
        return q.add(atom).add_const(k // c)

    def _fmod(self, pa: Poly, pb: Poly) -> Poly:
        if pb.is_const:
            c = pb.const
            if c == 0:
                return self._atom(FloorMod, pa, pb)
            if pa.is_const:
                return fire("div_mod.fold_const", Poly.constant(pa.dtype, pa.const % c))
            if c == 1 or c == -1:
                return fire("div_mod.by_one", Poly.constant(pa.dtype, 0))
            if c < 0:
                return self._atom(FloorMod, pa, pb)
            return self._fmod_const(pa, c)
        qr = self._split_symbolic(pa, pb)
        if qr is not None:
            _, rem = qr
            if rem.is_const and rem.const == 0:
                return fire("div_mod.symbolic", rem)
            if self._in_zero_to(rem, pb):
                return fire("div_mod.symbolic", rem)
            return fire("div_mod.symbolic", self._atom(FloorMod, rem, pb))
        if self._in_zero_to(pa, pb):
            return fire("div_mod.in_range", pa)
        return self._atom(FloorMod, pa, pb)

    def _fmod_const(self, pa: Poly, c: int) -> Poly:
        dt = pa.dtype
        if pa.is_const:
            return fire("div_mod.fold_const", Poly.constant(dt, pa.const % c))
        g = gcd(gcd(pa.coeff_gcd(), pa.const), c)
        if g > 1:
            fire("div_mod.common_factor")
            if c == g:
                return Poly.constant(dt, 0)
            return self._fmod_const(pa.exact_div(g), c // g).scale(g)
        q, r = self._split_terms(pa, c)
        k = pa.const % c
        if not r.terms:
            return fire("div_mod.split_multiple", Poly.constant(dt, k))
        lo, hi = self._bound(r)
        if is_finite(lo) and is_finite(hi) and (lo + k) // c == (hi + k) // c:
            return fire("div_mod.bound_collapse", r.add_const(k - c * ((lo + k) // c)))
        split = self._gcd_split(r, k, c)
        if split is not None:
            a, b, g2 = split
            return fire("div_mod.gcd_split", self._fmod_const(a, c // g2).scale(g2).add(b))
        inner = r.single_atom()
        if inner is not None and type(inner) is FloorMod and type(inner.b) is IntImm \
                and inner.b.value > 0 and inner.b.value % c == 0:
            return fire("div_mod.nested_mod", self._fmod_const(self._lin(inner.a).add_const(k), c))
        if q.terms or k != pa.const:
            fire("div_mod.split_multiple")
        return self._atom(FloorMod, r.add_const(k), Poly.constant(dt, c))

    def _split_symbolic(self, pa: Poly, pb: Poly):
        """For a one-term divisor ``d*M``: ``pa = Q*pb + R``; None when Q would be empty."""
        if pb.const != 0 or len(pb.terms) != 1:
            return None
        (d, _, dkeys), = pb.terms.values()
        need: Dict[Any, int] = {}
        for k in dkeys:
            need[k] = need.get(k, 0) + 1
        q, r = {}, {}
        for m, (a, atoms, keys) in pa.terms.items():
            if a % d == 0:
                have: Dict[Any, int] = {}
                for k in keys:
                    have[k] = have.get(k, 0) + 1
                if all(have.get(k, 0) >= n for k, n in need.items()):
                    left = dict(need)
                    na, nk = [], []
                    for at, k in zip(atoms, keys):
                        if left.get(k, 0) > 0:
                            left[k] -= 1
                        else:
                            na.append(at)
                            nk.append(k)
                    if nk:
                        nk_t = tuple(nk)
                        mk = mono_key(nk_t)
                        old = q.get(mk)
                        q[mk] = (a // d + (old[0] if old else 0), tuple(na), nk_t)
                    else:
                        q["__const__"] = (a // d + q.get("__const__", (0,))[0], (), ())
                    continue
            r[m] = (a, atoms, keys)
        if not q:
            return None
        qc = q.pop("__const__", (0,))[0]
        q = {m: t for m, t in q.items() if t[0] != 0}
        return Poly(pa.dtype, q, qc), Poly(pa.dtype, r, pa.const)

    def _in_zero_to(self, rem: Poly, pb: Poly) -> bool:
        """Prove ``0 <= rem < pb``."""
        return self._prove_le0(rem.scale(-1)) and self._prove_le0(rem.sub(pb).add_const(1))

    def _tdiv(self, pa: Poly, pb: Poly) -> Poly:
        if pb.is_const and pb.const != 0:
            c = pb.const
            if pa.is_const:
                return fire("div_mod.fold_const", Poly.constant(pa.dtype, _tdiv_int(pa.const, c)))
            if c == 1:
                return fire("div_mod.by_one", pa)
            if pa.const % c == 0 and pa.coeff_gcd() % c == 0:
                return fire("div_mod.trunc_exact", pa.exact_div(c))
            if c > 0 and self._bound(pa)[0] >= 0:
                return fire("div_mod.trunc_to_floor", self._fdiv_const(pa, c))
        elif not pb.is_const and self._bound(pa)[0] >= 0 and self._bound(pb)[0] > 0:
            return fire("div_mod.trunc_to_floor", self._fdiv(pa, pb))
        return self._atom(Div, pa, pb)

    def _tmod(self, pa: Poly, pb: Poly) -> Poly:
        if pb.is_const and pb.const != 0:
            c = pb.const
            if pa.is_const:
                fire("div_mod.fold_const")
                return Poly.constant(pa.dtype, pa.const - c * _tdiv_int(pa.const, c))
            if c in (1, -1) or (pa.const % c == 0 and pa.coeff_gcd() % c == 0):
                return fire("div_mod.trunc_exact", Poly.constant(pa.dtype, 0))
            if c > 0 and self._bound(pa)[0] >= 0:
                return fire("div_mod.trunc_to_floor", self._fmod_const(pa, c))
        elif not pb.is_const and self._bound(pa)[0] >= 0 and self._bound(pb)[0] > 0:
            return fire("div_mod.trunc_to_floor", self._fmod(pa, pb))
        return self._atom(Mod, pa, pb)
