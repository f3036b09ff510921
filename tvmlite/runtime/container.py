"""Classic runtime containers (``tvm.runtime.container``, ``tvm.container``, ``tvm.ir.Array``/
``Map``). tvmlite keeps Python lists, tuples, dicts and strings; these names accept them, so
``isinstance(bounds, tvm.container.Map)`` holds for the dict ``InferBound`` returns."""
from __future__ import annotations


class _AcceptsBuiltins(type):
    """``isinstance(x, C)`` is true for the Python builtins ``C`` stands for."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls._accepts)

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, cls._accepts)


class Array(list, metaclass=_AcceptsBuiltins):
    """A classic ``Array``: any list or tuple is one."""

    _accepts = (list, tuple)


class Map(dict, metaclass=_AcceptsBuiltins):
    """A classic ``Map``: any dict is one."""

    _accepts = (dict,)


class String(str, metaclass=_AcceptsBuiltins):
    """A classic runtime ``String``: any str is one."""

    _accepts = (str,)


class ShapeTuple(tuple, metaclass=_AcceptsBuiltins):
    """A classic ``ShapeTuple``: a tuple of ints."""

    _accepts = (tuple,)

    def __new__(cls, shape=()):
        return super().__new__(cls, (int(x) for x in shape))


def getitem_helper(obj, elem_getter, length: int, idx):
    """Index ``obj`` of ``length`` through ``elem_getter(obj, i)``, with negative indices and
    slices, as classic containers do."""
    if isinstance(idx, slice):
        return [elem_getter(obj, i) for i in range(*idx.indices(length))]
    if idx < -length or idx >= length:
        raise IndexError(f"Index out of range. size: {length}, got index {idx}")
    return elem_getter(obj, idx + length if idx < 0 else idx)


def convert(value):
    """Convert a Python value to its IR form (``tvm.runtime.convert``): numbers and bools to
    ``IntImm``/``FloatImm`` (int32, float32), strings to :class:`String`, lists/tuples and dicts
    element by element, Python callables to ``PackedFunc``; IR objects pass through."""
    from ..tir.expr import IterVar, Node, PrimExpr
    from ..tir.op import convert as to_expr
    from .packed_func import PackedFunc

    if isinstance(value, (Node, PrimExpr, IterVar, PackedFunc)):
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
