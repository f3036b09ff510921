"""Constant integer bounds: closed intervals ``[lo, hi]`` of Python ints with saturation.

``POS_INF``/``NEG_INF`` stand for unbounded ends (as in TVM, the int64 extremes). Every helper
here takes and returns plain ``(lo, hi)`` tuples so the analyzer can combine them cheaply.
"""
from __future__ import annotations

from typing import Tuple

from ..ir import dtype as _dt

POS_INF = (1 << 63) - 1
NEG_INF = -POS_INF

Interval = Tuple[int, int]
EVERYTHING: Interval = (NEG_INF, POS_INF)


class ConstIntBound:
    """The constant bound ``[min_value, max_value]`` of an integer expression."""

    __slots__ = ("min_value", "max_value")
    POS_INF = POS_INF
    NEG_INF = NEG_INF

    def __init__(self, min_value: int, max_value: int):
        self.min_value = int(min_value)
        self.max_value = int(max_value)

    def __repr__(self) -> str:
        def show(v):
            return "+inf" if v >= POS_INF else "-inf" if v <= NEG_INF else str(v)

        return f"ConstIntBound[{show(self.min_value)}, {show(self.max_value)}]"

    def __eq__(self, other) -> bool:
        if isinstance(other, ConstIntBound):
            return (self.min_value, self.max_value) == (other.min_value, other.max_value)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.min_value, self.max_value))


def clamp(v: int) -> int:
    if v >= POS_INF:
        return POS_INF
    if v <= NEG_INF:
        return NEG_INF
    return v


def is_finite(v: int) -> bool:
    return NEG_INF < v < POS_INF


def dtype_range(dtype: str) -> Interval:
    """The values an integer dtype can hold (saturated to the infinities)."""
    if not _dt.is_integral(_dt.element(dtype)):
        return EVERYTHING
    return clamp(_dt.min_value(_dt.element(dtype))), clamp(_dt.max_value(_dt.element(dtype)))


def _add_lo(x: int, y: int) -> int:
    if x == NEG_INF or y == NEG_INF:
        return NEG_INF
    return clamp(x + y)


def _add_hi(x: int, y: int) -> int:
    if x == POS_INF or y == POS_INF:
        return POS_INF
    return clamp(x + y)


def add(a: Interval, b: Interval) -> Interval:
    return _add_lo(a[0], b[0]), _add_hi(a[1], b[1])


def neg(a: Interval) -> Interval:
    return -a[1], -a[0]


def _mul(x: int, y: int) -> int:
    if x == 0 or y == 0:
        return 0
    if is_finite(x) and is_finite(y):
        return clamp(x * y)
    return POS_INF if (x > 0) == (y > 0) else NEG_INF


def scale(a: Interval, c: int) -> Interval:
    if c == 0:
        return 0, 0
    if c > 0:
        return _mul(a[0], c), _mul(a[1], c)
    return _mul(a[1], c), _mul(a[0], c)


def mul(a: Interval, b: Interval) -> Interval:
    if a[0] == a[1] and is_finite(a[0]):
        return scale(b, a[0])
    if b[0] == b[1] and is_finite(b[0]):
        return scale(a, b[0])
    c = (_mul(a[0], b[0]), _mul(a[0], b[1]), _mul(a[1], b[0]), _mul(a[1], b[1]))
    return min(c), max(c)


def _fdiv(x: int, c: int) -> int:
    if not is_finite(x):
        return x if c > 0 else -x
    return x // c


def floordiv_const(a: Interval, c: int) -> Interval:
    """``floor(a / c)`` for a nonzero constant ``c``."""
    if c > 0:
        return _fdiv(a[0], c), _fdiv(a[1], c)
    return _fdiv(a[1], c), _fdiv(a[0], c)


def floordiv(a: Interval, b: Interval) -> Interval:
    """``floor(a / b)`` for a divisor interval ``b`` (not containing zero when useful)."""
    if b[0] == b[1] and is_finite(b[0]) and b[0] != 0:
        return floordiv_const(a, b[0])
    if 0 < b[0] <= b[1]:
        if all(is_finite(v) for v in a + b):
            c = (a[0] // b[0], a[0] // b[1], a[1] // b[0], a[1] // b[1])
            return min(c), max(c)
        if a[0] >= 0:
            return 0, (a[1] // b[0] if is_finite(a[1]) else POS_INF)
    return EVERYTHING


def floormod_const(a: Interval, c: int) -> Interval:
    """``a mod c`` (floor semantics) for a nonzero constant ``c``."""
    if c < 0:
        return c + 1, 0
    if is_finite(a[0]) and is_finite(a[1]) and a[0] // c == a[1] // c:
        return a[0] % c, a[1] % c
    if a[0] >= 0:
        return 0, min(a[1], c - 1)
    return 0, c - 1


def floormod(a: Interval, b: Interval) -> Interval:
    if b[0] == b[1] and is_finite(b[0]) and b[0] != 0:
        return floormod_const(a, b[0])
    if b[0] > 0:
        hi = b[1] - 1 if is_finite(b[1]) else POS_INF
        if a[0] >= 0:
            hi = min(hi, a[1])
        return 0, hi
    return EVERYTHING


def _tdiv(x: int, c: int) -> int:
    if not is_finite(x):
        return x if c > 0 else -x
    q = abs(x) // abs(c)
    return q if (x >= 0) == (c > 0) else -q


def truncdiv(a: Interval, b: Interval) -> Interval:
    if b[0] == b[1] and is_finite(b[0]) and b[0] != 0:
        c = b[0]
        lo, hi = _tdiv(a[0], c), _tdiv(a[1], c)
        return (lo, hi) if lo <= hi else (hi, lo)
    if a[0] >= 0 and b[0] > 0:
        return floordiv(a, b)
    return EVERYTHING


def truncmod(a: Interval, b: Interval) -> Interval:
    if b[0] == b[1] and is_finite(b[0]) and b[0] != 0:
        m = abs(b[0]) - 1
    elif b[0] > 0 and is_finite(b[1]):
        m = b[1] - 1
    else:
        m = POS_INF
    if a[0] >= 0:
        return 0, min(m, a[1])
    if a[1] <= 0:
        return max(-m, a[0]), 0
    return -m, m


def union(a: Interval, b: Interval) -> Interval:
    return min(a[0], b[0]), max(a[1], b[1])


def intersect(a: Interval, b: Interval) -> Interval:
    return max(a[0], b[0]), min(a[1], b[1])


def min_(a: Interval, b: Interval) -> Interval:
    return min(a[0], b[0]), min(a[1], b[1])


def max_(a: Interval, b: Interval) -> Interval:
    return max(a[0], b[0]), max(a[1], b[1])
