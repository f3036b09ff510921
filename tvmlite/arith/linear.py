"""Linear forms of index expressions.

Two views of one concept: :func:`linear_form` reads ``sum(coef * atom) + const`` off the
expression's syntax (``+``, ``-``, ``*`` by an integer constant; nothing is simplified, so the
atoms are the caller's own sub-expressions), and :func:`detect_linear_equation` asks the
simplifier for the coefficients of given variables (``tvm.arith.detect_linear_equation``).
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence, Tuple

from ..tir import op as _op
from ..tir.expr import Add, Broadcast, Cast, IntImm, IterVar, Mul, PrimExpr, Ramp, Sub
from ..tir.functor import collect_vars
from .common import VARS, is_index_dtype, to_expr
from .poly import Poly
from .simplifier import Simplifier


class LinearForm(NamedTuple):
    """``const + sum(coef * atom for atom, coef in terms)``; an atom may appear more than
    once (atoms are not compared, only collected)."""

    const: int
    terms: List[Tuple[PrimExpr, int]]

    def coeff_of(self, var) -> Optional[int]:
        """The coefficient of ``var`` (0 when absent); None when an atom other than ``var``
        itself mentions it (the form is then not linear in ``var``)."""
        c = 0
        for atom, k in self.terms:
            if atom is var:
                c += k
            elif var in collect_vars(atom):
                return None
        return c

    def to_expr(self, dtype: str, with_const: bool = True) -> Optional[PrimExpr]:
        """Rebuild ``sum(atom * coef) [+ const]`` in term order, negative terms subtracted
        (``i*2 - j + 3``); None when nothing is left (no terms, and no constant asked for or
        a zero one)."""
        out: Optional[PrimExpr] = None
        for atom, k in self.terms:
            if out is None:
                out = atom if k == 1 else _op.mul(atom, IntImm(atom.dtype, k))
            elif k > 0:
                out = _op.add(out, atom if k == 1 else _op.mul(atom, IntImm(atom.dtype, k)))
            elif k < 0:
                out = _op.sub(out, atom if k == -1 else _op.mul(atom, IntImm(atom.dtype, -k)))
        if not with_const or self.const == 0:
            return out
        if out is None:
            return IntImm(dtype, self.const)
        if self.const > 0:
            return _op.add(out, IntImm(out.dtype, self.const))
        return _op.sub(out, IntImm(out.dtype, -self.const))


def linear_form(expr: PrimExpr, look_through: bool = False) -> LinearForm:
    """``expr`` as ``const + sum(coef * atom)`` over ``+``, ``-`` and ``*`` by an integer
    constant; any other sub-expression is an atom. With ``look_through``, a Ramp counts as its
    base and a Broadcast or Cast as its value (the per-lane offset seen from lane 0).

    Example: ``linear_form(i*4 + (j - 2)*3)`` is ``LinearForm(-6, [(i, 4), (j, 3)])``.
    """
    const = 0
    terms: List[Tuple[PrimExpr, int]] = []
    stack = [(expr, 1)]
    while stack:
        e, k = stack.pop()
        t = type(e)
        if t is IntImm:
            const += k * e.value
        elif t is Add:
            stack.append((e.b, k))
            stack.append((e.a, k))
        elif t is Sub:
            stack.append((e.b, -k))
            stack.append((e.a, k))
        elif t is Mul and type(e.b) is IntImm:
            stack.append((e.a, k * e.b.value))
        elif t is Mul and type(e.a) is IntImm:
            stack.append((e.b, k * e.a.value))
        elif look_through and t is Ramp:
            stack.append((e.base, k))
        elif look_through and (t is Broadcast or t is Cast):
            stack.append((e.value, k))
        else:
            terms.append((e, k))
    return LinearForm(const, terms)


def detect_linear_equation(expr, var_list: Sequence,
                           analyzer: Optional[Simplifier] = None) -> List[PrimExpr]:
    """Coefficients ``[c0, ..., cn-1, base]`` with ``expr == sum(ci * vi) + base`` where no
    ``ci`` mentions a variable of ``var_list``; ``[]`` when ``expr`` is not linear in them
    (``tvm.arith.detect_linear_equation``)."""
    ana = analyzer or Simplifier()
    e = to_expr(expr)
    vs = [v.var if isinstance(v, IterVar) else v for v in var_list]
    if not is_index_dtype(e.dtype):
        return []
    p = ana._lin(e)
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
            if n not in hits and not isinstance(a, VARS) and _mentions(a, vs):
                return []
    return [ana._expr(cp) for cp in coeffs] + [ana._expr(base)]


def _mentions(e, vs) -> bool:
    found = collect_vars(e)
    return any(v in found for v in vs)
