"""Visitors and mutators of relay types (``relay.TypeFunctor``, ``relay.TypeVisitor``,
``relay.TypeMutator``): tensor, tuple, function, incomplete and reference types, type
variables, ADT names and applications, type relations and ADT definitions. Each type is
visited once (memoized); a mutator rebuilds a type only when a part changes."""
from __future__ import annotations

from typing import Any, Dict

from ..error import TVMError
from .ty import (
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    TypeRelation,
    TypeVar,
)


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
        elif isinstance(typ, TypeVar):
            res = self.visit_type_var(typ)
        elif isinstance(typ, GlobalTypeVar):
            res = self.visit_global_type_var(typ)
        elif isinstance(typ, TypeCall):
            res = self.visit_type_call(typ)
        elif isinstance(typ, RefType):
            res = self.visit_ref_type(typ)
        elif isinstance(typ, TypeRelation):
            res = self.visit_type_relation(typ)
        elif getattr(typ, "_is_type_data", False):
            res = self.visit_type_data(typ)
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

    def visit_type_var(self, tv: TypeVar) -> Any:
        raise NotImplementedError

    def visit_global_type_var(self, gtv: GlobalTypeVar) -> Any:
        raise NotImplementedError

    def visit_type_call(self, tc: TypeCall) -> Any:
        raise NotImplementedError

    def visit_ref_type(self, rt: RefType) -> Any:
        raise NotImplementedError

    def visit_type_relation(self, tr: TypeRelation) -> Any:
        raise NotImplementedError

    def visit_type_data(self, td) -> Any:
        raise NotImplementedError


class TypeVisitor(TypeFunctor):
    """Visit every part of a type."""

    def visit_incomplete_type(self, it: IncompleteType) -> None:
        pass

    def visit_tensor_type(self, tt: TensorType) -> None:
        pass

    def visit_func_type(self, ft: FuncType) -> None:
        for t in list(ft.type_params) + list(ft.arg_types):
            self.visit(t)
        self.visit(ft.ret_type)

    def visit_tuple_type(self, tt: TupleType) -> None:
        for t in tt.fields:
            self.visit(t)

    def visit_type_var(self, tv: TypeVar) -> None:
        pass

    def visit_global_type_var(self, gtv: GlobalTypeVar) -> None:
        pass

    def visit_type_call(self, tc: TypeCall) -> None:
        self.visit(tc.func)
        for t in tc.args:
            self.visit(t)

    def visit_ref_type(self, rt: RefType) -> None:
        self.visit(rt.value)

    def visit_type_relation(self, tr: TypeRelation) -> None:
        for t in tr.args:
            self.visit(t)

    def visit_type_data(self, td) -> None:
        self.visit(td.header)
        for t in td.type_vars:
            self.visit(t)


class TypeMutator(TypeFunctor):
    """Rebuild a type from its visited parts (the type itself when none changes)."""

    def visit_incomplete_type(self, it: IncompleteType) -> Type:
        return it

    def visit_tensor_type(self, tt: TensorType) -> Type:
        return tt

    def visit_func_type(self, ft: FuncType) -> Type:
        params = [self.visit(t) for t in ft.type_params]
        for p in params:
            if not isinstance(p, TypeVar):
                raise TVMError(f"{type(self).__name__}: a function type's type parameter "
                               f"must stay a TypeVar, got {type(p).__name__}")
        args = [self.visit(t) for t in ft.arg_types]
        ret = self.visit(ft.ret_type)
        if ret is ft.ret_type and all(a is b for a, b in zip(args, ft.arg_types)) and \
                all(a is b for a, b in zip(params, ft.type_params)):
            return ft
        return FuncType(args, ret, params)

    def visit_tuple_type(self, tt: TupleType) -> Type:
        fields = [self.visit(t) for t in tt.fields]
        if all(a is b for a, b in zip(fields, tt.fields)):
            return tt
        return TupleType(fields)

    def visit_type_var(self, tv: TypeVar) -> Type:
        return tv

    def visit_global_type_var(self, gtv: GlobalTypeVar) -> Type:
        return gtv

    def visit_type_call(self, tc: TypeCall) -> Type:
        func = self.visit(tc.func)
        args = [self.visit(t) for t in tc.args]
        if func is tc.func and all(a is b for a, b in zip(args, tc.args)):
            return tc
        return TypeCall(func, args)

    def visit_ref_type(self, rt: RefType) -> Type:
        value = self.visit(rt.value)
        return rt if value is rt.value else RefType(value)

    def visit_type_relation(self, tr: TypeRelation) -> Type:
        args = [self.visit(t) for t in tr.args]
        if all(a is b for a, b in zip(args, tr.args)):
            return tr
        return TypeRelation(tr.func, args, tr.num_inputs, tr.attrs)

    def visit_type_data(self, td):
        return td


__all__ = ["TypeFunctor", "TypeVisitor", "TypeMutator"]
