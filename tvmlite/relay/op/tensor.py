"""Element-wise and transform operators: ``add``/``subtract``/``multiply``/``divide``,
``reshape``, ``transpose``, ``concatenate`` (their relations; strategies in ``strategy``)."""
from __future__ import annotations

from typing import Optional, Sequence

from ..expr import Constant, Expr, Tuple
from ..ty import TensorType, Type
from ._rel import (
    RelayTypeError,
    broadcast_shapes,
    norm_axis,
    same_dtype,
    tensor_arg,
    tuple_arg,
)
from .registry import OpPattern, make_call, register


def _broadcast_rel(name: str):
    def rel(types: Sequence[Type], attrs) -> Type:
        a, b = tensor_arg(name, types, 0, "lhs"), tensor_arg(name, types, 1, "rhs")
        same_dtype(name, a, b)
        return TensorType(broadcast_shapes(name, a.shape, b.shape), a.dtype)
    return rel


for _name in ("add", "subtract", "multiply", "divide"):
    register(_name, 2, _broadcast_rel(_name), OpPattern.BROADCAST)


def add(lhs: Expr, rhs: Expr) -> Expr:
    """Element-wise ``lhs + rhs`` with NumPy broadcasting."""
    return make_call("add", [lhs, rhs])


def subtract(lhs: Expr, rhs: Expr) -> Expr:
    """Element-wise ``lhs - rhs`` with NumPy broadcasting."""
    return make_call("subtract", [lhs, rhs])


def multiply(lhs: Expr, rhs: Expr) -> Expr:
    """Element-wise ``lhs * rhs`` with NumPy broadcasting."""
    return make_call("multiply", [lhs, rhs])


def divide(lhs: Expr, rhs: Expr) -> Expr:
    """Element-wise ``lhs / rhs`` with NumPy broadcasting."""
    return make_call("divide", [lhs, rhs])


# ------------------------------------------------------------------------------------ reshape
def infer_newshape(op: str, shape: Sequence[int], newshape: Sequence[int]) -> tuple:
    """Relay's reshape codes: a positive size; 0 copies the input dimension; -1 is inferred;
    -2 copies all the remaining input dimensions; -3 merges the next two input dimensions;
    -4 splits the next input dimension into the two sizes that follow it (one may be -1)."""
    def bad(msg: str) -> RelayTypeError:
        return RelayTypeError(f"{op}: cannot reshape {tuple(shape)} to newshape "
                              f"{tuple(newshape)}: {msg}")

    def src(k: int) -> int:
        if k >= len(shape):
            raise bad(f"the codes use more than the input's {len(shape)} dimensions")
        return shape[k]

    codes = [int(d) for d in newshape]
    out: list = []
    infer_at = None
    k = 0  # the next input dimension
    i = 0
    while i < len(codes):
        d = codes[i]
        if d > 0:
            out.append(d)
            k += 1
        elif d == 0:
            out.append(src(k))
            k += 1
        elif d == -1:
            if infer_at is not None:
                raise bad("more than one -1")
            infer_at = len(out)
            out.append(1)
            k += 1
        elif d == -2:
            out.extend(shape[k:])
            k = len(shape)
        elif d == -3:
            out.append(src(k) * src(k + 1))
            k += 2
        elif d == -4:
            if i + 2 >= len(codes):
                raise bad("-4 must be followed by two sizes")
            whole, d1, d2 = src(k), codes[i + 1], codes[i + 2]
            if d1 == -1 and d2 == -1:
                raise bad("-4 splits into at most one -1")
            d1 = whole // d2 if d1 == -1 else d1
            d2 = whole // d1 if d2 == -1 else d2
            if isinstance(whole, int) and (d1 <= 0 or d2 <= 0 or d1 * d2 != whole):
                raise bad(f"cannot split dimension {whole} into ({codes[i + 1]}, "
                          f"{codes[i + 2]})")
            out.extend([d1, d2])
            k += 1
            i += 2
        else:
            raise bad(f"unknown code {d}")
        i += 1
    if not all(isinstance(d, int) for d in list(shape) + out):
        # symbolic sizes (a te.size_var): the inferred size is an expression, nothing checked
        if infer_at is not None:
            from ...arith import Analyzer
            from ...tir.op import floordiv
            size, known = 1, 1
            for d in shape:
                size = size * d
            for j, d in enumerate(out):
                if j != infer_at:
                    known = known * d
            out[infer_at] = Analyzer().simplify(floordiv(size, known))
        return tuple(out)
    size = 1
    for d in shape:
        size *= d
    known = 1
    for j, d in enumerate(out):
        if j != infer_at:
            known *= d
    if infer_at is not None:
        if known == 0 or size % known:
            raise bad("the sizes do not divide the input")
        out[infer_at] = size // known
    elif known != size:
        raise bad(f"{size} elements cannot be reshaped to {tuple(out)} ({known} elements)")
    return tuple(out)


def _reshape_rel(types, attrs):
    t = tensor_arg("reshape", types, 0, "data")
    if attrs.newshape is None:
        raise RelayTypeError("reshape: the attribute newshape is required")
    return TensorType(infer_newshape("reshape", t.shape, attrs.newshape), t.dtype)


# newshape has no default (classic: always printed, ``newshape=[]`` for a scalar result)
register("reshape", 1, _reshape_rel, OpPattern.INJECTIVE, {"newshape": None})


def reshape(data: Expr, newshape) -> Expr:
    """Reshape ``data`` (``newshape`` may hold 0 = keep the dimension, -1 = infer)."""
    if isinstance(newshape, Constant):  # classic takes a constant shape as the static one
        newshape = newshape.data.numpy().tolist()
    if isinstance(newshape, Expr):  # a shape computed at run time
        from .dyn import reshape as dyn_reshape
        return dyn_reshape(data, newshape)
    if isinstance(newshape, int):
        newshape = (newshape,)
    return make_call("reshape", [data], newshape=tuple(int(d) for d in newshape))


def _transpose_axes(op: str, ndim: int, axes) -> tuple:
    if not axes:
        return tuple(range(ndim - 1, -1, -1))
    if len(axes) != ndim:
        raise RelayTypeError(f"{op}: axes {tuple(axes)} do not match {ndim} dimension(s)")
    norm = tuple(norm_axis(op, int(a), ndim) for a in axes)
    if sorted(norm) != list(range(ndim)):
        raise RelayTypeError(f"{op}: axes {tuple(axes)} are not a permutation")
    return norm


def _transpose_rel(types, attrs):
    t = tensor_arg("transpose", types, 0, "data")
    axes = _transpose_axes("transpose", len(t.shape), attrs.axes)
    return TensorType(tuple(t.shape[a] for a in axes), t.dtype)


register("transpose", 1, _transpose_rel, OpPattern.INJECTIVE, {"axes": None})


def transpose(data: Expr, axes: Optional[Sequence[int]] = None) -> Expr:
    """Permute the dimensions of ``data`` (reverse them when ``axes`` is None)."""
    return make_call("transpose", [data], axes=None if axes is None else tuple(axes))


def _concat_rel(types, attrs):
    op = "concatenate"
    tt = tuple_arg(op, types[0])
    if not tt.fields:
        raise RelayTypeError(f"{op}: needs at least one tensor")
    fields = [tensor_arg(op, tt.fields, i, f"field {i}") for i in range(len(tt.fields))]
    first = fields[0]
    axis = norm_axis(op, attrs.axis, len(first.shape))
    total = 0
    shape = list(first.shape)
    for i, f in enumerate(fields):
        same_dtype(op, first, f, f"fields 0 and {i}")
        # only known sizes are compared; an unknown (symbolic) one makes the output's unknown
        if len(f.shape) != len(first.shape) or any(
                a != b for j, (a, b) in enumerate(zip(f.shape, first.shape))
                if j != axis and isinstance(a, int) and isinstance(b, int)):
            raise RelayTypeError(f"{op}: field {i} has shape {f.shape}, which differs from "
                                 f"field 0's {first.shape} outside axis {axis}")
        total += f.shape[axis]
    shape[axis] = total
    dynamic_axis = not all(isinstance(f.shape[axis], int) for f in fields)
    for j in range(len(shape)):
        known = [f.shape[j] for f in fields if isinstance(f.shape[j], int)]
        if j == axis or len(known) == len(fields):
            continue
        # classic: a known size wins only when the axis is unknown too, e.g.
        # [(?, 3), (?, ?)] -> (?, 3) but [(1, 3), (1, ?)] -> (2, ?)
        shape[j] = known[0] if known and dynamic_axis else next(
            f.shape[j] for f in fields if not isinstance(f.shape[j], int))
    return TensorType(shape, first.dtype)


register("concatenate", 1, _concat_rel, OpPattern.INJECTIVE, {"axis": 0})


def concatenate(data, axis: int) -> Expr:
    """Join a tuple (or list) of tensors along ``axis``."""
    if not isinstance(data, Expr):
        data = Tuple(list(data))
    return make_call("concatenate", [data], axis=int(axis))


# ------------------------------------------------------------------ unary element-wise ops
def _unary_rel(name: str):
    def rel(types: Sequence[Type], attrs) -> Type:
        return tensor_arg(name, types, 0, "data")
    return rel


UNARY_OPS = ("sqrt", "rsqrt", "exp", "log", "tanh", "sigmoid", "erf", "abs", "negative",
             "floor", "ceil", "round", "sin", "cos")
for _name in UNARY_OPS:
    register(_name, 1, _unary_rel(_name), OpPattern.ELEMWISE)


def _unary(name: str):
    def f(data: Expr) -> Expr:
        return make_call(name, [data])
    f.__name__ = name
    f.__doc__ = f"Element-wise ``{name}``."
    return f


sqrt, rsqrt, exp, log, tanh, sigmoid, erf, abs, negative, floor, ceil, round, sin, cos = (  # noqa: A001
    _unary(n) for n in UNARY_OPS)

#: more element-wise math (same type as the input)
MATH_OPS = ("sign", "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
            "trunc", "log2", "log10")
for _name in MATH_OPS:
    register(_name, 1, _unary_rel(_name), OpPattern.ELEMWISE)
sign, tan, sinh, cosh, asin, acos, atan, asinh, acosh, atanh, trunc, log2, log10 = (
    _unary(n) for n in MATH_OPS)

#: approximations of exp, tanh and erf (what ``relay.transform.FastMath`` swaps in)
FAST_MATH_OPS = ("fast_exp", "fast_tanh", "fast_erf")
for _name in FAST_MATH_OPS:
    register(_name, 1, _unary_rel(_name), OpPattern.ELEMWISE)
fast_exp, fast_tanh, fast_erf = (_unary(n) for n in FAST_MATH_OPS)


def _bool_unary_rel(name: str):
    def rel(types: Sequence[Type], attrs) -> Type:
        t = tensor_arg(name, types, 0, "data")
        return TensorType(t.shape, "bool")
    return rel


#: element-wise predicates (a bool result)
PREDICATE_OPS = ("isnan", "isinf", "isfinite")
for _name in PREDICATE_OPS:
    register(_name, 1, _bool_unary_rel(_name), OpPattern.ELEMWISE)
isnan, isinf, isfinite = (_unary(n) for n in PREDICATE_OPS)

#: element-wise integer ops (same type as the input); ``copy`` lowers to ``topi.identity``
INT_UNARY_OPS = ("bitwise_not", "copy")
for _name in INT_UNARY_OPS:
    register(_name, 1, _unary_rel(_name), OpPattern.ELEMWISE)
bitwise_not, copy = (_unary(n) for n in INT_UNARY_OPS)

# ------------------------------------------------------------------ more broadcasting ops
#: ``mod`` is truncated modulo (``topi.mod``), as classic relay's ``mod``
ARITH_OPS = ("power", "maximum", "minimum", "floor_divide", "floor_mod", "mod", "bitwise_and",
             "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
COMPARE_OPS = ("equal", "not_equal", "less", "greater", "less_equal", "greater_equal")
LOGICAL_OPS = ("logical_and", "logical_or", "logical_xor")


def _compare_rel(name: str):
    def rel(types: Sequence[Type], attrs) -> Type:
        t = _broadcast_rel(name)(types, attrs)
        return TensorType(t.shape, "bool")
    return rel


for _name in ARITH_OPS + LOGICAL_OPS:
    register(_name, 2, _broadcast_rel(_name), OpPattern.BROADCAST)
for _name in COMPARE_OPS:
    register(_name, 2, _compare_rel(_name), OpPattern.BROADCAST)


def _binary_ctor(name: str):
    def f(lhs: Expr, rhs: Expr) -> Expr:
        return make_call(name, [lhs, rhs])
    f.__name__ = name
    f.__doc__ = f"Element-wise ``{name}`` with NumPy broadcasting."
    return f


(power, maximum, minimum, floor_divide, floor_mod, mod, bitwise_and, bitwise_or, bitwise_xor,
 left_shift, right_shift, equal, not_equal, less, greater, less_equal, greater_equal,
 logical_and, logical_or, logical_xor) = (
    _binary_ctor(n) for n in ARITH_OPS + COMPARE_OPS + LOGICAL_OPS)


def _logical_not_rel(types, attrs):
    t = tensor_arg("logical_not", types, 0, "data")
    return TensorType(t.shape, "bool")


register("logical_not", 1, _logical_not_rel, OpPattern.ELEMWISE)


def logical_not(data: Expr) -> Expr:
    """Element-wise logical not (a bool result)."""
    return make_call("logical_not", [data])


# ---------------------------------------------------------------------- clip, cast, where
register("clip", 1, _unary_rel("clip"), OpPattern.ELEMWISE, {"a_min": 0.0, "a_max": 0.0})


def clip(data: Expr, a_min: float, a_max: float) -> Expr:
    """Clamp ``data`` into ``[a_min, a_max]``."""
    return make_call("clip", [data], a_min=float(a_min), a_max=float(a_max))


def _cast_rel(types, attrs):
    t = tensor_arg("cast", types, 0, "data")
    return TensorType(t.shape, attrs.dtype)


register("cast", 1, _cast_rel, OpPattern.ELEMWISE, {"dtype": "float32"})


def cast(data: Expr, dtype: str) -> Expr:
    """Convert ``data`` to ``dtype``."""
    return make_call("cast", [data], dtype=str(dtype))


def _cast_like_rel(types, attrs):
    t = tensor_arg("cast_like", types, 0, "data")
    like = tensor_arg("cast_like", types, 1, "dtype_like")
    return TensorType(t.shape, like.dtype)


register("cast_like", 2, _cast_like_rel, OpPattern.ELEMWISE)


def cast_like(data: Expr, dtype_like: Expr) -> Expr:
    """Convert ``data`` to the dtype of ``dtype_like``."""
    return make_call("cast_like", [data, dtype_like])


def _where_rel(types, attrs):
    name = "where"
    c = tensor_arg(name, types, 0, "condition")
    x, y = tensor_arg(name, types, 1, "x"), tensor_arg(name, types, 2, "y")
    same_dtype(name, x, y, "x and y")
    shape = broadcast_shapes(name, broadcast_shapes(name, c.shape, x.shape), y.shape)
    return TensorType(shape, x.dtype)


register("where", 3, _where_rel, OpPattern.BROADCAST)


def where(condition: Expr, x: Expr, y: Expr) -> Expr:
    """``x`` where ``condition`` holds, else ``y`` (NumPy broadcasting of all three)."""
    return make_call("where", [condition, x, y])


__all__ = ["add", "subtract", "multiply", "divide", "reshape", "transpose", "concatenate",
           "logical_not", "clip", "cast", "cast_like", "where", *UNARY_OPS, *MATH_OPS,
           *FAST_MATH_OPS,
           *PREDICATE_OPS, *INT_UNARY_OPS, *ARITH_OPS, *COMPARE_OPS,
           *LOGICAL_OPS]
