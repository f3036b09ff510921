"""Canonical integer polynomials: ``sum(coeff * atom1 * atom2 ...) + const``.

An *atom* is a simplified expression the polynomial does not look into (a variable, a
``floordiv``/``floormod`` of a canonical numerator, a ``min``, a load …), identified by a
hashable *key* the analyzer gives it: the Var object itself for variables, a structural tuple
otherwise. A *monomial key* is the atom key for a single atom, or a frozenset of
``(atom key, power)`` pairs for products, so ``x*y`` and ``y*x`` meet. Terms keep their first
insertion order, which makes the rebuilt expression deterministic and close to how the user
wrote it.
"""
from __future__ import annotations

from math import gcd
from typing import Any, Dict, Tuple

from ..tir.expr import Add, IntImm, Mul, PrimExpr, Sub

# monomial key -> (coefficient, atoms in order)
Terms = Dict[Any, Tuple[int, Tuple[PrimExpr, ...], Tuple[Any, ...]]]


def mono_key(akeys: Tuple[Any, ...]):
    """The monomial key of a product of atoms given by their keys."""
    if len(akeys) == 1:
        return akeys[0]
    counts: Dict[Any, int] = {}
    for k in akeys:
        counts[k] = counts.get(k, 0) + 1
    return frozenset(counts.items())


class Poly:
    """An integer polynomial of one dtype. Immutable by convention once built."""

    __slots__ = ("dtype", "terms", "const", "_key", "_expr")

    def __init__(self, dtype: str, terms: Terms, const: int):
        self.dtype = dtype
        self.terms = terms
        self.const = const
        self._key = None
        self._expr = None

    @staticmethod
    def constant(dtype: str, value: int) -> "Poly":
        return Poly(dtype, {}, value)

    @staticmethod
    def atom(dtype: str, expr: PrimExpr, akey) -> "Poly":
        return Poly(dtype, {akey: (1, (expr,), (akey,))}, 0)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def key(self):
        """A hashable key equal for equal polynomials (term order ignored)."""
        k = self._key
        if k is None:
            k = (self.const, frozenset((m, t[0]) for m, t in self.terms.items()))
            self._key = k
        return k

    def single_atom(self):
        """The atom if this is exactly ``1 * atom``; else None."""
        if self.const == 0 and len(self.terms) == 1:
            (c, atoms, _), = self.terms.values()
            if c == 1 and len(atoms) == 1:
                return atoms[0]
        return None

    # ------------------------------------------------------------------ arithmetic
    def add(self, other: "Poly", sign: int = 1) -> "Poly":
        if not other.terms:
            if other.const == 0:
                return self
            return Poly(self.dtype, self.terms, self.const + sign * other.const)
        terms = dict(self.terms)
        for m, (c, atoms, akeys) in other.terms.items():
            old = terms.get(m)
            if old is None:
                terms[m] = (sign * c, atoms, akeys)
            else:
                nc = old[0] + sign * c
                if nc == 0:
                    del terms[m]
                else:
                    terms[m] = (nc, old[1], old[2])
        return Poly(self.dtype, terms, self.const + sign * other.const)

    def sub(self, other: "Poly") -> "Poly":
        return self.add(other, -1)

    def add_const(self, v: int) -> "Poly":
        return self if v == 0 else Poly(self.dtype, self.terms, self.const + v)

    def scale(self, s: int) -> "Poly":
        if s == 1:
            return self
        if s == 0:
            return Poly(self.dtype, {}, 0)
        return Poly(self.dtype, {m: (c * s, a, k) for m, (c, a, k) in self.terms.items()},
                    self.const * s)

    def mul(self, other: "Poly") -> "Poly":
        if not other.terms:
            return self.scale(other.const)
        if not self.terms:
            return other.scale(self.const)
        out = Poly(self.dtype, {}, self.const * other.const)
        if self.const:
            out = out.add(Poly(self.dtype, other.terms, 0).scale(self.const))
        if other.const:
            out = out.add(Poly(self.dtype, self.terms, 0).scale(other.const))
        for c1, a1, k1 in self.terms.values():
            for c2, a2, k2 in other.terms.values():
                akeys = k1 + k2
                prod = Poly(self.dtype, {mono_key(akeys): (c1 * c2, a1 + a2, akeys)}, 0)
                out = out.add(prod)
        return out

    def exact_div(self, g: int) -> "Poly":
        """Divide every coefficient and the constant by ``g`` (they must be multiples)."""
        return Poly(self.dtype, {m: (c // g, a, k) for m, (c, a, k) in self.terms.items()},
                    self.const // g)

    def coeff_gcd(self) -> int:
        """gcd of the coefficients (0 when there are none)."""
        g = 0
        for c, _, _ in self.terms.values():
            g = gcd(g, c)
            if g == 1:
                break
        return g

    # ------------------------------------------------------------------ rebuild
    def to_expr(self) -> PrimExpr:
        """Rebuild an expression: positive terms first (in order), then the negative ones,
        then the constant (``x*4 + y - z*2 - 1``)."""
        dt = self.dtype
        pos, negs = [], []
        for c, atoms, _ in self.terms.values():
            m = atoms[0]
            for a in atoms[1:]:
                m = Mul(m, a)
            (pos if c > 0 else negs).append((m, c))
        expr = None
        for m, c in pos:
            t = m if c == 1 else Mul(m, IntImm(dt, c))
            expr = t if expr is None else Add(expr, t)
        if expr is None and negs:
            if self.const > 0:
                expr = IntImm(dt, self.const)
                for m, c in negs:
                    expr = Sub(expr, m if c == -1 else Mul(m, IntImm(dt, -c)))
                return expr
            m, c = negs[0]
            expr = Mul(m, IntImm(dt, c))
            negs = negs[1:]
        for m, c in negs:
            expr = Sub(expr, m if c == -1 else Mul(m, IntImm(dt, -c)))
        if expr is None:
            return IntImm(dt, self.const)
        if self.const > 0:
            return Add(expr, IntImm(dt, self.const))
        if self.const < 0:
            return Sub(expr, IntImm(dt, -self.const))
        return expr
