"""Small helpers of TOPI (``topi.utils``)."""
from __future__ import annotations

from typing import Sequence, Tuple

from ..error import TVMError
from ..tir import op as _op
from ..tir.expr import IntImm, PrimExpr


def get_const_int(expr) -> int:
    """The value of a constant integer expression; an error if it is symbolic."""
    if isinstance(expr, int):
        return expr
    e = _op.convert(expr)
    if not isinstance(e, IntImm):
        raise ValueError(f"expected a constant integer, got {expr!r}")
    return e.value


def get_const_tuple(in_tuple: Sequence) -> Tuple:
    """A tuple of ints; symbolic dimensions are kept as expressions."""
    out = []
    for x in in_tuple:
        e = _op.convert(x)
        out.append(e.value if isinstance(e, IntImm) else e)
    return tuple(out)


def is_const(expr) -> bool:
    return isinstance(expr, int) or isinstance(_op.convert(expr), IntImm)


def equal_const_int(expr, value: int) -> bool:
    """Whether ``expr`` is the constant ``value``."""
    if isinstance(expr, int):
        return expr == value
    return isinstance(expr, PrimExpr) and isinstance(expr, IntImm) and expr.value == value


def prod(dims) -> PrimExpr:
    r = _op.convert(1)
    for d in dims:
        r = _op.mul(r, d)
    return r


def ravel_index(indices, shape) -> PrimExpr:
    """Row-major flat index of ``indices`` in ``shape``."""
    idx = None
    for _i, (x, n) in enumerate(zip(indices, shape)):
        idx = x if idx is None else _op.add(_op.mul(idx, n), x)
    return _op.convert(0) if idx is None else idx


def unravel_index(idx, shape) -> list:
    """Indices in ``shape`` of the row-major flat index ``idx``."""
    out = []
    for n in reversed(list(shape)):
        out.append(_op.floormod(idx, n))
        idx = _op.floordiv(idx, n)
    return list(reversed(out))


def check_positive(x, what: str) -> None:
    e = _op.convert(x)
    if isinstance(e, IntImm) and e.value <= 0:
        raise TVMError(f"{what} must be positive, got {e.value}")

