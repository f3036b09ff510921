"""Classic runtime containers (``tvm.runtime.container``, ``tvm.container``) and
``tvm.runtime.convert``; the container classes live in :mod:`tvmlite.ir.container`."""
from __future__ import annotations

from ..ir.container import Array, Map, ShapeTuple, String, getitem_helper
from ..tir.expr import IterVar, Node, PrimExpr
from ..tir.op import convert as to_expr
from .packed_func import PackedFunc

__all__ = ["tuple_object", "ADT", "Array", "Map", "ShapeTuple", "String", "getitem_helper",
           "convert", "convert_to_object"]


class ADT(tuple):
    """Classic's algebraic data type value (``ADT(tag, fields)``): a tuple's value (tag 0) or
    a value a relay ``Constructor`` built (its tag); iterates, indexes and ``len``s as its
    fields. ``ADT(fields)`` is a tuple value."""

    def __new__(cls, tag=0, fields=None):
        if fields is None and not isinstance(tag, int):
            tag, fields = 0, tag
        obj = super().__new__(cls, fields or ())
        obj._tag = int(tag)
        return obj

    @property
    def tag(self) -> int:
        return self._tag

    @property
    def fields(self) -> list:
        return list(self)

    def __repr__(self) -> str:
        return f"ADT(tag={self._tag}, {list(self)!r})"

    def __reduce__(self):
        return ADT, (self._tag, list(self))


def tuple_object(fields=None) -> ADT:
    """A tuple value of ``fields`` (classic ``container.tuple_object``)."""
    return ADT(0, list(fields or ()))


def convert(value):
    """Convert a Python value to its IR form (``tvm.runtime.convert``): numbers and bools to
    ``IntImm``/``FloatImm`` (int32, float32), strings to :class:`String`, lists/tuples and dicts
    element by element, Python callables to ``PackedFunc``; IR objects pass through."""
    if isinstance(value, (Node, PrimExpr, IterVar, PackedFunc)) or getattr(
            type(value), "_ir_object", False):  # relay's expressions and types mark themselves
        return value
    if isinstance(value, str):
        return String(value)
    if isinstance(value, (list, tuple)):
        return Array(convert(v) for v in value)
    if isinstance(value, dict):
        return Map({convert(k): convert(v) for k, v in value.items()})
    if value is None:
        return None
    if callable(value):
        return PackedFunc(value)
    return to_expr(value)


convert_to_object = convert
