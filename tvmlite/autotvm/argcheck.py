"""Argument checks for the AutoTVM API: a wrong type or value is a TypeError/ValueError naming
the argument at the call, not a raw error from deep inside a tuning run."""
from __future__ import annotations

import math
import numbers
from typing import Optional


def check_int(value, name: str, minimum: Optional[int] = None, allow_none: bool = False):
    """``value`` as an int (numpy integers accepted; bool, float and str are not)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} of type "
                        f"{type(value).__name__}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def check_number(value, name: str, minimum: Optional[float] = None, positive: bool = False,
                 allow_none: bool = False):
    """``value`` as a finite float (ints accepted; bool and str are not)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r} of type "
                        f"{type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value
