"""Small helpers of TOPI (``topi.utils``)."""
from __future__ import annotations

from typing import Callable, Iterator, Optional, Sequence, Tuple

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



class TopiError(TVMError, ValueError):
    """Bad arguments to a TOPI operator, raised when its compute is declared."""


def const_ints(x, n: int, op: str, arg: str) -> Tuple[int, ...]:
    """``x`` (an int or a sequence of ``n`` ints) as a tuple of ``n`` Python ints."""
    if isinstance(x, (int, PrimExpr)):
        x = [x] * n
    x = list(x)
    if len(x) != n:
        raise TopiError(f"{op}: {arg} must be an int or {n} ints, got {x!r}")
    try:
        return tuple(get_const_int(v) for v in x)
    except ValueError as e:
        raise TopiError(f"{op}: {arg} must be constant, got {x!r}") from e


def check_strides(x, n: int, op: str, arg: str = "stride") -> Tuple[int, ...]:
    """``n`` positive ints (strides, dilations); a TopiError naming ``op`` and ``arg`` else."""
    vals = const_ints(x, n, op, arg)
    if any(v <= 0 for v in vals):
        raise TopiError(f"{op}: {arg} must be positive, got {list(vals)}")
    return vals


def walk_ops(outs) -> Iterator[object]:
    """The operations under ``outs`` in a depth-first walk of their producers, each once."""
    stack, seen = [t.op for t in outs], set()
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        yield op
        stack.extend(t.op for t in op.input_tensors)


def find_op(outs, pred: Callable) -> Optional[object]:
    """The first operation of :func:`walk_ops` for which ``pred(op)`` holds, or None."""
    return next((op for op in walk_ops(outs) if pred(op)), None)
