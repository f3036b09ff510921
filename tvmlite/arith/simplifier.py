"""The simplifier: one class made of the rewrite families, with the public simplification API.

One simplifier serves ``simplify``, ``rewrite_simplify`` and ``canonical_simplify``: integer
index expressions are turned into canonical polynomials (:mod:`.canonical`) whose atoms are
variables and canonical ``floordiv``/``floormod``/``min``/``max``/… nodes; division and modulo
are resolved with constant bounds where they allow it (:mod:`.div_mod`), and comparisons are
decided from bounds and from the facts of the enclosing ``constraint_scope`` / symbolic loop
ranges (:mod:`.compare`, :mod:`.prove`). Floating point expressions are only constant folded.
Results are memoized per context (:mod:`.context`): binding a variable the cache has already
looked at, or entering a constraint scope, starts a fresh cache. Each rewrite has a name
(:mod:`.rules`); ``rewrite_stats()`` counts which ones fired.

Rule families by module:

- ``canonical``: ``canonical.*`` (``x + y - x -> y``)
- ``div_mod``: ``div_mod.*`` (``(x*8 + y) // 8 -> x`` for ``0 <= y < 8``)
- ``min_max``: ``min_max.*`` (``min(x, x + 1) -> x``)
- ``compare``: ``compare.*``, ``logic.*`` (``i < 3 && i < 4 -> i < 3``)
- ``select_cast``: ``select.*``, ``if_then_else.*``, ``likely.*``, ``cast.*``, ``vector.*``
  (``select(c, a, a) -> a``)
- ``simplifier``: ``context.known_fact`` (``c -> true`` inside ``constraint_scope(c)``)

``prove`` (bounds, ``p <= 0`` proofs) and ``context`` (bindings, facts, memo tables) rewrite
nothing themselves. ``tvmlite.arith.rules.RULES`` lists every rule with its example.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from ..ir import dtype as _dt
from ..tir import op as _op
from ..tir.expr import (
    And,
    Call,
    Cast,
    FloatImm,
    IntImm,
    IterVar,
    Not,
    Or,
    PrimExpr,
    Range,
    Select,
    SizeVar,
    StringImm,
    Var,
)
from . import bound as _b
from .bound import NEG_INF, POS_INF, ConstIntBound
from .canonical import CanonicalMixin
from .common import CMP_SET, INT_ARITH, as_bool, is_index_dtype, to_expr
from .compare import CompareMixin
from .context import ContextMixin
from .div_mod import DivModMixin
from .min_max import MinMaxMixin
from .prove import ProveMixin
from .rules import fire, rules
from .select_cast import BRANCH_BUDGET, SelectCastMixin

rules({"context": {"known_fact": "c -> true inside constraint_scope(c)"}})

_CACHE_LIMIT = 200_000   # memo entries before a long-lived analyzer starts afresh


class ModularSet:
    """``{coeff * k + base}``: what is known about an integer expression modulo ``coeff``
    (``coeff == 0`` means the exact value ``base``)."""

    __slots__ = ("coeff", "base")

    def __init__(self, coeff: int, base: int):
        self.coeff = int(coeff)
        self.base = int(base)

    def __repr__(self) -> str:
        return f"ModularSet(coeff={self.coeff}, base={self.base})"


class Simplifier(ContextMixin, CanonicalMixin, DivModMixin, MinMaxMixin, ProveMixin,
                 CompareMixin, SelectCastMixin):
    """Simplification, constant bounds, modular sets and proofs (the core of
    :class:`~.analyzer.Analyzer`, which adds the integer-set queries)."""

    def simplify(self, expr, steps: int = 2) -> PrimExpr:
        """Simplify ``expr`` under what the analyzer knows (ranges, constraints)."""
        if len(self._lin_memo) > _CACHE_LIMIT or len(self._memo) > _CACHE_LIMIT:
            self._new_caches()
        if len(self._skeys) > _CACHE_LIMIT:
            self._skeys, self._intern = {}, {}   # fresh ids never collide with old ones
        if self._branch_depth == 0:
            self._branch_budget = BRANCH_BUDGET
        return self._simp(to_expr(expr))

    def rewrite_simplify(self, expr) -> PrimExpr:
        """Same as :meth:`simplify` (one simplifier does both jobs)."""
        return self.simplify(expr)

    def canonical_simplify(self, expr) -> PrimExpr:
        """Same as :meth:`simplify` (one simplifier does both jobs)."""
        return self.simplify(expr)

    def const_int_bound(self, expr) -> ConstIntBound:
        """Constant lower/upper bound of an integer expression."""
        e = to_expr(expr)
        if is_index_dtype(e.dtype):
            return ConstIntBound(*self._bound(self._lin(e)))
        if _dt.is_bool(e.dtype):
            s = self._simp(e)
            if isinstance(s, IntImm):
                return ConstIntBound(s.value, s.value)
            return ConstIntBound(0, 1)
        return ConstIntBound(NEG_INF, POS_INF)

    def modular_set(self, expr) -> ModularSet:
        """The set ``coeff*k + base`` that ``expr`` lies in."""
        e = to_expr(expr)
        if not is_index_dtype(e.dtype):
            return ModularSet(1, 0)
        p = self._lin(e)
        g = p.coeff_gcd()
        g = abs(g)
        if g == 0:
            return ModularSet(0, p.const)
        return ModularSet(g, p.const % g)

    def can_prove(self, cond) -> bool:
        """True when ``cond`` is provably true in the current context."""
        r = self._simp(to_expr(cond))
        return isinstance(r, IntImm) and r.value != 0

    def can_prove_equal(self, a, b) -> bool:
        """True when ``a - b`` simplifies to zero."""
        a, b = _op.match_types(to_expr(a), to_expr(b))
        if is_index_dtype(a.dtype):
            d = self._lin(a).sub(self._lin(b))
            return d.is_const and d.const == 0
        sa, sb = self._simp(a), self._simp(b)
        return self._key(sa) == self._key(sb)

    def bind(self, var, value, allow_override: bool = False) -> None:
        """Bind ``var`` to a Range (its domain) or to an expression (substituted)."""
        if isinstance(var, IterVar):
            var = var.var
        if not isinstance(var, Var):
            raise TypeError(f"Analyzer.bind expects a Var, got {type(var).__name__}")
        if isinstance(value, IterVar):
            value = value.var
        self._changing(var)
        self._subst.pop(var, None)
        self._bind_facts.pop(var, None)
        self._all_facts = None
        if isinstance(value, Range):
            self._bind_range(var, value)
        else:
            self._subst[var] = self._simp(to_expr(value))
        self._changing(var)

    def update(self, var, info: ConstIntBound, override: bool = False) -> None:
        """Set (``override``) or tighten the constant bound of ``var``."""
        if isinstance(var, IterVar):
            var = var.var
        self._changing(var)
        new = (info.min_value, info.max_value)
        old = self._var_bound.get(var)
        self._var_bound[var] = new if (override or old is None) else _b.intersect(old, new)

    @contextmanager
    def constraint_scope(self, constraint) -> Iterator[None]:
        """Assume ``constraint`` (e.g. ``i < n``) while inside the ``with`` block."""
        saved = self._push()
        try:
            self._add_constraint(to_expr(constraint))
            yield
        finally:
            self._pop(saved)

    def _simp(self, e: PrimExpr) -> PrimExpr:
        ent = self._memo.get(id(e))
        if ent is not None and ent[0] is e:
            return ent[1]
        fn = _DISPATCH.get(type(e))
        r = fn(self, e) if fn is not None else self._simp_generic(e)
        if self._truths and r.dtype == "bool" and type(r) is not IntImm:
            v = self._truths.get(self._key(r))
            if v is not None:
                fire("context.known_fact")
                r = as_bool(v)
        self._memo[id(e)] = (e, r)
        if r is not e:
            self._memo[id(r)] = (r, r)
        return r


_DISPATCH = {
    IntImm: Simplifier._simp_leaf, FloatImm: Simplifier._simp_leaf,
    StringImm: Simplifier._simp_leaf, Var: Simplifier._simp_var, SizeVar: Simplifier._simp_var,
    And: Simplifier._simp_and, Or: Simplifier._simp_or, Not: Simplifier._simp_not,
    Select: Simplifier._simp_select, Call: Simplifier._simp_call, Cast: Simplifier._simp_cast,
}
for _c in INT_ARITH:
    _DISPATCH[_c] = Simplifier._simp_arith
for _c in CMP_SET:
    _DISPATCH[_c] = Simplifier._simp_cmp
