"""The analyzer's context: variable bounds and bindings, constraint facts, the memo tables
and how binding or entering a constraint scope invalidates them."""
from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Tuple

from ..tir import op as _op
from ..tir.expr import EQ, LE, LT, And, Call, IntImm, Not, PrimExpr, Range, Var
from . import bound as _b
from .bound import NEG_INF, POS_INF, Interval, is_finite
from .common import VARS, is_index_dtype, to_expr
from .poly import Poly

_RECURSION_LIMIT = 20_000


class ContextMixin:
    """State of an analyzer and the facts it knows (no rewrites; ``context.known_fact`` fires in
    :meth:`~.simplifier.Simplifier._simp`)."""

    def __init__(self):
        if sys.getrecursionlimit() < _RECURSION_LIMIT:  # deep (long unrolled) expressions
            sys.setrecursionlimit(_RECURSION_LIMIT)
        self._var_bound: Dict[Var, Interval] = {}
        self._subst: Dict[Var, PrimExpr] = {}
        self._bind_facts: Dict[Var, List[Poly]] = {}
        self._facts: List[Poly] = []          # each fact: poly <= 0
        self._truths: Dict[Any, bool] = {}    # conditions known true/false, by key
        self._busy: set = set()                # ids of nodes being linearized
        self._branch_depth = 0
        self._branch_budget = 0                # scoped branch pairs left in this call
        self._skeys: Dict[int, Tuple[Any, Any]] = {}   # structural keys: context-free
        self._intern: Dict[tuple, Any] = {}
        self._new_caches()

    def _new_caches(self) -> None:
        self._memo: Dict[int, Tuple[PrimExpr, PrimExpr]] = {}
        self._lin_memo: Dict[int, Tuple[PrimExpr, Poly]] = {}
        self._bnd: Dict[int, Tuple[PrimExpr, Interval]] = {}
        self._keys: Dict[int, Tuple[PrimExpr, Any]] = {}
        self._observed: set = set()
        self._all_facts: Optional[List[Poly]] = None

    def _changing(self, var: Var) -> None:
        if var in self._observed:
            self._new_caches()

    def _push(self):
        saved = (self._var_bound, self._subst, self._bind_facts, self._facts, self._truths,
                 self._memo, self._lin_memo, self._bnd, self._keys, self._observed,
                 self._all_facts)
        self._var_bound = dict(self._var_bound)
        self._subst = dict(self._subst)
        self._bind_facts = dict(self._bind_facts)
        self._facts = list(self._facts)
        self._truths = dict(self._truths)
        self._new_caches()
        return saved

    def _pop(self, saved) -> None:
        (self._var_bound, self._subst, self._bind_facts, self._facts, self._truths,
         self._memo, self._lin_memo, self._bnd, self._keys, self._observed,
         self._all_facts) = saved

    def _facts_all(self) -> List[Poly]:
        f = self._all_facts
        if f is None:
            f = list(self._facts)
            for extra in self._bind_facts.values():
                f.extend(extra)
            self._all_facts = f
        return f

    def _bind_range(self, var: Var, rng: Range) -> None:
        mn, ext = self._simp(to_expr(rng.min)), self._simp(to_expr(rng.extent))
        if not is_index_dtype(var.dtype):
            return
        pmin = self._lin(_op.cast(var.dtype, mn)) if mn.dtype != var.dtype else self._lin(mn)
        pext = self._lin(_op.cast(var.dtype, ext)) if ext.dtype != var.dtype else self._lin(ext)
        pmax = pmin.add(pext).add_const(-1)
        lo, hi = self._bound(pmin)[0], self._bound(pmax)[1]
        self._var_bound[var] = (lo, hi)
        if not (pmin.is_const and pmax.is_const):
            v = Poly.atom(var.dtype, var, ("v", var))
            self._bind_facts[var] = [pmin.sub(v), v.sub(pmax)]
            self._all_facts = None

    def _add_constraint(self, cond: PrimExpr) -> None:
        c = self._simp(cond)
        if isinstance(c, IntImm):
            return
        lits: List[PrimExpr] = []
        stack = [c]
        while stack:
            x = stack.pop()
            if isinstance(x, Call) and x.op == "likely":
                x = x.args[0]
            if isinstance(x, And):
                stack.extend((x.a, x.b))
            else:
                lits.append(x)
        new_facts: List[Poly] = []
        for lit in lits:
            if isinstance(lit, Not):
                self._truths[self._key(lit.a)] = False
                continue
            self._truths[self._key(lit)] = True
            t = type(lit)
            if t in (LT, LE, EQ) and is_index_dtype(lit.a.dtype):
                d = self._lin(lit.a).sub(self._lin(lit.b))
                if t is LT:
                    new_facts.append(d.add_const(1))
                else:
                    new_facts.append(d)
                    if t is EQ:
                        new_facts.append(d.scale(-1))
        if not new_facts:
            self._new_caches()
            return
        self._facts.extend(new_facts)
        self._new_caches()
        for f in new_facts:
            self._derive_bounds(f)
        self._new_caches()

    def _derive_bounds(self, f: Poly) -> None:
        """From ``f <= 0`` tighten the bound of each variable term of ``f``."""
        items = list(f.terms.items())
        for i, (_m, (a, atoms, _)) in enumerate(items):
            if len(atoms) != 1 or not isinstance(atoms[0], VARS) or atoms[0] in self._subst:
                continue
            v = atoms[0]
            rest = Poly(f.dtype, {k: t for j, (k, t) in enumerate(items) if j != i}, f.const)
            lo_rest = self._bound(rest)[0]
            if not is_finite(lo_rest):
                continue
            # a*v <= -lo_rest
            if a > 0:
                new = (NEG_INF, (-lo_rest) // a)
            else:
                new = (-(lo_rest // a), POS_INF)   # v >= ceil(lo_rest / -a)
            old = self._var_bound.get(v, _b.dtype_range(v.dtype))
            self._var_bound[v] = _b.intersect(old, new)
