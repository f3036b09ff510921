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
from .linear import LinearForm, detect_linear_equation, linear_form
from .rules import RewriteStats, rewrite_stats

__all__ = [
    "Analyzer", "ConstIntBound", "ModularSet", "IntSet", "IntervalSet", "eval_set", "union",
    "intersect", "relax_region", "pos_inf", "neg_inf", "is_pos_inf", "is_neg_inf",
    "is_index_dtype", "detect_linear_equation", "linear_form", "LinearForm", "rewrite_stats",
    "RewriteStats",
]

from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
