"""Helpers of the type relations: argument checks with clear messages."""
from __future__ import annotations

from typing import Sequence, Tuple

from ...error import TVMError
from ..ty import TensorType, TupleType, Type


class RelayTypeError(TVMError):
    """A type relation rejected its arguments (wrong rank, shape or dtype)."""


def tensor_arg(op: str, types: Sequence[Type], i: int, what: str = "") -> TensorType:
    t = types[i]
    if not isinstance(t, TensorType):
        raise RelayTypeError(f"{op}: argument {i}{' (' + what + ')' if what else ''} must be "
                             f"a tensor, got {t!r}")
    return t


def ndim_arg(op: str, types: Sequence[Type], i: int, ndim: int, what: str,
             layout: str = "") -> TensorType:
    t = tensor_arg(op, types, i, what)
    if len(t.shape) != ndim:
        lay = f" ({layout})" if layout else ""
        raise RelayTypeError(f"{op}: {what} must be {ndim}-D{lay}, got shape {t.shape}")
    return t


def same_dtype(op: str, a: TensorType, b: TensorType, what: str = "operands") -> None:
    if a.dtype != b.dtype:
        raise RelayTypeError(f"{op}: {what} have different dtypes {a.dtype} and {b.dtype}")


def broadcast_shapes(op: str, s1: Tuple[int, ...], s2: Tuple[int, ...]) -> Tuple[int, ...]:
    """NumPy broadcasting of two static shapes, with an error naming both."""
    n = max(len(s1), len(s2))
    a = (1,) * (n - len(s1)) + tuple(s1)
    b = (1,) * (n - len(s2)) + tuple(s2)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if not (isinstance(x, int) and isinstance(y, int)):
            out.append(_broadcast_symbolic(x, y))
            continue
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise RelayTypeError(f"{op}: shapes {tuple(s1)} and {tuple(s2)} do not broadcast "
                                 f"(dimension {i}: {x} vs {y})")
    return tuple(out)


def _broadcast_symbolic(x, y):
    """One broadcast dimension where one side is symbolic (a variable or ``relay.Any()``):
    a 1 gives the other side, a known size other than 1 is what the symbolic side must be,
    the same expression stays, and two different unknowns give ``Any``."""
    from ...ir.structural import structural_equal
    from ...tir.expr import Any
    if isinstance(x, int):
        x, y = y, x
    if isinstance(y, int):
        return x if y == 1 else y
    if structural_equal(x, y, map_free_vars=False):
        return x
    return Any()


def norm_axis(op: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise RelayTypeError(f"{op}: axis {axis} is out of range for {ndim} dimension(s)")
    return axis + ndim if axis < 0 else axis


def tuple_arg(op: str, t: Type) -> TupleType:
    if not isinstance(t, TupleType):
        raise RelayTypeError(f"{op}: expects a tuple of tensors, got {t!r}")
    return t


def topi_rel(name: str):
    """A type relation that asks the op's one TOPI compute: placeholders of the argument
    types go through the op's generic ``fcompute`` and the output's shape and dtype are
    read back (the shape rules of slicing, gathering, padding… live in TOPI only)."""
    def rel(types: Sequence[Type], attrs) -> Type:
        from ...te.operation import placeholder
        from ...topi.utils import get_const_tuple
        from .registry import get
        ins = []
        for i, t in enumerate(types):
            if isinstance(t, TupleType):
                ins.extend(placeholder(tensor_arg(name, t.fields, j).shape,
                                       t.fields[j].dtype) for j in range(len(t.fields)))
            else:
                t = tensor_arg(name, types, i)
                ins.append(placeholder(t.shape, t.dtype))
        fcompute = get(name).strategies["generic"][0]
        try:
            outs = fcompute(attrs, ins, None)
        except RelayTypeError:
            raise
        except (TVMError, ValueError, TypeError, IndexError) as e:
            raise RelayTypeError(f"{name}: {e}") from None
        res = [TensorType(get_const_tuple(o.shape), o.dtype) for o in outs]
        return res[0] if len(res) == 1 else TupleType(res)
    return rel
