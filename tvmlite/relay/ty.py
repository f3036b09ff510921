"""Relay types: ``TensorType`` (static shape + dtype), ``TupleType`` and ``FuncType``."""
from __future__ import annotations

from typing import Sequence, Tuple

from ..error import TVMError


class Type:
    """Base class of relay types (compared structurally)."""

    __slots__ = ()


class TensorType(Type):
    """A tensor of static ``shape`` (ints) and ``dtype``."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: Sequence[int], dtype: str = "float32"):
        try:
            shape = tuple(int(d) for d in shape)
        except (TypeError, ValueError):
            raise TVMError(f"TensorType: shape must be a sequence of ints, got {shape!r} "
                           "(dynamic shapes are not supported yet)") from None
        if any(d < 0 for d in shape):
            raise TVMError(f"TensorType: negative dimension in shape {shape}")
        self.shape: Tuple[int, ...] = shape
        self.dtype = str(dtype)

    @property
    def concrete_shape(self) -> Tuple[int, ...]:
        return self.shape

    def __eq__(self, other) -> bool:
        return (isinstance(other, TensorType) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return type_str(self)


class TupleType(Type):
    """A tuple of ``fields`` types."""

    __slots__ = ("fields",)

    def __init__(self, fields: Sequence[Type]):
        self.fields = tuple(fields)

    def __eq__(self, other) -> bool:
        return isinstance(other, TupleType) and self.fields == other.fields

    def __hash__(self) -> int:
        return hash(self.fields)

    def __repr__(self) -> str:
        return type_str(self)


class FuncType(Type):
    """The type of a function: ``arg_types -> ret_type``."""

    __slots__ = ("arg_types", "ret_type")

    def __init__(self, arg_types: Sequence[Type], ret_type: Type):
        self.arg_types, self.ret_type = tuple(arg_types), ret_type

    def __eq__(self, other) -> bool:
        return (isinstance(other, FuncType) and self.arg_types == other.arg_types
                and self.ret_type == other.ret_type)

    def __hash__(self) -> int:
        return hash((self.arg_types, self.ret_type))

    def __repr__(self) -> str:
        return type_str(self)


def type_str(t: Type) -> str:
    """The classic text form: ``Tensor[(1, 3), float32]``, ``(Tensor[...], ...)``."""
    if isinstance(t, TensorType):
        dims = ", ".join(map(str, t.shape)) + ("," if len(t.shape) == 1 else "")
        return f"Tensor[({dims}), {t.dtype}]"
    if isinstance(t, TupleType):
        inner = ", ".join(type_str(f) for f in t.fields) + ("," if len(t.fields) == 1 else "")
        return f"({inner})"
    if isinstance(t, FuncType):
        return f"fn ({', '.join(type_str(a) for a in t.arg_types)}) -> {type_str(t.ret_type)}"
    return repr(t)
