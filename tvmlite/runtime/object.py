"""Classic ``tvm.runtime.Object``: the base of TVM's objects. tvmlite's objects have no one
base class, so ``isinstance(x, Object)`` recognizes them: IR nodes, relay expressions and
types, runtime containers (ADT, String, Array, Map)."""
from __future__ import annotations


class _ObjectMeta(type):
    def __instancecheck__(cls, inst) -> bool:
        if type.__instancecheck__(cls, inst):
            return True
        from ..ir.container import Array, Map, String
        from ..tir.expr import Node
        from .container import ADT
        return isinstance(inst, (Node, ADT, Array, Map, String)) or \
            bool(getattr(type(inst), "_ir_object", False))


class Object(metaclass=_ObjectMeta):
    """The base of TVM objects (classic ``tvm.runtime.Object``)."""

    __slots__ = ()


__all__ = ["Object"]
