"""Small pieces every part of the simplifier shares: the index-dtype test, the boolean
constants, the node-type groups and the conversion of user input to an expression."""
from __future__ import annotations

from typing import Dict

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
    Div,
    FloorDiv,
    FloorMod,
    IntImm,
    IterVar,
    Max,
    Min,
    Mod,
    Mul,
    PrimExpr,
    SizeVar,
    Sub,
    Var,
)

INT_ARITH = (Add, Sub, Mul, FloorDiv, FloorMod, Div, Mod, Min, Max)
INT_ARITH_SET = frozenset(INT_ARITH)
CMP_SET = frozenset((EQ, NE, LT, LE, GT, GE))
VARS = (Var, SizeVar)
_INDEX_CACHE: Dict[str, bool] = {}

TRUE = IntImm("bool", 1)
FALSE = IntImm("bool", 0)


def is_index_dtype(dtype: str) -> bool:
    """Scalar int/uint (not bool): the dtypes the canonical form handles."""
    r = _INDEX_CACHE.get(dtype)
    if r is None:
        r = (_dt.lanes(dtype) == 1 and _dt.is_integral(dtype) and not _dt.is_bool(dtype))
        _INDEX_CACHE[dtype] = r
    return r


def as_bool(v: bool) -> IntImm:
    """The boolean constant ``v``."""
    return TRUE if v else FALSE


def to_expr(x) -> PrimExpr:
    """An IterVar as its variable, a Python number as a constant, an expression as is."""
    if isinstance(x, IterVar):
        return x.var
    if isinstance(x, PrimExpr):
        return x
    return _op.convert(x)
