"""Small helpers of TOPI (``topi.utils``)."""
from __future__ import annotations

import re
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from ..error import TVMError
from ..tir import op as _op
from ..tir.expr import FloatImm, IntImm, PrimExpr


def check_tensors(op: str, **tensors) -> None:
    """A :class:`TopiError` naming ``op`` and the argument unless each value is a tensor."""
    from ..te.tensor import Tensor
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TopiError(f"{op}: {name} must be a Tensor, got {t!r}")


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


def get_const_float(expr) -> float:
    """The value of a constant floating-point expression; an error if it is not one."""
    if isinstance(expr, float):
        return expr
    e = _op.convert(expr)
    if not isinstance(e, FloatImm):
        raise ValueError(f"expected a constant float, got {expr!r}")
    return float(e.value)


def get_float_tuple(in_tuple: Sequence) -> Tuple[float, ...]:
    """A tuple of floats from constant floating-point expressions."""
    return tuple(get_const_float(x) for x in in_tuple)


def ceil_div(a, b) -> PrimExpr:
    """``a`` divided by ``b``, rounded up (non-negative integer operands)."""
    return _op.indexdiv(_op.add(a, _op.sub(b, 1)), b)


def get_max_power2_factor(n: int, max_value: Optional[int] = None) -> int:
    """The largest power of 2 that divides ``n`` and is at most ``max_value`` (if given)."""
    if n == 0 and max_value is None:
        raise ValueError("get_max_power2_factor: every power of 2 divides 0; give max_value")
    factor = 1
    while n % 2 == 0 and (max_value is None or factor * 2 <= max_value):
        factor *= 2
        n //= 2
    return factor


def ncw_pack_layout(layout_info: str) -> bool:
    """Whether the layout is NCWinic (batch and channel both blocked)."""
    return layout_info[:3] == "NCW" and "c" in layout_info and "n" in layout_info


def ncw_xc_layout(layout_info: str) -> bool:
    """Whether the layout is NCWxc (the channel blocked by a number, ``NCW8c``)."""
    return layout_info[:3] == "NCW" and "c" in layout_info and layout_info[3:-1].isnumeric()


def nchw_pack_layout(layout_info: str) -> bool:
    """Whether the layout is NCHWinic (batch and channel both blocked)."""
    return layout_info[:4] == "NCHW" and "c" in layout_info and "n" in layout_info


def nchw_xc_layout(layout_info: str) -> bool:
    """Whether the layout is NCHWxc (the channel blocked by a number, ``NCHW16c``)."""
    return layout_info[:4] == "NCHW" and "c" in layout_info and layout_info[4:-1].isnumeric()


def parse_layout(layout: str, op: str = "layout",
                 what: str = "") -> List[Tuple[str, Optional[int]]]:
    """``[(axis letter, block factor or None)]`` of a layout such as ``"NCHW16c"``; a
    :class:`TopiError` naming ``op`` (and ``what`` layout) if it is malformed."""
    where = f"{what} layout" if what else "layout"
    tokens = re.findall(r"(\d*)([A-Za-z])", layout)
    if "".join(d + c for d, c in tokens) != layout or not tokens:
        raise TopiError(f"{op}: bad {where} {layout!r}")
    out, seen = [], set()
    for digits, c in tokens:
        if c in seen:
            raise TopiError(f"{op}: axis {c} repeated in {where} {layout!r}")
        seen.add(c)
        if c.isupper():
            if digits:
                raise TopiError(f"{op}: primal axis {c} takes no factor in {layout!r}")
            out.append((c, None))
        else:
            if not digits or int(digits) <= 0 or c.upper() not in layout:
                raise TopiError(f"{op}: sub-axis {c} of {layout!r} needs a positive factor and "
                                "its primal axis")
            out.append((c, int(digits)))
    return out


def get_shape(src_shape: Sequence, src_layout, dst_layout) -> Tuple:
    """The shape of a tensor of shape ``src_shape`` in ``src_layout`` re-ordered to
    ``dst_layout``, which has the same axes (and block factors) in another order:
    ``get_shape((1, 3, 224, 224), "NCHW", "NHWC") == (1, 224, 224, 3)``."""
    src_layout, dst_layout = str(src_layout), str(dst_layout)
    if src_layout == dst_layout:
        return get_const_tuple(src_shape)
    src = parse_layout(src_layout, "get_shape", "source")
    dst = parse_layout(dst_layout, "get_shape", "destination")
    if len(src) != len(src_shape):
        raise TopiError(f"get_shape: layout {src_layout!r} has {len(src)} axes, the shape "
                        f"{len(src_shape)}")
    if sorted(src, key=str) != sorted(dst, key=str):
        raise TopiError(f"get_shape: incompatible layouts {src_layout!r} and {dst_layout!r} "
                        "(they must have the same axes and factors)")
    position = {axis: i for i, (axis, _) in enumerate(src)}
    return get_const_tuple([src_shape[position[axis]] for axis, _ in dst])


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


def const_matrix(matrix, name: str = "const_matrix", attrs=None):
    """A constant 2-D tensor holding ``matrix`` (a numpy array): each element a chain of
    selects on its indices, which folds to the constant where the indices are known (classic
    ``topi.utils.const_matrix``; the op carries the attribute ``const_matrix``)."""
    import numpy as np

    from ..te.operation import compute
    from ..tir import expr as _expr
    matrix = np.asarray(matrix)
    if matrix.ndim != 2:
        raise TopiError(f"const_matrix: expects a 2-D matrix, got shape {matrix.shape}")
    rows, cols = matrix.shape
    dtype = str(matrix.dtype)

    def element(i, j):
        now = _op.const(0, dtype)
        for ii in range(rows):
            for jj in range(cols):
                now = _expr.Select(_op.all(_op.indexmod(i, rows) == ii,
                                           _op.indexmod(j, cols) == jj),
                                   _op.const(matrix[ii][jj].item(), dtype), now)
        return now

    if attrs is None:
        attrs = {"const_matrix": True, "schedule_rule": "None"}
    return compute(matrix.shape, element, name=name, attrs=attrs)
