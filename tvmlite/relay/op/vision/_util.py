"""Helpers of the vision operators' constructors and type relations."""
from __future__ import annotations

from typing import Sequence

from ...expr import Constant, Expr, const
from .._rel import RelayTypeError


def as_expr(value, dtype: str) -> Expr:
    """``value`` as a relay expression: a number becomes a scalar constant of ``dtype``."""
    return value if isinstance(value, Expr) else const(value, dtype)


def const_value(e: Expr):
    """The Python number a scalar constant holds, None for other expressions."""
    if isinstance(e, Constant):
        arr = e.data.numpy()
        if arr.size == 1:
            return arr.reshape(-1)[0].item()
    return None


def floats(op: str, what: str, values: Sequence) -> tuple:
    try:
        return tuple(float(v) for v in values)
    except Exception as e:  # noqa: BLE001  (any non-number is the caller's error)
        raise RelayTypeError(f"{op}: {what} must be a sequence of numbers, got "
                             f"{values!r}") from e


def rank(op: str, what: str, t, ndim: int) -> None:
    if len(t.shape) != ndim:
        raise RelayTypeError(f"{op}: {what} must be {ndim}-D, got shape {t.shape}")
