"""Elementwise operators (``topi.sqrt`` …, ``topi.elemwise_sum``): unary ones are a stage named
``compute`` with axes ``i0, i1, …`` and tag "elemwise", as classic TOPI writes them with
``te.compute``."""
from __future__ import annotations

from typing import Callable

from ..ir import dtype as _dt
from ..te.operation import compute
from ..te.tensor import Tensor
from ..tir import op as _op
from ..tir.expr import Let, PrimExpr, Var
from . import tag
from .utils import TopiError


def _check(x, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"topi.{name} expects a Tensor, got {x!r}")
    return x


def _make_unary(name: str, fop: Callable[[PrimExpr], PrimExpr]):
    def f(x: Tensor) -> Tensor:
        x = _check(x, name)
        return compute(x.shape, lambda *i: fop(x(*i)), tag=tag.ELEMWISE)

    f.__name__ = name
    f.__doc__ = f"Elementwise ``{name}`` of a tensor (stage ``compute``)."
    return f


sqrt = _make_unary("sqrt", _op.sqrt)
rsqrt = _make_unary("rsqrt", _op.rsqrt)
exp = _make_unary("exp", _op.exp)
log = _make_unary("log", _op.log)
log2 = _make_unary("log2", _op.log2)
log10 = _make_unary("log10", _op.log10)
tanh = _make_unary("tanh", _op.tanh)
sigmoid = _make_unary("sigmoid", _op.sigmoid)
sin = _make_unary("sin", _op.sin)
cos = _make_unary("cos", _op.cos)
tan = _make_unary("tan", _op.tan)
sinh = _make_unary("sinh", _op.sinh)
cosh = _make_unary("cosh", _op.cosh)
asin = _make_unary("asin", _op.asin)
acos = _make_unary("acos", _op.acos)
atan = _make_unary("atan", _op.atan)
asinh = _make_unary("asinh", _op.asinh)
acosh = _make_unary("acosh", _op.acosh)
atanh = _make_unary("atanh", _op.atanh)
erf = _make_unary("erf", _op.erf)
abs = _make_unary("abs", _op.abs)  # noqa: A001  (TOPI's name)
floor = _make_unary("floor", _op.floor)
ceil = _make_unary("ceil", _op.ceil)
round = _make_unary("round", _op.round)  # noqa: A001
trunc = _make_unary("trunc", _op.trunc)
isnan = _make_unary("isnan", _op.isnan)
isinf = _make_unary("isinf", _op.isinf)
isfinite = _make_unary("isfinite", _op.isfinite)
negative = _make_unary("negative", _op.neg)
identity = _make_unary("identity", lambda v: v)
logical_not = _make_unary("logical_not", _op.logical_not)
bitwise_not = _make_unary("bitwise_not", _op.bitwise_not)


def elemwise_sum(xs) -> Tensor:
    """The elementwise sum of tensors of one shape and dtype (stage ``T_elemwise_sum``, axes
    ``ax*``)."""
    xs = [_check(x, "elemwise_sum") for x in xs]
    if not xs:
        raise TopiError("elemwise_sum: needs at least one tensor")
    shape = [str(d) for d in xs[0].shape]
    for x in xs[1:]:
        if [str(d) for d in x.shape] != shape or x.dtype != xs[0].dtype:
            raise TopiError(f"elemwise_sum: tensors differ in shape or dtype "
                            f"({list(xs[0].shape)} {xs[0].dtype} vs {list(x.shape)} {x.dtype})")

    def f(*i):
        acc = xs[0](*i)
        for x in xs[1:]:
            acc = _op.add(acc, x(*i))
        return acc
    return compute(xs[0].shape, f, name="T_elemwise_sum", tag=tag.ELEMWISE,
                   varargs_names=[f"ax{k}" for k in range(xs[0].ndim)])


def sign(x: Tensor) -> Tensor:
    """-1, 0 or 1 elementwise (stage ``compute``)."""
    x = _check(x, "sign")

    def f(*i):
        v = x(*i)
        one, zero = _op.const(1, v.dtype), _op.const(0, v.dtype)
        return _op.if_then_else(_op.gt(v, zero), one,
                                _op.if_then_else(_op.lt(v, zero), _op.neg(one), zero))
    return compute(x.shape, f, tag=tag.ELEMWISE)


def clip(x: Tensor, a_min, a_max) -> Tensor:
    """Clamp ``x`` into ``[a_min, a_max]`` (stage ``compute``)."""
    x = _check(x, "clip")

    def f(*i):
        v = x(*i)
        return _op._max(_op._min(v, _op.cast(v.dtype, a_max)), _op.cast(v.dtype, a_min))
    return compute(x.shape, f, tag=tag.ELEMWISE)


def cast(x, dtype: str):
    """Cast a tensor (stage ``T_cast``, axes ``ax*``) or an expression to ``dtype``."""
    dtype = _dt.canonical(dtype)
    if isinstance(x, Tensor):
        return compute(x.shape, lambda *i: _op.cast(dtype, x(*i)), name="T_cast",
                       tag=tag.ELEMWISE, varargs_names=[f"ax{k}" for k in range(x.ndim)])
    return _op.cast(dtype, x)


def reinterpret(x: Tensor, dtype: str) -> Tensor:
    """Reinterpret the bits of each element as ``dtype`` (of the same width; stage
    ``tensor``, tag "elemwise")."""
    x = _check(x, "reinterpret")
    dtype = _dt.canonical(dtype)
    if _dt.bits(dtype) != _dt.bits(x.dtype):
        raise TopiError(f"reinterpret: dtype {dtype} is not as wide as the input's {x.dtype}")
    return compute(x.shape, lambda *i: _op.reinterpret(dtype, x(*i)), name="tensor",
                   tag=tag.ELEMWISE)


def fixed_point_multiply(x: Tensor, multiplier: int, shift: int) -> Tensor:
    """``round(x * multiplier * 2 ** (shift - 31))`` of int32 ``x`` in 64-bit integer
    arithmetic (classic ``q_multiply_shift`` with Q31 ``multiplier``): ``x << max(shift,
    0)``, times ``multiplier``, plus half the divisor, arithmetically shifted right by ``31 +
    max(-shift, 0)`` (stage ``compute``, tag "elemwise")."""
    x = _check(x, "fixed_point_multiply")
    if x.dtype != "int32":
        raise TopiError(f"fixed_point_multiply: x must be int32, got {x.dtype}")
    left, right = max(int(shift), 0), 31 + max(-int(shift), 0)

    def f(*i):
        v = _op.cast("int64", x(*i))
        if left:
            v = _op.shift_left(v, _op.const(left, "int64"))
        v = v * _op.const(int(multiplier), "int64") + _op.const(1 << (right - 1), "int64")
        return _op.cast("int32", _op.shift_right(v, _op.const(right, "int64")))
    return compute(x.shape, f, tag=tag.ELEMWISE)


def _fast_exp_expr(v: PrimExpr) -> PrimExpr:
    """``exp(v)`` for float32 by range reduction ``v = n*ln2 + f`` (``|f| <= ln2/2``), a degree-7
    polynomial for ``exp(f)`` and ``2**n`` built in the exponent bits (as ``2 * 2**(n-1)``, so
    that ``n = 128`` at the top of the range stays finite). Inputs are clamped to
    ``[-86.6, 88.376]``: below, the result is ~1e-38 instead of smaller."""
    c = lambda x: _op.const(x, "float32")  # noqa: E731
    xv, nv, fv = Var("fx", "float32"), Var("fn", "float32"), Var("ff", "float32")
    p = c(1.9875691500e-4)
    for coef in (1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
                 5.0000001201e-1):
        p = _op.add(_op.mul(p, fv), c(coef))
    p = _op.add(_op.add(_op.mul(_op.mul(p, fv), fv), fv), c(1.0))
    bits = _op.shift_left(_op.add(_op.cast("int32", nv), _op.const(126, "int32")),
                          _op.const(23, "int32"))
    body = _op.mul(_op.mul(p, c(2.0)), _op.reinterpret("float32", bits))
    f = _op.sub(_op.sub(xv, _op.mul(nv, c(0.693359375))), _op.mul(nv, c(-2.12194440e-4)))
    n = _op.floor(_op.add(_op.mul(xv, c(1.44269504088896341)), c(0.5)))
    x = _op._max(_op._min(v, c(88.3762626647949)), c(-86.6))
    # let-bound so that each intermediate is computed once
    return Let(xv, x, Let(nv, n, Let(fv, f, body)))


def _exact(x: Tensor, fn, name: str) -> Tensor:
    """The exact op where a fast one has no polynomial for the dtype (classic's fallback)."""
    return compute(x.shape, lambda *i: fn(x(*i)), name=name, tag=tag.ELEMWISE)


def fast_exp(x: Tensor) -> Tensor:
    """``exp`` by a float32 polynomial (relative error ~1e-7; stage ``T_fast_exp``); other
    dtypes compute the exact ``exp``, as classic TOPI does."""
    x = _check(x, "fast_exp")
    if x.dtype != "float32":
        return _exact(x, _op.exp, "T_fast_exp")
    return compute(x.shape, lambda *i: _fast_exp_expr(x(*i)), name="T_fast_exp",
                   tag=tag.ELEMWISE)


def fast_tanh(x: Tensor) -> Tensor:
    """``tanh`` as ``1 - 2 / (fast_exp(2x) + 1)`` (float32; stage ``T_fast_tanh``); other
    dtypes compute the exact ``tanh``, as classic TOPI does."""
    x = _check(x, "fast_tanh")
    if x.dtype != "float32":
        return _exact(x, _op.tanh, "T_fast_tanh")
    one, two = _op.const(1.0, "float32"), _op.const(2.0, "float32")
    return compute(x.shape, lambda *i: _op.sub(one, _op.div(two, _op.add(
        _fast_exp_expr(_op.mul(two, x(*i))), one))), name="T_fast_tanh", tag=tag.ELEMWISE)


def _fast_erf_expr(v: PrimExpr) -> PrimExpr:
    """Abramowitz & Stegun 7.1.26 of the float32 value ``v``."""
    c = lambda val: _op.const(val, "float32")  # noqa: E731
    a = _op.abs(v)
    t = _op.div(c(1.0), _op.add(c(1.0), _op.mul(c(0.3275911), a)))
    p = c(1.061405429)
    for coef in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        p = _op.add(_op.mul(p, t), c(coef))
    y = _op.sub(c(1.0), _op.mul(_op.mul(p, t), _fast_exp_expr(_op.neg(_op.mul(a, a)))))
    return _op.if_then_else(_op.lt(v, c(0.0)), _op.neg(y), y)


def fast_erf(x: Tensor) -> Tensor:
    """``erf`` by Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7 before rounding; stage
    ``T_fast_erf``): float32, and float16 computed in float32; other dtypes compute the exact
    ``erf``, as classic TOPI does."""
    x = _check(x, "fast_erf")
    if x.dtype == "float32":
        return compute(x.shape, lambda *i: _fast_erf_expr(x(*i)), name="T_fast_erf",
                       tag=tag.ELEMWISE)
    if x.dtype == "float16":
        return compute(x.shape, lambda *i: _op.cast("float16", _fast_erf_expr(
            _op.cast("float32", x(*i)))), name="T_fast_erf", tag=tag.ELEMWISE)
    return _exact(x, _op.erf, "T_fast_erf")


__all__ = ["fast_exp", "fast_tanh", "fast_erf", "sqrt", "rsqrt", "exp", "log", "log2", "log10",
           "tanh", "sigmoid", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan",
           "asinh", "acosh", "atanh", "isinf", "isfinite", "reinterpret",
           "erf", "abs", "floor", "ceil", "round", "trunc", "isnan", "negative", "identity",
           "logical_not", "bitwise_not", "sign", "clip", "cast", "elemwise_sum",
           "fixed_point_multiply"]
