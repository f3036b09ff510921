"""Visitors and mutators of relay types (``relay.TypeFunctor``, ``relay.TypeVisitor``,
``relay.TypeMutator``) over the types tvmlite has: tensor, tuple, function and incomplete
types. Each type is visited once (memoized); a mutator rebuilds a type only when a part
changes."""
from __future__ import annotations

from typing import Any, Dict

from ..error import TVMError
from .ty import FuncType, IncompleteType, TensorType, TupleType, Type


class TypeFunctor:
    """Dispatch on the kind of type to ``visit_<kind>_type`` (override them)."""

    def __init__(self) -> None:
        self.memo_map: Dict[int, Any] = {}
        self._keep: list = []

    def visit(self, typ: Type) -> Any:
        """The result of visiting ``typ`` (computed once per type object)."""
        if id(typ) in self.memo_map:
            return self.memo_map[id(typ)]
        if isinstance(typ, TensorType):
            res = self.visit_tensor_type(typ)
        elif isinstance(typ, TupleType):
            res = self.visit_tuple_type(typ)
        elif isinstance(typ, FuncType):
            res = self.visit_func_type(typ)
        elif isinstance(typ, IncompleteType):
            res = self.visit_incomplete_type(typ)
        else:
            raise TVMError(f"{type(self).__name__}: cannot visit {type(typ).__name__}")
        self.memo_map[id(typ)] = res
        self._keep.append(typ)
        return res

    def visit_incomplete_type(self, it: IncompleteType) -> Any:
        raise NotImplementedError

    def visit_tensor_type(self, tt: TensorType) -> Any:
        raise NotImplementedError

    def visit_func_type(self, ft: FuncType) -> Any:
        raise NotImplementedError

    def visit_tuple_type(self, tt: TupleType) -> Any:
        raise NotImplementedError


class TypeVisitor(TypeFunctor):
    """Visit every part of a type."""

    def visit_incomplete_type(self, it: IncompleteType) -> None:
        pass

    def visit_tensor_type(self, tt: TensorType) -> None:
        pass

    def visit_func_type(self, ft: FuncType) -> None:
        for t in ft.arg_types:
            self.visit(t)
        self.visit(ft.ret_type)

    def visit_tuple_type(self, tt: TupleType) -> None:
        for t in tt.fields:
            self.visit(t)


class TypeMutator(TypeFunctor):
    """Rebuild a type from its visited parts (the type itself when none changes)."""

    def visit_incomplete_type(self, it: IncompleteType) -> Type:
        return it

    def visit_tensor_type(self, tt: TensorType) -> Type:
        return tt

    def visit_func_type(self, ft: FuncType) -> Type:
        args = [self.visit(t) for t in ft.arg_types]
        ret = self.visit(ft.ret_type)
        if ret is ft.ret_type and all(a is b for a, b in zip(args, ft.arg_types)):
            return ft
        return FuncType(args, ret)

    def visit_tuple_type(self, tt: TupleType) -> Type:
        fields = [self.visit(t) for t in tt.fields]
        if all(a is b for a, b in zip(fields, tt.fields)):
            return tt
        return TupleType(fields)


__all__ = ["TypeFunctor", "TypeVisitor", "TypeMutator"]
