"""The arithmetic analyzer: simplification, constant bounds, modular sets and proofs.

One simplifier serves ``simplify``, ``rewrite_simplify`` and ``canonical_simplify``: integer
index expressions are turned into canonical polynomials (:class:`~.poly.Poly`) whose atoms are
variables and canonical ``floordiv``/``floormod``/``min``/``max``/… nodes; division and modulo
are resolved with constant bounds where they allow it (``(x*8 + y) // 8 -> x`` for
``0 <= y < 8``), and comparisons are decided from bounds and from the facts of the enclosing
``constraint_scope`` / symbolic loop ranges. Floating point expressions are only constant
folded. Results are memoized per context: binding a variable the cache has already looked at,
or entering a constraint scope, starts a fresh cache.
"""
from __future__ import annotations

import itertools
import sys
from contextlib import contextmanager
from math import gcd
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ..ir import dtype as _dt
from ..tir import op as _op
from ..tir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
    Call,
    Cast,
    Div,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    IterVar,
    Max,
    Min,
    Mod,
    Mul,
    Node,
    Not,
    Or,
    PrimExpr,
    Ramp,
    Range,
    Select,
    SizeVar,
    StringImm,
    Sub,
    Var,
)
from ..tir.functor import node_fields
from . import bound as _b
from .bound import NEG_INF, POS_INF, ConstIntBound, Interval, is_finite
from .poly import Poly, mono_key

_INT_ARITH = (Add, Sub, Mul, FloorDiv, FloorMod, Div, Mod, Min, Max)
_INT_ARITH_SET = frozenset(_INT_ARITH)
_CMP_SET = frozenset((EQ, NE, LT, LE, GT, GE))
_VARS = (Var, SizeVar)
_INDEX_CACHE: Dict[str, bool] = {}
_CACHE_LIMIT = 200_000   # memo entries before a long-lived analyzer starts afresh
_RECURSION_LIMIT = 20_000
_INTERN_IDS = itertools.count()
_MAX_BRANCH_DEPTH = 3    # nested if_then_else branches simplified under their condition


def is_index_dtype(dtype: str) -> bool:
    """Scalar int/uint (not bool): the dtypes the canonical form handles."""
    r = _INDEX_CACHE.get(dtype)
    if r is None:
        r = (_dt.lanes(dtype) == 1 and _dt.is_integral(dtype) and not _dt.is_bool(dtype))
        _INDEX_CACHE[dtype] = r
    return r


_TRUE = IntImm("bool", 1)
_FALSE = IntImm("bool", 0)


def _bool(v: bool) -> IntImm:
    return _TRUE if v else _FALSE


class ModularSet:
    """``{coeff * k + base}``: what is known about an integer expression modulo ``coeff``
    (``coeff == 0`` means the exact value ``base``)."""

    __slots__ = ("coeff", "base")

    def __init__(self, coeff: int, base: int):
        self.coeff = int(coeff)
        self.base = int(base)

    def __repr__(self) -> str:
        return f"ModularSet(coeff={self.coeff}, base={self.base})"


def _tdiv_int(x: int, c: int) -> int:
    q = abs(x) // abs(c)
    return q if (x >= 0) == (c > 0) else -q


class Analyzer:
    """Arithmetic analyzer (``tvm.arith.Analyzer``)."""

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
        self._skeys: Dict[int, Tuple[Any, Any]] = {}   # structural keys: context-free
        self._intern: Dict[tuple, Any] = {}
        self._new_caches()

    # ================================================================== public API
    def simplify(self, expr, steps: int = 2) -> PrimExpr:
        """Simplify ``expr`` under what the analyzer knows (ranges, constraints)."""
        if len(self._lin_memo) > _CACHE_LIMIT or len(self._memo) > _CACHE_LIMIT:
            self._new_caches()
        if len(self._skeys) > _CACHE_LIMIT:
            self._skeys, self._intern = {}, {}   # fresh ids never collide with old ones
        return self._simp(_to_expr(expr))

    def rewrite_simplify(self, expr) -> PrimExpr:
        """Same as :meth:`simplify` (one simplifier does both jobs)."""
        return self._simp(_to_expr(expr))

    def canonical_simplify(self, expr) -> PrimExpr:
        """Same as :meth:`simplify` (one simplifier does both jobs)."""
        return self._simp(_to_expr(expr))

    def const_int_bound(self, expr) -> ConstIntBound:
        """Constant lower/upper bound of an integer expression."""
        e = _to_expr(expr)
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
        e = _to_expr(expr)
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
        r = self._simp(_to_expr(cond))
        return isinstance(r, IntImm) and r.value != 0

    def can_prove_equal(self, a, b) -> bool:
        """True when ``a - b`` simplifies to zero."""
        a, b = _op.match_types(_to_expr(a), _to_expr(b))
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
            self._subst[var] = self._simp(_to_expr(value))
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
            self._add_constraint(_to_expr(constraint))
            yield
        finally:
            self._pop(saved)

    def detect_linear_equation(self, expr, var_list) -> List[PrimExpr]:
        """Coefficients ``[c0, ..., cn-1, base]`` with ``expr == sum(ci * vi) + base`` where
        no ``ci`` mentions a variable of ``var_list``; ``[]`` when ``expr`` is not linear."""
        e = _to_expr(expr)
        vs = [v.var if isinstance(v, IterVar) else v for v in var_list]
        if not is_index_dtype(e.dtype):
            return []
        p = self._lin(e)
        coeffs = [Poly.constant(p.dtype, 0) for _ in vs]
        base = Poly.constant(p.dtype, p.const)
        targets = {("v", v): n for n, v in enumerate(vs)}
        for _m, (cf, atoms, keys) in p.terms.items():
            hits = [n for n, k in enumerate(keys) if k in targets]
            if len(hits) > 1:
                return []
            term = Poly.constant(p.dtype, cf)
            for n, (a, k) in enumerate(zip(atoms, keys)):
                if n not in hits:
                    term = term.mul(Poly.atom(p.dtype, a, k))
            if hits:
                coeffs[targets[keys[hits[0]]]] = coeffs[targets[keys[hits[0]]]].add(term)
            else:
                base = base.add(term)
            for n, a in enumerate(atoms):
                if n not in hits and not isinstance(a, _VARS) and _mentions(a, vs):
                    return []
        return [self._expr(cp) for cp in coeffs] + [self._expr(base)]

    def int_set(self, expr, dom_map):
        """The interval ``expr`` covers when the variables of ``dom_map`` range over their sets."""
        from .int_set import eval_set

        return eval_set(expr, dom_map, self)

    # ================================================================== context
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
        mn, ext = self._simp(_to_expr(rng.min)), self._simp(_to_expr(rng.extent))
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
            if len(atoms) != 1 or not isinstance(atoms[0], _VARS) or atoms[0] in self._subst:
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

    # ================================================================== keys
    def _key(self, e) -> Any:
        """A hashable key equal for expressions this analyzer considers identical: the
        canonical polynomial for integer arithmetic, the structure otherwise."""
        t = type(e)
        if t in _INT_ARITH_SET and is_index_dtype(e.dtype):
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

    # ================================================================== canonical form
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
        elif t is Add:
            p = self._merge_divmod(self._lin(e.a).add(self._lin(e.b)))
        elif t is Sub:
            p = self._merge_divmod(self._lin(e.a).sub(self._lin(e.b)))
        elif t is Mul:
            pa, pb = self._lin(e.a), self._lin(e.b)
            p = pa.mul(pb)
            if pa.terms and pb.terms:
                p = self._merge_divmod(p)
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
            elif s is not e and (ts in _INT_ARITH_SET or ts is Var or ts is SizeVar):
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
            return self._lin(s)
        b = self._var_bound.get(v)
        if b is not None and b[0] == b[1]:
            return Poly.constant(v.dtype, b[0])
        return Poly.atom(v.dtype, v, ("v", v))

    def _lin_cast(self, e: Cast) -> Poly:
        """Push an integer cast into the sum when the value fits the target type."""
        pv = self._lin(e.value)
        dt = e.dtype
        if pv.is_const:
            return Poly.constant(dt, _op.cast(dt, IntImm(e.value.dtype, pv.const)).value)
        lo, hi = self._bound(pv)
        tlo, thi = _b.dtype_range(dt)
        if not (tlo <= lo and hi <= thi):
            s = Cast(dt, self._expr(pv))
            return Poly.atom(dt, s, self._key(s))
        out = Poly.constant(dt, pv.const)
        for c, atoms, _ in pv.terms.values():
            term = Poly.constant(dt, c)
            for a in atoms:
                ca = Cast(dt, a)
                term = term.mul(Poly.atom(dt, ca, self._key(ca)))
            out = out.add(term)
        return out

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
            return Poly(p.dtype, terms, p.const).add(mod)
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
                return self._merge_divmod(merged)
        return self._div_to_mod(p) if len(p.terms) >= 2 else p

    # ------------------------------------------------------------------ division
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
                return Poly.constant(pa.dtype, pa.const // c)
            if c == 1:
                return pa
            if c < 0:
                return self._atom(FloorDiv, pa, pb)
            return self._fdiv_const(pa, c)
        qr = self._split_symbolic(pa, pb)
        if qr is not None:
            q, rem = qr
            if rem.is_const and rem.const == 0:
                return q
            if self._in_zero_to(rem, pb):
                return q
        elif self._in_zero_to(pa, pb):
            return Poly.constant(pa.dtype, 0)
        return self._atom(FloorDiv, pa, pb)

    def _fdiv_const(self, pa: Poly, c: int) -> Poly:
        dt = pa.dtype
        if pa.is_const:
            return Poly.constant(dt, pa.const // c)
        g = gcd(gcd(pa.coeff_gcd(), pa.const), c)
        if g > 1:
            pa, c = pa.exact_div(g), c // g
            if c == 1:
                return pa
        q, r = self._split_terms(pa, c)
        k = pa.const
        if not r.terms:
            return q.add_const(k // c)
        lo, hi = self._bound(r)
        if is_finite(lo) and is_finite(hi) and (lo + k) // c == (hi + k) // c:
            return q.add_const((lo + k) // c)
        split = self._gcd_split(r, k, c)
        if split is not None:
            a, _, g2 = split
            return q.add(self._fdiv_const(a, c // g2))
        inner = r.single_atom()
        if inner is not None and type(inner) is FloorDiv and type(inner.b) is IntImm \
                and inner.b.value > 0:
            c1 = inner.b.value
            return q.add(self._fdiv_const(self._lin(inner.a).add_const(k * c1), c1 * c))
        atom = self._atom(FloorDiv, r.add_const(k % c), Poly.constant(dt, c))
        return q.add(atom).add_const(k // c)

    def _fmod(self, pa: Poly, pb: Poly) -> Poly:
        if pb.is_const:
            c = pb.const
            if c == 0:
                return self._atom(FloorMod, pa, pb)
            if pa.is_const:
                return Poly.constant(pa.dtype, pa.const % c)
            if c == 1 or c == -1:
                return Poly.constant(pa.dtype, 0)
            if c < 0:
                return self._atom(FloorMod, pa, pb)
            return self._fmod_const(pa, c)
        qr = self._split_symbolic(pa, pb)
        if qr is not None:
            _, rem = qr
            if rem.is_const and rem.const == 0:
                return rem
            if self._in_zero_to(rem, pb):
                return rem
            return self._atom(FloorMod, rem, pb)
        if self._in_zero_to(pa, pb):
            return pa
        return self._atom(FloorMod, pa, pb)

    def _fmod_const(self, pa: Poly, c: int) -> Poly:
        dt = pa.dtype
        if pa.is_const:
            return Poly.constant(dt, pa.const % c)
        g = gcd(gcd(pa.coeff_gcd(), pa.const), c)
        if g > 1:
            if c == g:
                return Poly.constant(dt, 0)
            return self._fmod_const(pa.exact_div(g), c // g).scale(g)
        _, r = self._split_terms(pa, c)
        k = pa.const % c
        if not r.terms:
            return Poly.constant(dt, k)
        lo, hi = self._bound(r)
        if is_finite(lo) and is_finite(hi) and (lo + k) // c == (hi + k) // c:
            return r.add_const(k - c * ((lo + k) // c))
        split = self._gcd_split(r, k, c)
        if split is not None:
            a, b, g2 = split
            return self._fmod_const(a, c // g2).scale(g2).add(b)
        inner = r.single_atom()
        if inner is not None and type(inner) is FloorMod and type(inner.b) is IntImm \
                and inner.b.value > 0 and inner.b.value % c == 0:
            return self._fmod_const(self._lin(inner.a).add_const(k), c)
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
                return Poly.constant(pa.dtype, _tdiv_int(pa.const, c))
            if c == 1:
                return pa
            if pa.const % c == 0 and pa.coeff_gcd() % c == 0:
                return pa.exact_div(c)
            if c > 0 and self._bound(pa)[0] >= 0:
                return self._fdiv_const(pa, c)
        elif not pb.is_const and self._bound(pa)[0] >= 0 and self._bound(pb)[0] > 0:
            return self._fdiv(pa, pb)
        return self._atom(Div, pa, pb)

    def _tmod(self, pa: Poly, pb: Poly) -> Poly:
        if pb.is_const and pb.const != 0:
            c = pb.const
            if pa.is_const:
                return Poly.constant(pa.dtype, pa.const - c * _tdiv_int(pa.const, c))
            if c in (1, -1) or (pa.const % c == 0 and pa.coeff_gcd() % c == 0):
                return Poly.constant(pa.dtype, 0)
            if c > 0 and self._bound(pa)[0] >= 0:
                return self._fmod_const(pa, c)
        elif not pb.is_const and self._bound(pa)[0] >= 0 and self._bound(pb)[0] > 0:
            return self._fmod(pa, pb)
        return self._atom(Mod, pa, pb)

    def _minmax(self, cls, pa: Poly, pb: Poly) -> Poly:
        d = pa.sub(pb)
        le = self._prove_le0(d)
        if le:
            return pa if cls is Min else pb
        if self._prove_le0(d.scale(-1)):
            return pb if cls is Min else pa
        if pb.is_const:
            inner = pa.single_atom()
            if inner is not None and type(inner) is cls and type(inner.b) is IntImm:
                pick = min if cls is Min else max
                return self._minmax(cls, self._lin(inner.a),
                                    Poly.constant(pa.dtype, pick(inner.b.value, pb.const)))
        return self._atom(cls, pa, pb, commutative=True)

    # ------------------------------------------------------------------ bounds & proofs
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
        elif t in _INT_ARITH_SET and is_index_dtype(e.dtype):
            ba, bb = self._bound(self._lin(e.a)), self._bound(self._lin(e.b))
            if t is FloorDiv:
                b = _b.floordiv(ba, bb)
            elif t is FloorMod:
                b = _b.floormod(ba, bb)
            elif t is Div:
                b = _b.truncdiv(ba, bb)
            elif t is Mod:
                b = _b.truncmod(ba, bb)
            elif t is Min:
                b = _b.min_(ba, bb)
            elif t is Max:
                b = _b.max_(ba, bb)
            else:
                b = self._bound(self._lin(e))
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

    # ================================================================== simplifier
    def _simp(self, e: PrimExpr) -> PrimExpr:
        ent = self._memo.get(id(e))
        if ent is not None and ent[0] is e:
            return ent[1]
        fn = _DISPATCH.get(type(e))
        r = fn(self, e) if fn is not None else self._simp_generic(e)
        if self._truths and r.dtype == "bool" and type(r) is not IntImm:
            v = self._truths.get(self._key(r))
            if v is not None:
                r = _bool(v)
        self._memo[id(e)] = (e, r)
        if r is not e:
            self._memo[id(r)] = (r, r)
        return r

    def _simp_leaf(self, e):
        return e

    def _simp_var(self, e):
        if is_index_dtype(e.dtype):
            return self._expr(self._lin(e))
        s = self._subst.get(e)
        if s is not None:
            self._observed.add(e)
            return s
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
            return folded
        if sa is e.a and sb is e.b:
            return e
        return t(sa, sb)

    def _simp_vector(self, t, a, b) -> Optional[PrimExpr]:
        ta, tb = type(a), type(b)
        if ta is Broadcast and tb is Broadcast and a.lanes == b.lanes:
            return Broadcast(self._simp(t(a.value, b.value)), a.lanes)
        if t is Add or t is Sub:
            if ta is Ramp and tb is Broadcast:
                return Ramp(self._simp(t(a.base, b.value)), a.stride, a.lanes)
            if ta is Broadcast and tb is Ramp and t is Add:
                return Ramp(self._simp(Add(a.value, b.base)), b.stride, b.lanes)
            if ta is Ramp and tb is Ramp and a.lanes == b.lanes:
                return Ramp(self._simp(t(a.base, b.base)), self._simp(t(a.stride, b.stride)),
                            a.lanes)
        elif t is Mul:
            if ta is Broadcast and tb is Ramp:
                a, b, ta, tb = b, a, tb, ta
            if ta is Ramp and tb is Broadcast:
                return Ramp(self._simp(Mul(a.base, b.value)), self._simp(Mul(a.stride, b.value)),
                            a.lanes)
        elif (t is FloorDiv or t is FloorMod) and ta is Ramp and tb is Broadcast \
                and type(b.value) is IntImm and b.value.value > 0 and type(a.stride) is IntImm \
                and a.stride.value >= 0 and is_index_dtype(a.base.dtype):
            c, s = b.value.value, a.stride.value
            pm = self._fmod(self._lin(a.base), Poly.constant(a.base.dtype, c))
            if self._bound(pm)[1] + s * (a.lanes - 1) < c:
                if t is FloorDiv:
                    return Broadcast(self._simp(FloorDiv(a.base, b.value)), a.lanes)
                return Ramp(self._expr(pm), a.stride, a.lanes)
        return None

    def _simp_cmp(self, e):
        t = type(e)
        a, b = e.a, e.b
        if not is_index_dtype(a.dtype):
            sa, sb = self._simp(a), self._simp(b)
            if isinstance(sa, (IntImm, FloatImm)) and isinstance(sb, (IntImm, FloatImm)):
                return _op._cmp(t, sa, sb)
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
                return _TRUE
            if self._prove_le0(d.scale(-1)):
                return _FALSE
        elif t is LE:
            if self._prove_le0(d):
                return _TRUE
            if self._prove_le0(d.scale(-1).add_const(1)):
                return _FALSE
        else:
            if d.is_const:
                return _bool((d.const == 0) == (t is EQ))
            g = d.coeff_gcd()
            if (g and d.const % g != 0) or self._prove_le0(d.add_const(1)) \
                    or self._prove_le0(d.scale(-1).add_const(1)):
                return _bool(t is NE)
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
                n = n.exact_div(g)
                if t is EQ or t is NE:
                    if k % g:
                        return _bool(t is NE)
                    k //= g
                elif left_const:   # k < n*g  /  k <= n*g
                    k = k // g if t is LT else -((-k) // g)
                else:              # n*g < k  /  n*g <= k
                    k = (k - 1) // g + 1 if t is LT else k // g
            kc = Poly.constant(dt, k)
            pa, pb = (kc, n) if left_const else (n, kc)
        else:
            common = [m for m, tm in pa.terms.items()
                      if m in pb.terms and pb.terms[m][0] == tm[0]]
            ta = {m: tm for m, tm in pa.terms.items() if m not in common}
            tb = {m: tm for m, tm in pb.terms.items() if m not in common}
            k = pb.const - pa.const
            if not ta or not tb:
                return self._normalize_cmp(t, Poly(dt, ta, 0), Poly(dt, tb, k))
            pa, pb = Poly(dt, ta, 0), Poly(dt, tb, k)
        return t(self._expr(pa), self._expr(pb))

    def _simp_and(self, e):
        return self._simp_logic(e, True)

    def _simp_or(self, e):
        return self._simp_logic(e, False)

    def _simp_logic(self, e, is_and: bool):
        """``a and b`` / ``a or b``: constants, duplicates, complements, and each side
        decided under the other (``x < y and y <= x`` is false, ``i < 3 and i < 4`` is
        ``i < 3``)."""
        absorb, neutral = (_FALSE, _TRUE) if is_and else (_TRUE, _FALSE)
        sa = self._simp(e.a)
        if type(sa) is IntImm and bool(sa.value) == bool(absorb.value):
            return absorb
        sb = self._simp(e.b)
        if type(sa) is IntImm:
            return sb
        if type(sb) is IntImm:
            return absorb if bool(sb.value) == bool(absorb.value) else sa
        ka, kb = self._key(sa), self._key(sb)
        if ka == kb:
            return sa
        if (type(sa) is Not and self._key(sa.a) == kb) or \
                (type(sb) is Not and self._key(sb.a) == ka):
            return absorb
        # only between two comparisons: deciding a whole sub-formula under the other side
        # would re-simplify left-nested chains exponentially often
        both = self._is_fact(sa) and self._is_fact(sb)
        for first, second, keep in ((sa, sb, sa), (sb, sa, sb)) if both else ():
            with self.constraint_scope(first if is_and else Not(first)):
                d = self._simp(second)
            if type(d) is IntImm:
                if bool(d.value) == bool(neutral.value):
                    return keep
                return absorb
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
            return IntImm(sa.dtype, 1 - sa.value)
        if t is Not:
            return sa.a
        if t is EQ:
            return self._simp(NE(sa.a, sa.b))
        if t is NE:
            return self._simp(EQ(sa.a, sa.b))
        if t in (LT, LE, GT, GE) and _dt.is_integral(_dt.element(sa.a.dtype)):
            flip = {LT: LE, LE: LT, GT: GE, GE: GT}[t]
            return self._simp(flip(sa.b, sa.a))
        if sa is e.a:
            return e
        return Not(sa)

    def _simp_select(self, e):
        c = self._simp(e.condition)
        if type(c) is IntImm:
            return self._simp(e.true_value if c.value else e.false_value)
        # Select evaluates both operands, so they are simplified without assuming ``c``
        # (that could move a division by zero into the unselected operand)
        t, f = self._simp(e.true_value), self._simp(e.false_value)
        if self._key(t) == self._key(f):
            return t
        if c is e.condition and t is e.true_value and f is e.false_value:
            return e
        return Select(c, t, f)

    def _branches(self, c, t, f):
        # each scope starts a fresh memo, so nested scopes over shared sub-expressions cost
        # 2**depth: past a few levels the branches are simplified without the condition
        if _dt.lanes(c.dtype) != 1 or self._branch_depth >= _MAX_BRANCH_DEPTH:
            return self._simp(t), self._simp(f)
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
                return self._simp(e.args[1] if c.value else e.args[2])
            t, f = self._branches(c, e.args[1], e.args[2])
            if self._skey(t) == self._skey(f) and _is_pure(t):
                return t
            return Call(e.dtype, e.op, (c, t, f))
        if e.op == "likely" and len(e.args) == 1:
            c = self._simp(e.args[0])
            if type(c) is IntImm:
                return c
            return e if c is e.args[0] else Call(e.dtype, e.op, (c,))
        return self._simp_generic(e)

    def _simp_cast(self, e):
        if is_index_dtype(e.dtype) and is_index_dtype(e.value.dtype):
            return self._expr(self._lin(e))
        v = self._simp(e.value)
        if type(v) is IntImm or type(v) is FloatImm:
            return _op.cast(e.dtype, v)
        if v.dtype == e.dtype:
            return v
        return e if v is e.value else Cast(e.dtype, v)

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


def _mentions(e, vs) -> bool:
    from ..tir.functor import collect_vars

    found = collect_vars(e)
    return any(v in found for v in vs)


def _is_pure(e) -> bool:
    found = []

    def f(x):
        if isinstance(x, Call) and x.op in ("call_extern", "call_packed", "call_intrin"):
            found.append(x)

    from ..tir.functor import post_order_visit

    post_order_visit(e, f)
    return not found


_DISPATCH = {
    IntImm: Analyzer._simp_leaf, FloatImm: Analyzer._simp_leaf, StringImm: Analyzer._simp_leaf,
    Var: Analyzer._simp_var, SizeVar: Analyzer._simp_var,
    And: Analyzer._simp_and, Or: Analyzer._simp_or, Not: Analyzer._simp_not,
    Select: Analyzer._simp_select, Call: Analyzer._simp_call, Cast: Analyzer._simp_cast,
}
for _c in _INT_ARITH:
    _DISPATCH[_c] = Analyzer._simp_arith
for _c in _CMP_SET:
    _DISPATCH[_c] = Analyzer._simp_cmp


def _to_expr(x) -> PrimExpr:
    if isinstance(x, IterVar):
        return x.var
    if isinstance(x, PrimExpr):
        return x
    return _op.convert(x)
