"""The arithmetic analyzer (``tvm.arith.Analyzer``): the simplifier of :mod:`.simplifier` plus
integer sets and linear equations.

Layering inside ``arith`` (each module imports only those above it): ``bound``, ``poly``,
``rules``, ``common`` → the rewrite families ``context``, ``canonical``, ``div_mod``,
``min_max``, ``prove``, ``compare``, ``select_cast`` → ``simplifier`` → ``int_set``,
``linear`` → ``analyzer``.
"""
from __future__ import annotations

from typing import List

from ..tir.expr import PrimExpr
from .common import is_index_dtype
from .int_set import DomMap, IntervalSet, eval_set
from .linear import detect_linear_equation as _detect_linear_equation
from .simplifier import ModularSet, Simplifier

__all__ = ["Analyzer", "ModularSet", "is_index_dtype"]


class Analyzer(Simplifier):
    """Arithmetic analyzer (``tvm.arith.Analyzer``): ``simplify``, ``rewrite_simplify``,
    ``canonical_simplify``, ``can_prove``, ``can_prove_equal``, ``const_int_bound``,
    ``modular_set``, ``bind``, ``update``, ``constraint_scope``, ``detect_linear_equation``
    and ``int_set``."""

    def detect_linear_equation(self, expr, var_list) -> List[PrimExpr]:
        """Coefficients ``[c0, ..., cn-1, base]`` with ``expr == sum(ci * vi) + base`` where
        no ``ci`` mentions a variable of ``var_list``; ``[]`` when ``expr`` is not linear."""
        return _detect_linear_equation(expr, var_list, self)

    def int_set(self, expr, dom_map: DomMap) -> IntervalSet:
        """The interval ``expr`` covers when the variables of ``dom_map`` range over their sets."""
        return eval_set(expr, dom_map, self)
