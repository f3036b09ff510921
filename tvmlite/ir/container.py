"""Classic containers (``tvm.ir.Array``/``Map``, ``tvm.runtime.container``). tvmlite keeps
Python lists, tuples, dicts and strings; these names accept them, so
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
