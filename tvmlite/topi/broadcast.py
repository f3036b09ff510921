"""Broadcasting elementwise binary operators (``topi.add`` …) with numpy's rules.

Tensor with tensor gives a stage named ``T_<op>`` tagged "broadcast", axes ``ax0, ax1, …``;
tensor with scalar gives the same name tagged "elemwise"; two scalars give an expression.
"""
from __future__ import annotations

from typing import Callable, List, Tuple

from ..ir import dtype as _dt
from ..te.operation import compute
from ..te.tensor import Tensor, TensorSlice, _dim_equal
from ..tir import op as _op
from ..tir.expr import IntImm, PrimExpr
from . import tag
from .utils import TopiError


def _is_one(e) -> bool:
    return isinstance(e, IntImm) and e.value == 1


def _same_dim(a, b) -> bool:
    return _dim_equal(a, b)


def broadcast_shape(shape1, shape2) -> Tuple[PrimExpr, ...]:
    """The numpy broadcast of two shapes; a ValueError when they do not broadcast."""
    s1, s2 = [_op.convert(x) for x in shape1], [_op.convert(x) for x in shape2]
    n = max(len(s1), len(s2))
    s1 = [IntImm("int32", 1)] * (n - len(s1)) + s1
    s2 = [IntImm("int32", 1)] * (n - len(s2)) + s2
    out = []
    for a, b in zip(s1, s2):
        if _same_dim(a, b):
            out.append(a)
        elif _is_one(a):
            out.append(b)
        elif _is_one(b):
            out.append(a)
        elif isinstance(a, IntImm) and isinstance(b, IntImm):
            raise TopiError(f"Incompatible broadcast dims: {a.value} and {b.value} in shapes "
                             f"{list(shape1)} and {list(shape2)}")
        elif isinstance(a, IntImm):
            out.append(a)
        elif isinstance(b, IntImm):
            out.append(b)
        else:
            out.append(_op._max(a, b))
    return tuple(out)


def _bcast_index(t: Tensor, out_shape, idx) -> List[PrimExpr]:
    """Indices into ``t`` for output element ``idx`` (size-1 dimensions read element 0)."""
    off = len(out_shape) - t.ndim
    res = []
    for d, dim in enumerate(t.shape):
        o = out_shape[off + d]
        if _is_one(_op.convert(dim)) and not _is_one(o):
            res.append(IntImm(idx[off + d].dtype, 0))
        else:
            res.append(idx[off + d])
    return res


def _is_scalar(x) -> bool:
    return not isinstance(x, Tensor)


def _scalar(x, other_dtype: str) -> PrimExpr:
    if isinstance(x, TensorSlice):
        return x.asobject()
    return _op.convert(x, other_dtype)


def _make_bcast(name: str, fop: Callable[[PrimExpr, PrimExpr], PrimExpr]):
    stage = "T_" + name

    def f(lhs, rhs):
        if _is_scalar(lhs) and _is_scalar(rhs):
            return fop(*_op._operands(lhs, rhs))
        if isinstance(lhs, Tensor) and isinstance(rhs, Tensor):
            out = broadcast_shape(lhs.shape, rhs.shape)
            return compute(
                out, lambda *i: fop(lhs(*_bcast_index(lhs, out, i)),
                                    rhs(*_bcast_index(rhs, out, i))),
                name=stage, tag=tag.BROADCAST,
                varargs_names=[f"ax{k}" for k in range(len(out))])
        if isinstance(lhs, Tensor):
            b = _scalar(rhs, lhs.dtype)
            return compute(lhs.shape, lambda *i: fop(lhs(*i), b), name=stage,
                           tag=tag.ELEMWISE, varargs_names=[f"ax{k}" for k in range(lhs.ndim)])
        a = _scalar(lhs, rhs.dtype)
        return compute(rhs.shape, lambda *i: fop(a, rhs(*i)), name=stage, tag=tag.ELEMWISE,
                       varargs_names=[f"ax{k}" for k in range(rhs.ndim)])

    f.__name__ = name
    f.__doc__ = (f"Elementwise ``{name}`` with numpy broadcasting (stage ``{stage}``); returns "
                 "an expression when both operands are scalars.")
    return f


def _floor_divide(a, b):
    if _dt.is_float(a.dtype) or _dt.is_float(b.dtype):
        return _op.floor(_op.true_div(a, b))
    return _op.floordiv(a, b)


def _floor_mod(a, b):
    if _dt.is_float(a.dtype) or _dt.is_float(b.dtype):
        return _op.sub(a, _op.mul(_op.floor(_op.true_div(a, b)), b))
    return _op.floormod(a, b)


def _divide(a, b):
    return _op.div(a, b)


add = _make_bcast("add", _op.add)
subtract = _make_bcast("subtract", _op.sub)
multiply = _make_bcast("multiply", _op.mul)
divide = _make_bcast("divide", _divide)
floor_divide = _make_bcast("floor_divide", _floor_divide)
mod = _make_bcast("mod", _op.truncmod)
floor_mod = _make_bcast("floor_mod", _floor_mod)
power = _make_bcast("power", _op.power)
maximum = _make_bcast("maximum", _op._max)
minimum = _make_bcast("minimum", _op._min)
equal = _make_bcast("equal", _op.eq)
not_equal = _make_bcast("not_equal", _op.ne)
less = _make_bcast("less", _op.lt)
greater = _make_bcast("greater", _op.gt)
less_equal = _make_bcast("less_equal", _op.le)
greater_equal = _make_bcast("greater_equal", _op.ge)
logical_and = _make_bcast("logical_and", _op.logical_and)
logical_or = _make_bcast("logical_or", _op.logical_or)
logical_xor = _make_bcast(
    "logical_xor", lambda a, b: _op.logical_and(_op.logical_or(a, b),
                                                _op.logical_not(_op.logical_and(a, b))))
bitwise_and = _make_bcast("bitwise_and", _op.bitwise_and)
bitwise_or = _make_bcast("bitwise_or", _op.bitwise_or)
bitwise_xor = _make_bcast("bitwise_xor", _op.bitwise_xor)
left_shift = _make_bcast("left_shift", _op.shift_left)
right_shift = _make_bcast("right_shift", _op.shift_right)


def broadcast_to(data: Tensor, shape) -> Tensor:
    """Broadcast ``data`` to ``shape`` (stage ``T_broadcast_to``)."""
    out = broadcast_shape(data.shape, shape)
    if len(out) != len(shape) or not all(_same_dim(a, b) for a, b in zip(out, shape)):
        raise TopiError(f"cannot broadcast shape {list(data.shape)} to {list(shape)}")
    return compute(out, lambda *i: data(*_bcast_index(data, out, i)), name="T_broadcast_to",
                   tag=tag.BROADCAST, varargs_names=[f"ax{k}" for k in range(len(out))])


__all__ = ["broadcast_shape", "broadcast_to", "add", "subtract", "multiply", "divide",
           "floor_divide", "mod", "floor_mod", "power", "maximum", "minimum", "equal",
           "not_equal", "less", "greater", "less_equal", "greater_equal", "logical_and",
           "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
           "left_shift", "right_shift"]
