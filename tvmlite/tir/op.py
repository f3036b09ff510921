"""Building expressions: conversion of Python values, TVM's dtype rules, constant folding,
math intrinsics and reducers.

Binary operators follow TVM: a Python literal takes the other operand's dtype (``x + 1`` on a
float16 ``x`` is float16), int with float promotes to float, narrower to wider, scalars broadcast
to vectors. Constants are folded as the node is built (``IntImm(4) * 8`` is ``IntImm(32)``), and
``x + 0``, ``x * 1``, ``x * 0`` (integers) fold as well.
"""
from __future__ import annotations

import builtins as _b
import numbers
import sys as _sys
from typing import Callable, Sequence

from ..ir import dtype as _dt
from . import expr as _expr
from .expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
    Call,
    Cast,
    CommReducer,
    Div,
    DivideByZeroError,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    IterVar,
    IterVarType,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    OperandTypeError,
    Or,
    PrimExpr,
    Reduce,
    Select,
    StringImm,
    Sub,
    Var,
    check_literal,
)

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def const(value, dtype: str | None = None, span=None) -> PrimExpr:
    """A typed constant; ``dtype`` defaults to int32/int64, float32 or bool from the value."""
    if dtype is None and type(value).__module__ == "numpy" and hasattr(value, "dtype"):
        dtype = str(value.dtype)  # a numpy scalar keeps its own dtype, as in classic TVM
        value = value.item()
    if dtype is None:
        if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
            dtype = "bool"
        elif isinstance(value, numbers.Integral):
            dtype = "int32" if _INT32_MIN <= int(value) <= _INT32_MAX else "int64"
        elif isinstance(value, numbers.Real):
            dtype = "float32"
        else:
            raise TypeError(f"cannot make a constant from {value!r}")
    dtype = _dt.canonical(dtype)
    if _dt.lanes(dtype) != 1:
        return Broadcast(const(value, _dt.element(dtype)), _dt.lanes(dtype))
    check_literal(value, dtype)
    if _dt.is_float(dtype):
        return FloatImm(dtype, float(value))
    if _dt.is_bool(dtype):
        return IntImm(dtype, 1 if value else 0)
    if _dt.is_handle(dtype):
        raise TypeError("cannot make a handle constant")
    v = int(value)
    if v != value:
        raise ValueError(f"value {value} cannot be represented exactly as {dtype}")
    return IntImm(dtype, v)


def convert(value, dtype_hint: str | None = None) -> PrimExpr:
    """Turn a Python/numpy scalar, IterVar or expression into a PrimExpr.

    A Python number takes ``dtype_hint`` where that is meaningful (an int literal beside a
    float expression becomes a float constant).
    """
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, IterVar):
        return value.var
    if isinstance(value, str):
        return StringImm(value)
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return IntImm("bool", int(bool(value)))
    if isinstance(value, numbers.Number):
        if dtype_hint is not None:
            h = _dt.element(dtype_hint)
            if _dt.is_float(h):
                check_literal(value, h)
                return FloatImm(h, float(value))
            if isinstance(value, numbers.Integral) and _dt.is_integral(h) and not _dt.is_bool(h):
                check_literal(value, h)
                return IntImm(h, int(value))
        if hasattr(value, "dtype"):  # numpy scalar
            return const(value.item(), str(value.dtype))
        return const(value)
    if hasattr(value, "asobject"):  # a TE tensor slice
        return value.asobject()
    raise TypeError(f"cannot convert {value!r} of type {type(value).__name__} to an expression")


def _is_num(x) -> bool:
    return isinstance(x, numbers.Number) or type(x).__name__ == "bool_"


def _operands(a, b):
    """Convert both operands, literals taking the other side's dtype, then match dtypes."""
    if _is_num(a) and not _is_num(b):
        b = convert(b)
        a = convert(a, b.dtype)
    elif _is_num(b) and not _is_num(a):
        a = convert(a)
        b = convert(b, a.dtype)
    else:
        a, b = convert(a), convert(b)
    return match_types(a, b)


def match_types(a: PrimExpr, b: PrimExpr):
    """TVM's BinaryOpMatchTypes: make both operands the same dtype."""
    ta, tb = a.dtype, b.dtype
    if ta == tb:
        return a, b
    la, lb = _dt.lanes(ta), _dt.lanes(tb)
    if la != lb:
        if la == 1:
            a = Broadcast(a, lb)
        elif lb == 1:
            b = Broadcast(b, la)
        else:
            raise TypeError(f"cannot combine vectors of {la} and {lb} lanes")
        ta, tb = a.dtype, b.dtype
        if ta == tb:
            return a, b
    ea, eb = _dt.element(ta), _dt.element(tb)
    fa, fb = _dt.is_float(ea), _dt.is_float(eb)
    if fa and not fb:
        return a, cast(ta, b)
    if fb and not fa:
        return cast(tb, a), b
    if _dt.is_handle(ea) or _dt.is_handle(eb):
        return a, b
    ba, bb = _dt.bits(ea), _dt.bits(eb)
    if ba > bb or (ba == bb and _dt.is_int(ea)):
        return a, cast(ta, b)
    return cast(tb, a), b


def cast(dtype: str, value, span=None) -> PrimExpr:
    """Cast ``value`` to ``dtype`` (folds constants)."""
    dtype = _dt.canonical(dtype)
    value = convert(value)
    if value.dtype == dtype:
        return value
    if _dt.is_handle(value.dtype) and not _dt.is_handle(dtype):
        raise OperandTypeError(f"Can't cast a handle to other types (cast of {value!r} to "
                               f"{dtype})")
    if _dt.lanes(dtype) != _dt.lanes(value.dtype) and _dt.lanes(value.dtype) == 1:
        return Broadcast(cast(_dt.element(dtype), value), _dt.lanes(dtype))
    if isinstance(value, (IntImm, FloatImm)) and _dt.lanes(dtype) == 1:
        if _dt.is_float(dtype):
            return FloatImm(dtype, float(value.value))
        if _dt.is_bool(dtype):
            return IntImm(dtype, int(value.value != 0))
        return IntImm(dtype, _wrap(int(value.value), dtype))
    return Cast(dtype, value)


def _wrap(v: int, dtype: str) -> int:
    bits = _dt.bits(dtype)
    v &= (1 << bits) - 1
    if _dt.is_int(dtype) and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _fold(cls, a, b):
    """Fold two constants; None if not foldable."""
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        x, y = a.value, b.value
        if cls is Add:
            return IntImm(a.dtype, _wrap(x + y, a.dtype))
        if cls is Sub:
            return IntImm(a.dtype, _wrap(x - y, a.dtype))
        if cls is Mul:
            return IntImm(a.dtype, _wrap(x * y, a.dtype))
        if cls is FloorDiv and y != 0:
            return IntImm(a.dtype, x // y)
        if cls is FloorMod and y != 0:
            return IntImm(a.dtype, x % y)
        if cls is Div and y != 0:
            q = _b.abs(x) // _b.abs(y)
            return IntImm(a.dtype, q if (x >= 0) == (y >= 0) else -q)
        if cls is Mod and y != 0:
            r = _b.abs(x) % _b.abs(y)
            return IntImm(a.dtype, r if x >= 0 else -r)
        if cls is Min:
            return IntImm(a.dtype, _b.min(x, y))
        if cls is Max:
            return IntImm(a.dtype, _b.max(x, y))
    elif isinstance(a, FloatImm) and isinstance(b, FloatImm):
        x, y = a.value, b.value
        if cls is Add:
            return FloatImm(a.dtype, x + y)
        if cls is Sub:
            return FloatImm(a.dtype, x - y)
        if cls is Mul:
            return FloatImm(a.dtype, x * y)
        if cls is Div and y != 0:
            return FloatImm(a.dtype, x / y)
        if cls is Min:
            return FloatImm(a.dtype, _b.min(x, y))
        if cls is Max:
            return FloatImm(a.dtype, _b.max(x, y))
    return None


def _is_const(x, v) -> bool:
    return isinstance(x, (IntImm, FloatImm)) and x.value == v


def _binary(cls, a, b):
    a, b = _operands(a, b)
    folded = _fold(cls, a, b)
    if folded is not None:
        return folded
    integral = _dt.is_integral(a.dtype)
    if cls is Add:
        if _is_const(b, 0):
            return a
        if _is_const(a, 0):
            return b
    elif cls is Sub:
        if _is_const(b, 0):
            return a
    elif cls is Mul:
        if _is_const(b, 1):
            return a
        if _is_const(a, 1):
            return b
        if integral and (_is_const(a, 0) or _is_const(b, 0)):
            return a if _is_const(a, 0) else b
    elif cls in (FloorDiv, Div):
        if _is_const(b, 1):
            return a
        if _is_const(b, 0) and integral:
            raise DivideByZeroError("Divide by zero")
    elif cls in (FloorMod, Mod):
        if integral and _is_const(b, 1):
            return IntImm(a.dtype, 0) if _dt.lanes(a.dtype) == 1 else cls(a, b)
        if _is_const(b, 0) and integral:
            raise DivideByZeroError("Divide by zero")
    return cls(a, b)


def add(a, b, span=None):
    return _binary(Add, a, b)


def sub(a, b, span=None):
    return _binary(Sub, a, b)


def mul(a, b, span=None):
    return _binary(Mul, a, b)


def neg(a):
    a = convert(a)
    if isinstance(a, IntImm):
        return IntImm(a.dtype, -a.value)
    if isinstance(a, FloatImm):
        return FloatImm(a.dtype, -a.value)
    return _binary(Sub, 0, a)


def _int_division_check(a, b):
    ta = a.dtype if isinstance(a, (PrimExpr, IterVar)) else None
    tb = b.dtype if isinstance(b, (PrimExpr, IterVar)) else None
    int_like = lambda t, v: (t is not None and _dt.is_integral(t)) or (  # noqa: E731
        t is None and isinstance(v, numbers.Integral))
    return int_like(ta, a) and int_like(tb, b)


def true_div(a, b, span=None):
    """``a / b``: float division; ambiguous for integers (use ``//`` or truncdiv)."""
    if _int_division_check(a, b):
        raise TypeError(
            "TVM supports multiple types of integer divisions, please call div, "
            "indexdiv/indexmod, floordiv/floormod or truncdiv/truncmod directly to avoid "
            "ambiguity in the code. Use // and % for floordiv/floormod on indices."
        )
    return _binary(Div, a, b)


def div(a, b, span=None):
    """Division with C semantics (truncation for integers)."""
    return _binary(Div, a, b)


def truncdiv(a, b, span=None):
    return _binary(Div, a, b)


def truncmod(a, b, span=None):
    return _binary(Mod, a, b)


def floordiv(a, b, span=None):
    return _binary(FloorDiv, a, b)


def floormod(a, b, span=None):
    return _binary(FloorMod, a, b)


indexdiv = floordiv
indexmod = floormod


def _min(a, b):
    return _binary(Min, a, b)


def _max(a, b):
    return _binary(Max, a, b)


def _cmp(cls, a, b):
    a, b = _operands(a, b)
    if isinstance(a, (IntImm, FloatImm)) and isinstance(b, (IntImm, FloatImm)):
        x, y = a.value, b.value
        r = {EQ: x == y, NE: x != y, LT: x < y, LE: x <= y, GT: x > y, GE: x >= y}[cls]
        return IntImm("bool", int(r))
    return cls(a, b)


def eq(a, b, span=None):
    return _cmp(EQ, a, b)


def ne(a, b, span=None):
    return _cmp(NE, a, b)


def lt(a, b, span=None):
    return _cmp(LT, a, b)


def le(a, b, span=None):
    return _cmp(LE, a, b)


def gt(a, b, span=None):
    return _cmp(GT, a, b)


def ge(a, b, span=None):
    return _cmp(GE, a, b)


def _as_bool(x) -> PrimExpr:
    x = convert(x)
    if not _dt.is_bool(_dt.element(x.dtype)):
        x = ne(x, 0)
    return x


def logical_and(a, b, span=None) -> PrimExpr:
    a, b = _as_bool(a), _as_bool(b)
    if isinstance(a, IntImm):
        return b if a.value else a
    if isinstance(b, IntImm):
        return a if b.value else b
    return And(a, b)


def logical_or(a, b, span=None) -> PrimExpr:
    a, b = _as_bool(a), _as_bool(b)
    if isinstance(a, IntImm):
        return a if a.value else b
    if isinstance(b, IntImm):
        return b if b.value else a
    return Or(a, b)


def logical_not(a, span=None) -> PrimExpr:
    a = _as_bool(a)
    if isinstance(a, IntImm):
        return IntImm("bool", 1 - a.value)
    return Not(a)


def all(*args, span=None) -> PrimExpr:  # noqa: A001  (TVM's name)
    """Logical and of all arguments (``tvm.tir.all(a, b, c)``)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    if not args:
        raise ValueError("Any/All requires at least one argument")
    r = _as_bool(args[0])
    for x in args[1:]:
        r = logical_and(r, x)
    return r


def any(*args, span=None) -> PrimExpr:  # noqa: A001
    """Logical or of all arguments (``tvm.tir.any(a, b, c)``)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    if not args:
        raise ValueError("Any/All requires at least one argument")
    r = _as_bool(args[0])
    for x in args[1:]:
        r = logical_or(r, x)
    return r


def _bitwise(name, a, b):
    a, b = _operands(a, b)
    if not _dt.is_integral(a.dtype):
        raise OperandTypeError(f"{name} expects integer operands, got {a.dtype}")
    if name.startswith("shift") and isinstance(b, IntImm):
        if b.value < 0:
            raise OperandTypeError(f"{name}: shift amount must be non-negative, got {b.value}")
        if b.value >= _dt.bits(a.dtype):
            raise OperandTypeError(f"{name}: shift amount must be less than the {_dt.bits(a.dtype)}"
                                   f" bits of {a.dtype}, got {b.value}")
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        x, y = a.value, b.value
        v = {"shift_left": lambda: x << y, "shift_right": lambda: x >> y,
             "bitwise_and": lambda: x & y, "bitwise_or": lambda: x | y,
             "bitwise_xor": lambda: x ^ y}[name]()
        return IntImm(a.dtype, _wrap(v, a.dtype))
    return Call(a.dtype, name, (a, b))


def shift_left(a, b, span=None):
    return _bitwise("shift_left", a, b)


def shift_right(a, b, span=None):
    return _bitwise("shift_right", a, b)


def bitwise_and(a, b, span=None):
    return _bitwise("bitwise_and", a, b)


def bitwise_or(a, b, span=None):
    return _bitwise("bitwise_or", a, b)


def bitwise_xor(a, b, span=None):
    return _bitwise("bitwise_xor", a, b)


def bitwise_not(a, span=None):
    a = convert(a)
    if not _dt.is_integral(a.dtype):
        raise OperandTypeError(f"bitwise_not expects an integer operand, got {a.dtype}")
    if isinstance(a, IntImm):
        return IntImm(a.dtype, _wrap(~a.value, a.dtype))
    return Call(a.dtype, "bitwise_not", (a,))


def if_then_else(cond, t, f, span=None) -> PrimExpr:
    """Lazy conditional: only the chosen branch is evaluated (guards out-of-bounds loads)."""
    cond = _as_bool(cond)
    t, f = _operands(t, f)
    if isinstance(cond, IntImm):
        return t if cond.value else f
    return Call(t.dtype, "if_then_else", (cond, t, f))


def likely(cond, span=None) -> PrimExpr:
    cond = _as_bool(cond)
    if isinstance(cond, IntImm):
        return cond
    return Call(cond.dtype, "likely", (cond,))


def assume(cond: PrimExpr = None) -> PrimExpr:
    """A condition the compiler may take as true (``T.assume``); it generates no code."""
    return Call("bool", "assume", (_as_bool(cond),))


def _select_post_init(self):
    c, t, f = _as_bool(self.condition), self.true_value, self.false_value
    t, f = _operands(t, f)
    object.__setattr__(self, "condition", c)
    object.__setattr__(self, "true_value", t)
    object.__setattr__(self, "false_value", f)


Select.__post_init__ = _select_post_init


# --------------------------------------------------------------------------- math
def _float_arg(x):
    x = convert(x)
    if not _dt.is_float(x.dtype):
        x = cast("float32", x)
    return x


def _unary(name):
    def f(x, span=None):
        x = _float_arg(x)
        return Call(x.dtype, name, (x,))

    f.__name__ = name
    f.__doc__ = f"Elementwise ``{name}``."
    return f


exp = _unary("exp")
exp2 = _unary("exp2")
exp10 = _unary("exp10")
log = _unary("log")
log2 = _unary("log2")
log10 = _unary("log10")
log1p = _unary("log1p")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
sinh = _unary("sinh")
cosh = _unary("cosh")
asin = _unary("asin")
acos = _unary("acos")
atan = _unary("atan")
asinh = _unary("asinh")
acosh = _unary("acosh")
atanh = _unary("atanh")
erf = _unary("erf")
floor = _unary("floor")
ceil = _unary("ceil")
trunc = _unary("trunc")
round = _unary("round")  # noqa: A001
nearbyint = _unary("nearbyint")


def fabs(x, span=None):
    x = _float_arg(x)
    return Call(x.dtype, "fabs", (x,))


def abs(x, span=None):  # noqa: A001
    """Absolute value; integers stay integers."""
    x = convert(x)
    if _dt.is_float(x.dtype):
        return Call(x.dtype, "fabs", (x,))
    if isinstance(x, IntImm):
        return IntImm(x.dtype, _b.abs(x.value))
    if _dt.is_uint(x.dtype):
        return x
    return Select(ge(x, 0), x, neg(x))



def power(x, y, span=None):
    x, y = _operands(x, y)
    if not _dt.is_float(x.dtype):
        x, y = cast("float32", x), cast("float32", y)
    return Call(x.dtype, "pow", (x, y))


pow = power  # noqa: A001


def fmod(x, y, span=None):
    x, y = _operands(x, y)
    return Call(x.dtype, "fmod", (x, y))


def isnan(x, span=None):
    x = convert(x)
    if not _dt.is_float(x.dtype):
        return const(False, "bool") if _dt.lanes(x.dtype) == 1 else Broadcast(
            const(False, "bool"), _dt.lanes(x.dtype))
    if _dt.bits(x.dtype) == 16:  # classic TVM tests a half in single precision
        x = cast(_dt.with_lanes("float32", _dt.lanes(x.dtype)), x)
    return Call(_dt.with_lanes("bool", _dt.lanes(x.dtype)), "isnan", (x,))


def _float_test(name: str, x, if_int: bool):
    """``isinf`` / ``isfinite``: a bool test of a float; integers are never infinite."""
    x = convert(x)
    lanes = _dt.lanes(x.dtype)
    if not _dt.is_float(x.dtype):
        c = const(if_int, "bool")
        return c if lanes == 1 else Broadcast(c, lanes)
    if _dt.bits(x.dtype) == 16:
        x = cast(_dt.with_lanes("float32", lanes), x)
    return Call(_dt.with_lanes("bool", lanes), name, (x,))


def isinf(x, span=None):
    """Whether ``x`` is infinite (False for integers)."""
    return _float_test("isinf", x, False)


def isfinite(x, span=None):
    """Whether ``x`` is neither infinite nor NaN (True for integers)."""
    return _float_test("isfinite", x, True)


def popcount(x, span=None):
    x = convert(x)
    return Call(x.dtype, "popcount", (x,))


def reinterpret(dtype, value, span=None):
    value = convert(value)
    return Call(dtype, "reinterpret", (value,))


def min_value(dtype: str, span=None) -> PrimExpr:
    """The lowest value of ``dtype`` as a constant."""
    dtype = _dt.canonical(dtype)
    return const(_dt.min_value(dtype), dtype)


def max_value(dtype: str, span=None) -> PrimExpr:
    """The highest value of ``dtype`` as a constant."""
    dtype = _dt.canonical(dtype)
    return const(_dt.max_value(dtype), dtype)


def infinity(dtype: str, span=None) -> PrimExpr:
    """Positive infinity of the float type ``dtype`` as a constant."""
    dtype = _dt.canonical(dtype)
    if not _dt.is_float(dtype):
        raise ValueError(f"infinity: {dtype} is not a floating point type")
    return FloatImm(dtype, float("inf"))


class CallEffectKind:
    """The side effect of a call (classic ``tir.CallEffectKind``; an op attribute
    ``TCallEffectKind`` registered with ``tvm.ir.register_op_attr``)."""

    ExprAnnotation = IntImm("int32", 0)
    Pure = IntImm("int32", 1)
    ReadState = IntImm("int32", 2)
    UpdateState = IntImm("int32", 3)
    Opaque = UpdateState


def call_extern(dtype: str, func_name: str, *args, span=None) -> PrimExpr:
    """Call the C function ``func_name`` (linked into the module); dtype ``""`` is void."""
    return Call(dtype or "void", "call_extern",
                (StringImm(func_name),) + tuple(_arg(a) for a in args))


def call_pure_extern(dtype: str, func_name: str, *args, span=None) -> PrimExpr:
    return Call(dtype or "void", "call_pure_extern",
                (StringImm(func_name),) + tuple(_arg(a) for a in args))


def call_intrin(dtype: str, op_name: str, *args, span=None) -> PrimExpr:
    name = op_name[4:] if op_name.startswith("tir.") else op_name
    return Call(dtype, name, tuple(_arg(a) for a in args))


def call_packed(*args, span=None) -> PrimExpr:
    """Call a function registered with ``tvm.register_func``; buffers pass as NDArrays."""
    if not args or not isinstance(args[0], str):
        raise TypeError("call_packed expects the function name first")
    return Call("int32", "call_packed", (StringImm(args[0]),) + tuple(_arg(a) for a in args[1:]))


def _arg(a):
    from .buffer import Buffer

    if isinstance(a, Buffer):
        return a
    return convert(a)


# --------------------------------------------------------------------------- reducers
class Reducer:
    """A reduction function made by :func:`comm_reducer` (``te.sum``, ``te.max`` …).

    Called with ``axis`` it builds a reduction; called with two expressions and no axis it
    combines them elementwise (``te.max(x, 0)``).
    """

    def __init__(self, fcombine: Callable, fidentity: Callable, name: str = "reduce"):
        self.fcombine = fcombine
        self.fidentity = fidentity
        self.name = name
        self._cache: dict = {}

    def combiner(self, dtypes: Sequence[str]) -> CommReducer:
        key = tuple(dtypes)
        r = self._cache.get(key)
        if r is None:
            lhs = tuple(Var("x" if len(key) == 1 else f"x{i}", t) for i, t in enumerate(key))
            rhs = tuple(Var("y" if len(key) == 1 else f"y{i}", t) for i, t in enumerate(key))
            if len(key) == 1:
                res = (convert(self.fcombine(lhs[0], rhs[0])),)
                ident = (convert(self.fidentity(key[0]), key[0]),)
            else:
                res = tuple(convert(x) for x in self.fcombine(lhs, rhs))
                ident = tuple(convert(x, t) for x, t in zip(self.fidentity(*key), key))
            res = tuple(cast(t, x) for x, t in zip(res, key))
            ident = tuple(cast(t, x) for x, t in zip(ident, key))
            r = CommReducer(lhs, rhs, res, ident)
            self._cache[key] = r
        return r

    def __call__(self, expr, axis=None, where=None, init=None, *args):
        if isinstance(axis, (IterVar, list, tuple)) and not (
            isinstance(axis, (list, tuple)) and axis and not isinstance(axis[0], IterVar)
        ):
            axes = (axis,) if isinstance(axis, IterVar) else tuple(axis)
            return _make_reduce(self, expr, axes, where, init)
        if axis is None:
            raise TypeError(f"{self.name}() needs an axis (reduction) or a second operand")
        if where is not None or args:
            raise TypeError(f"{self.name}(a, b) takes exactly two operands")
        a, b = _operands(expr, axis)
        return convert(self.fcombine(a, b))


def _reducer_call(comm: CommReducer, *args):
    raise TypeError("call the Python reducer returned by comm_reducer, not the node")


def _make_reduce(reducer: Reducer, expr, axes, where, init):
    for ax in axes:
        if not isinstance(ax, IterVar) or ax.iter_type != IterVarType.CommReduce:
            raise TypeError(f"reduction axis {ax!r} must be made by te.reduce_axis")
    cond = IntImm("bool", 1) if where is None else _as_bool(where)
    if isinstance(expr, (tuple, list)):
        src = tuple(convert(e) for e in expr)
        comb = reducer.combiner([e.dtype for e in src])
        ini = () if init is None else tuple(convert(x, e.dtype) for x, e in zip(init, src))
        return tuple(Reduce(comb, src, axes, cond, i, ini) for i in range(len(src)))
    src = (convert(expr),)
    comb = reducer.combiner([src[0].dtype])
    ini = () if init is None else (convert(init, src[0].dtype),)
    return Reduce(comb, src, axes, cond, 0, ini)


def comm_reducer(fcombine: Callable, fidentity: Callable, name: str = "reduce") -> Reducer:
    """Make a commutative reducer from ``fcombine(x, y)`` and ``fidentity(dtype)``.

    For a tuple reducer (argmax) ``fcombine`` takes and returns tuples and ``fidentity`` takes
    one dtype per element.
    """
    return Reducer(fcombine, fidentity, name)


sum = comm_reducer(lambda x, y: x + y, lambda t: const(0, t), name="sum")  # noqa: A001
min = comm_reducer(_min, max_value, name="min")  # noqa: A001
max = comm_reducer(_max, min_value, name="max")  # noqa: A001


_expr._install_op(_sys.modules[__name__])  # PrimExpr operators call this module

__all__ = [n for n in dir() if not n.startswith("_")]
