"""Integer sets and interval evaluation (``tvm.arith.IntSet``, ``eval_set``, region relaxing).

An :class:`IntervalSet` is ``[min_value, max_value]`` with symbolic (PrimExpr) ends; an
unbounded end is the special variable :data:`pos_inf` / :data:`neg_inf`. :func:`eval_set`
evaluates an expression over variable domains by interval arithmetic on its *simplified*
canonical form, with the domains known to the simplifier, so ``(i*8 + j) // 8`` with
``j in [0, 8)`` is exactly the set of ``i``.
"""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..ir import dtype as _dt
from ..ir.structural import structural_equal
from ..tir import op as _op
from ..tir.expr import FloorDiv, FloorMod, IntImm, IterVar, Max, Min, PrimExpr, Range, SizeVar, Var
from ..tir.functor import collect_vars, post_order_visit
from .bound import NEG_INF, POS_INF, ConstIntBound, is_finite
from .common import is_index_dtype, to_expr
from .poly import Poly
from .simplifier import Simplifier

pos_inf = Var("pos_inf", "handle")
neg_inf = Var("neg_inf", "handle")


def is_pos_inf(e) -> bool:
    return e is pos_inf


def is_neg_inf(e) -> bool:
    return e is neg_inf


class IntSet:
    """Base of integer sets."""

    __slots__ = ()

    @staticmethod
    def single_point(point) -> "IntervalSet":
        """The set holding exactly ``point``."""
        p = to_expr(point)
        return IntervalSet(p, p)

    @staticmethod
    def from_range(rng: Range) -> "IntervalSet":
        """``[rng.min, rng.min + rng.extent - 1]``."""
        if not isinstance(rng, Range):
            raise TypeError(f"IntSet.from_range expects a Range, got {type(rng).__name__}")
        ana = Simplifier()
        mn = ana.simplify(rng.min)
        if isinstance(rng.extent, IntImm) and rng.extent.value == 1:
            return IntervalSet(mn, mn)
        return IntervalSet(mn, ana.simplify(_op.sub(_op.add(rng.min, rng.extent), 1)))

    @staticmethod
    def interval(min_value, max_value) -> "IntervalSet":
        return IntervalSet(min_value, max_value)

    @staticmethod
    def everything() -> "IntervalSet":
        return IntervalSet(neg_inf, pos_inf)


class IntervalSet(IntSet):
    """The closed interval ``[min_value, max_value]`` (ends may be ``neg_inf``/``pos_inf``)."""

    __slots__ = ("min_value", "max_value")

    def __init__(self, min_value, max_value):
        self.min_value = to_expr(min_value)
        self.max_value = to_expr(max_value)

    def __repr__(self) -> str:
        def show(e):
            if e is pos_inf:
                return "+inf"
            if e is neg_inf:
                return "-inf"
            if isinstance(e, IntImm):
                return str(e.value)
            try:
                return repr(e)
            except Exception:  # the printer may not be available
                return type(e).__name__
        return f"IntervalSet[{show(self.min_value)}, {show(self.max_value)}]"

    def has_lower_bound(self) -> bool:
        return self.min_value is not neg_inf

    def has_upper_bound(self) -> bool:
        return self.max_value is not pos_inf

    def is_everything(self) -> bool:
        return self.min_value is neg_inf and self.max_value is pos_inf

    def is_nothing(self) -> bool:
        a, b = self.min_value, self.max_value
        return isinstance(a, IntImm) and isinstance(b, IntImm) and a.value > b.value

    def is_single_point(self) -> bool:
        a, b = self.min_value, self.max_value
        if a is b:
            return a is not pos_inf and a is not neg_inf
        if a is pos_inf or a is neg_inf or b is pos_inf or b is neg_inf:
            return False
        return structural_equal(a, b, map_free_vars=False)

    def point_value(self) -> PrimExpr:
        if not self.is_single_point():
            raise ValueError("the set is not a single point")
        return self.min_value

    def to_range(self, analyzer: Optional[Simplifier] = None) -> Range:
        """``Range(min, max - min + 1)``; raises ValueError when unbounded."""
        if not (self.has_lower_bound() and self.has_upper_bound()):
            raise ValueError(f"cannot make a Range of the unbounded set {self!r}")
        ana = analyzer or Simplifier()
        mn = self.min_value
        return Range(mn, ana.simplify(_op.add(_op.sub(self.max_value, mn), 1)))


DomMap = Mapping[Union[Var, IterVar], Union[IntSet, Range, PrimExpr]]


def _normalize_dom(dom_map: DomMap) -> Dict[Var, IntervalSet]:
    out: Dict[Var, IntervalSet] = {}
    for k, v in dom_map.items():
        var = k.var if isinstance(k, IterVar) else k
        if not isinstance(var, Var):
            raise TypeError(f"dom_map keys must be Vars, got {type(k).__name__}")
        if isinstance(v, IterVar):
            v = v.dom
        if isinstance(v, Range):
            v = IntSet.from_range(v)
        elif not isinstance(v, IntervalSet):
            v = IntSet.single_point(v)
        out[var] = v
    return out


class _Evaluator:
    """Interval evaluation of a canonical polynomial inside a context where the relaxed
    variables are bound to their domains."""

    def __init__(self, ana: Simplifier, sets: Dict[Var, IntervalSet]):
        self.ana = ana
        self.sets = sets
        self._deps: Dict[int, Tuple[PrimExpr, bool]] = {}  # id -> (expr, answer): keeps it alive

    def depends(self, e) -> bool:
        ent = self._deps.get(id(e))
        if ent is not None and ent[0] is e:
            return ent[1]
        r = any(v in self.sets for v in collect_vars(e))
        self._deps[id(e)] = (e, r)
        return r

    def poly(self, p: Poly) -> Tuple[Optional[Poly], Optional[Poly]]:
        lo: Optional[Poly] = Poly.constant(p.dtype, p.const)
        hi: Optional[Poly] = lo
        for c, atoms, keys in p.terms.values():
            a_lo, a_hi = self.mono(p.dtype, atoms, keys)
            if c < 0:
                a_lo, a_hi = a_hi, a_lo
            lo = None if lo is None or a_lo is None else lo.add(a_lo.scale(c))
            hi = None if hi is None or a_hi is None else hi.add(a_hi.scale(c))
        return lo, hi

    def _point(self, dtype, atoms, keys) -> Poly:
        out = Poly.constant(dtype, 1)
        for a, k in zip(atoms, keys):
            out = out.mul(Poly.atom(dtype, a, k))
        return out

    def _const(self, p: Poly):
        lo, hi = self.ana._bound(p)
        return (Poly.constant(p.dtype, lo) if is_finite(lo) else None,
                Poly.constant(p.dtype, hi) if is_finite(hi) else None)

    def mono(self, dtype, atoms, keys):
        if len(atoms) == 1:
            return self.atom(dtype, atoms[0], keys[0])
        moving = [i for i, a in enumerate(atoms) if self.depends(a)]
        if not moving:
            p = self._point(dtype, atoms, keys)
            return p, p
        if len(moving) == 1:
            i = moving[0]
            rest = self._point(dtype, atoms[:i] + atoms[i + 1:], keys[:i] + keys[i + 1:])
            lo, hi = self.atom(dtype, atoms[i], keys[i])
            if self.ana._prove_le0(rest.scale(-1)):
                return (None if lo is None else lo.mul(rest),
                        None if hi is None else hi.mul(rest))
            if self.ana._prove_le0(rest):
                return (None if hi is None else hi.mul(rest),
                        None if lo is None else lo.mul(rest))
            if lo is not None and hi is not None:  # sign unknown: both ends are candidates
                a, b = lo.mul(rest), hi.mul(rest)
                return self.ana._minmax(Min, a, b), self.ana._minmax(Max, a, b)
        return self._const(self._point(dtype, atoms, keys))

    def atom(self, dtype, a, key):
        if not self.depends(a):
            p = Poly.atom(dtype, a, key)
            return p, p
        ana = self.ana
        t = type(a)
        if (t is Var or t is SizeVar) and a in self.sets:
            s = self.sets[a]
            lo = None if s.min_value is neg_inf else ana._lin(_cast(s.min_value, dtype))
            hi = None if s.max_value is pos_inf else ana._lin(_cast(s.max_value, dtype))
            return lo, hi
        if (t is FloorDiv or t is FloorMod) and type(a.b) is IntImm and a.b.value > 0:
            c = a.b.value
            lo, hi = self.poly(ana._lin(a.a))
            if t is FloorDiv:
                return (None if lo is None else ana._fdiv_const(lo, c),
                        None if hi is None else ana._fdiv_const(hi, c))
            if lo is not None and hi is not None:
                qd = ana._fdiv_const(hi, c).sub(ana._fdiv_const(lo, c))
                if qd.is_const and qd.const == 0:
                    return ana._fmod_const(lo, c), ana._fmod_const(hi, c)
            return Poly.constant(dtype, 0), Poly.constant(dtype, c - 1)
        if t is Min or t is Max:
            lo1, hi1 = self.poly(ana._lin(a.a))
            lo2, hi2 = self.poly(ana._lin(a.b))
            if t is Min:
                lo = None if lo1 is None or lo2 is None else ana._minmax(Min, lo1, lo2)
                hi = hi2 if hi1 is None else hi1 if hi2 is None else ana._minmax(Min, hi1, hi2)
            else:
                lo = lo2 if lo1 is None else lo1 if lo2 is None else ana._minmax(Max, lo1, lo2)
                hi = None if hi1 is None or hi2 is None else ana._minmax(Max, hi1, hi2)
            return lo, hi
        return self._const(Poly.atom(dtype, a, key))


def _cast(e: PrimExpr, dtype: str) -> PrimExpr:
    return e if e.dtype == dtype else _op.cast(dtype, e)


def eval_set(expr, dom_map: DomMap, analyzer: Optional[Simplifier] = None) -> IntervalSet:
    """The interval ``expr`` covers when each variable of ``dom_map`` ranges over its set
    (a Range, an IntSet, or an expression for a single point); other variables are fixed."""
    ana = analyzer or Simplifier()
    return _eval_sets([to_expr(expr)], _normalize_dom(dom_map), ana)[0]


def _eval_sets(exprs: Sequence[PrimExpr], sets: Dict[Var, IntervalSet],
               ana: Simplifier) -> List[IntervalSet]:
    """:func:`eval_set` of each of ``exprs`` over the same domains: the domains are bound once
    and the analyzer's memo serves every expression."""
    out: List[Optional[IntervalSet]] = [None] * len(exprs)
    ends: List[Tuple[int, Optional[PrimExpr], Optional[PrimExpr]]] = []
    for k, e in enumerate(exprs):
        if not is_index_dtype(e.dtype):
            out[k] = (IntSet.single_point(ana.simplify(e))
                      if not any(v in sets for v in collect_vars(e)) else IntSet.everything())
    if any(o is None for o in out):
        saved = ana._push()
        try:
            for v, s in sets.items():
                if s.is_single_point():
                    ana.bind(v, s.min_value)
                elif s.has_lower_bound() and s.has_upper_bound():
                    ana.bind(v, Range(s.min_value,
                                      _op.add(_op.sub(s.max_value, s.min_value), 1)))
                else:
                    lo = ana.const_int_bound(s.min_value).min_value if s.has_lower_bound() \
                        else NEG_INF
                    hi = ana.const_int_bound(s.max_value).max_value if s.has_upper_bound() \
                        else POS_INF
                    ana.update(v, ConstIntBound(lo, hi), override=True)
            ev = _Evaluator(ana, sets)
            for k, e in enumerate(exprs):
                if out[k] is None:
                    lo, hi = ev.poly(ana._lin(e))
                    ends.append((k, None if lo is None else lo.to_expr(),
                                 None if hi is None else hi.to_expr()))
        finally:
            ana._pop(saved)
    for k, lo_e, hi_e in ends:
        out[k] = IntervalSet(neg_inf if lo_e is None else ana.simplify(lo_e),
                             pos_inf if hi_e is None else ana.simplify(hi_e))
    return out


def union(sets: Sequence[IntervalSet], analyzer: Optional[Simplifier] = None) -> IntervalSet:
    """The smallest interval holding every set of ``sets``."""
    return _combine(sets, analyzer, True)


def intersect(sets: Sequence[IntervalSet], analyzer: Optional[Simplifier] = None) -> IntervalSet:
    """The interval common to every set of ``sets``."""
    return _combine(sets, analyzer, False)


def _combine(sets, analyzer, is_union):
    sets = list(sets)
    if not sets:
        raise ValueError("union/intersect needs at least one set")
    ana = analyzer or Simplifier()
    lo, hi = sets[0].min_value, sets[0].max_value
    for s in sets[1:]:
        a, b = s.min_value, s.max_value
        if is_union:
            lo = neg_inf if neg_inf in (lo, a) else ana.simplify(_op._binary(Min, lo, a))
            hi = pos_inf if pos_inf in (hi, b) else ana.simplify(_op._binary(Max, hi, b))
        else:
            lo = a if lo is neg_inf else lo if a is neg_inf else \
                ana.simplify(_op._binary(Max, lo, a))
            hi = b if hi is pos_inf else hi if b is pos_inf else \
                ana.simplify(_op._binary(Min, hi, b))
    return IntervalSet(lo, hi)


def _at_dtype_limit(s: IntervalSet) -> bool:
    """An end at its dtype's limit is no bound: it only says the analysis knew nothing (e.g.
    ``floormod(x, n)`` with ``n`` of unknown sign); its extent would wrap around the dtype.
    So is an end computed from such a limit (``floordiv(x, floordiv(n + 9, 10) * 5)`` scaled
    and shifted): evaluated in the dtype, it wraps."""
    hit = []

    def limit(e) -> None:
        bits = _dt.bits(e.dtype) if isinstance(e, IntImm) else 0
        if bits >= 32 and abs(e.value) >= (1 << (bits - 1)) - 1:
            hit.append(e)

    for e in (s.min_value, s.max_value):
        if isinstance(e, PrimExpr):
            post_order_visit(e, limit)
    return bool(hit)


def relax_region(indices: Sequence, dom_map: DomMap,
                 analyzer: Optional[Simplifier] = None) -> List[Range]:
    """The region ``[min, min + extent)`` per dimension that a buffer access at ``indices``
    covers while the variables of ``dom_map`` range over their domains."""
    ana = analyzer or Simplifier()
    exprs: List[PrimExpr] = []
    for idx in indices:
        if isinstance(idx, Range):  # an access region: relax both ends
            exprs += [to_expr(idx.min), _op.sub(_op.add(idx.min, idx.extent), 1)]
        else:
            exprs.append(to_expr(idx))
    sets = iter(_eval_sets(exprs, _normalize_dom(dom_map), ana))
    out = []
    for idx in indices:
        s = union([next(sets), next(sets)], ana) if isinstance(idx, Range) else next(sets)
        if not (s.has_lower_bound() and s.has_upper_bound()) or _at_dtype_limit(s):
            raise ValueError(f"cannot bound access index #{len(out)} over the given domains")
        out.append(s.to_range(ana))
    return out
