"""Arithmetic analysis (``tvm.arith``): the simplifier, constant bounds, modular sets,
integer sets and region relaxing."""
from .analyzer import Analyzer, ModularSet, is_index_dtype
from .bound import ConstIntBound
from .int_set import (
    IntervalSet,
    IntSet,
    eval_set,
    intersect,
    is_neg_inf,
    is_pos_inf,
    neg_inf,
    pos_inf,
    relax_region,
    union,
)

__all__ = [
    "Analyzer", "ConstIntBound", "ModularSet", "IntSet", "IntervalSet", "eval_set", "union",
    "intersect", "relax_region", "pos_inf", "neg_inf", "is_pos_inf", "is_neg_inf",
    "is_index_dtype", "detect_linear_equation",
]


def detect_linear_equation(expr, var_list):
    """``[c0, ..., cn-1, base]`` with ``expr == sum(ci * vi) + base``; ``[]`` if not linear
    (``tvm.arith.detect_linear_equation``)."""
    return Analyzer().detect_linear_equation(expr, var_list)


from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
