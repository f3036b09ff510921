"""Unary elementwise operators (``topi.sqrt`` …): a stage named ``compute`` with axes
``i0, i1, …`` and tag "elemwise", as classic TOPI writes them with ``te.compute``."""
from __future__ import annotations

from typing import Callable

from ..ir import dtype as _dt
from ..te.operation import compute
from ..te.tensor import Tensor
from ..tir import op as _op
from ..tir.expr import PrimExpr
from . import tag


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
erf = _make_unary("erf", _op.erf)
abs = _make_unary("abs", _op.abs)  # noqa: A001  (TOPI's name)
floor = _make_unary("floor", _op.floor)
ceil = _make_unary("ceil", _op.ceil)
round = _make_unary("round", _op.round)  # noqa: A001
trunc = _make_unary("trunc", _op.trunc)
isnan = _make_unary("isnan", _op.isnan)
negative = _make_unary("negative", _op.neg)
identity = _make_unary("identity", lambda v: v)
logical_not = _make_unary("logical_not", _op.logical_not)
bitwise_not = _make_unary("bitwise_not", _op.bitwise_not)


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


__all__ = ["sqrt", "rsqrt", "exp", "log", "log2", "log10", "tanh", "sigmoid", "sin", "cos",
           "erf", "abs", "floor", "ceil", "round", "trunc", "isnan", "negative", "identity",
           "logical_not", "bitwise_not", "sign", "clip", "cast"]
