"""Visitors and mutators of relay expressions (``relay.ExprVisitor``, ``relay.ExprMutator``).

A subclass overrides ``visit_<kind>`` methods (``visit_call``, ``visit_constant``...) and calls
``self.visit(child)`` on the children it wants. Each node is visited once: the result is kept in
``memo_map``, so a value used twice is rewritten into one new value used twice.

They recurse once per nesting level, as classic TVM's Python functors do. The outermost
``visit`` that hits Python's recursion limit starts again, with a cleared memo, in a thread with
a big stack (:mod:`tvmlite.deep_recursion`), so a user override must not count on running once.
"""
from __future__ import annotations

from typing import Any, Dict
from typing import Tuple as PyTuple

from ..deep_recursion import run_deep
from ..error import TVMError
from ..ir.module import GlobalVar
from .adt import Clause, Constructor, Match
from .expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)
from .op.registry import Op


class ExprFunctor:
    """Dispatch on the kind of expression to ``visit_<kind>``, memoizing each node's result."""

    def __init__(self) -> None:
        # id(node) -> (node, result): the node is kept so that its id is not reused
        self.memo_map: Dict[int, PyTuple[Any, Any]] = {}
        self._depth = 0

    def visit(self, expr) -> Any:
        """The result of visiting ``expr`` (computed once per node)."""
        hit = self.memo_map.get(id(expr))
        if hit is not None:
            return hit[1]
        if self._depth:
            return self._visit_new(expr)
        self._depth = 1
        try:
            try:
                return self._visit_new(expr)
            except RecursionError:
                pass
            self.memo_map.clear()
            return run_deep(self._visit_new, expr)
        finally:
            self._depth = 0

    def _visit_new(self, expr) -> Any:
        res = self._dispatch(expr)
        self.memo_map[id(expr)] = (expr, res)
        return res

    def _dispatch(self, expr) -> Any:
        if isinstance(expr, Function):
            return self.visit_function(expr)
        if isinstance(expr, Call):
            return self.visit_call(expr)
        if isinstance(expr, Let):
            return self.visit_let(expr)
        if isinstance(expr, Var):
            return self.visit_var(expr)
        if isinstance(expr, GlobalVar):
            return self.visit_global_var(expr)
        if isinstance(expr, If):
            return self.visit_if(expr)
        if isinstance(expr, Tuple):
            return self.visit_tuple(expr)
        if isinstance(expr, TupleGetItem):
            return self.visit_tuple_getitem(expr)
        if isinstance(expr, Constant):
            return self.visit_constant(expr)
        if isinstance(expr, Op):
            return self.visit_op(expr)
        if isinstance(expr, Constructor):
            return self.visit_constructor(expr)
        if isinstance(expr, Match):
            return self.visit_match(expr)
        if isinstance(expr, RefCreate):
            return self.visit_ref_create(expr)
        if isinstance(expr, RefRead):
            return self.visit_ref_read(expr)
        if isinstance(expr, RefWrite):
            return self.visit_ref_write(expr)
        raise TVMError(f"{type(self).__name__}: cannot visit {type(expr).__name__}")

    def visit_function(self, fn: Function) -> Any:
        raise NotImplementedError

    def visit_let(self, let: Let) -> Any:
        raise NotImplementedError

    def visit_call(self, call: Call) -> Any:
        raise NotImplementedError

    def visit_var(self, var: Var) -> Any:
        raise NotImplementedError

    def visit_global_var(self, gvar: GlobalVar) -> Any:
        raise NotImplementedError

    def visit_if(self, ite: If) -> Any:
        raise NotImplementedError

    def visit_tuple(self, tup: Tuple) -> Any:
        raise NotImplementedError

    def visit_tuple_getitem(self, item: TupleGetItem) -> Any:
        raise NotImplementedError

    def visit_constant(self, const: Constant) -> Any:
        raise NotImplementedError

    def visit_op(self, op: Op) -> Any:
        raise NotImplementedError

    def visit_constructor(self, con: Constructor) -> Any:
        raise NotImplementedError

    def visit_match(self, m: Match) -> Any:
        raise NotImplementedError

    def visit_ref_create(self, ref: RefCreate) -> Any:
        raise NotImplementedError

    def visit_ref_read(self, ref: RefRead) -> Any:
        raise NotImplementedError

    def visit_ref_write(self, ref: RefWrite) -> Any:
        raise NotImplementedError


class ExprVisitor(ExprFunctor):
    """Visit every node of an expression once (override some ``visit_<kind>``)."""

    def visit_function(self, fn: Function) -> None:
        for p in fn.params:
            self.visit(p)
        self.visit(fn.body)

    def visit_let(self, let: Let) -> None:
        self.visit(let.var)
        self.visit(let.value)
        self.visit(let.body)

    def visit_call(self, call: Call) -> None:
        self.visit(call.op)
        for a in call.args:
            self.visit(a)

    def visit_var(self, var: Var) -> None:
        pass

    def visit_global_var(self, gvar: GlobalVar) -> None:
        pass

    def visit_if(self, ite: If) -> None:
        self.visit(ite.cond)
        self.visit(ite.true_branch)
        self.visit(ite.false_branch)

    def visit_tuple(self, tup: Tuple) -> None:
        for f in tup.fields:
            self.visit(f)

    def visit_tuple_getitem(self, item: TupleGetItem) -> None:
        self.visit(item.tuple_value)

    def visit_constant(self, const: Constant) -> None:
        pass

    def visit_op(self, op: Op) -> None:
        pass

    def visit_constructor(self, con: Constructor) -> None:
        pass

    def visit_match(self, m: Match) -> None:
        self.visit(m.data)
        for c in m.clauses:
            self.visit(c.rhs)

    def visit_ref_create(self, ref: RefCreate) -> None:
        self.visit(ref.value)

    def visit_ref_read(self, ref: RefRead) -> None:
        self.visit(ref.ref)

    def visit_ref_write(self, ref: RefWrite) -> None:
        self.visit(ref.ref)
        self.visit(ref.value)


class ExprMutator(ExprFunctor):
    """Rebuild an expression from its visited children; a node whose children come back
    unchanged is returned as it is (override some ``visit_<kind>`` to rewrite)."""

    def visit_function(self, fn: Function) -> Expr:
        params = [self.visit(p) for p in fn.params]
        body = self.visit(fn.body)
        if body is fn.body and all(a is b for a, b in zip(params, fn.params)):
            return fn
        return Function(params, body, fn.ret_type, fn.type_params, fn.attrs)

    def visit_let(self, let: Let) -> Expr:
        var, value, body = self.visit(let.var), self.visit(let.value), self.visit(let.body)
        if var is let.var and value is let.value and body is let.body:
            return let
        return Let(var, value, body)

    def visit_call(self, call: Call) -> Expr:
        op = self.visit(call.op)
        args = [self.visit(a) for a in call.args]
        if op is call.op and all(a is b for a, b in zip(args, call.args)):
            return call
        return Call(op, args, call.attrs, call.type_args)

    def visit_var(self, var: Var) -> Expr:
        return var

    def visit_global_var(self, gvar: GlobalVar) -> GlobalVar:
        return gvar

    def visit_if(self, ite: If) -> Expr:
        parts = [self.visit(c) for c in (ite.cond, ite.true_branch, ite.false_branch)]
        if all(a is b for a, b in zip(parts, (ite.cond, ite.true_branch, ite.false_branch))):
            return ite
        return If(*parts)

    def visit_tuple(self, tup: Tuple) -> Expr:
        fields = [self.visit(f) for f in tup.fields]
        if all(a is b for a, b in zip(fields, tup.fields)):
            return tup
        return Tuple(fields)

    def visit_tuple_getitem(self, item: TupleGetItem) -> Expr:
        value = self.visit(item.tuple_value)
        return item if value is item.tuple_value else TupleGetItem(value, item.index)

    def visit_constant(self, const: Constant) -> Expr:
        return const

    def visit_op(self, op: Op) -> Op:
        return op

    def visit_constructor(self, con: Constructor) -> Constructor:
        return con

    def visit_match(self, m: Match) -> Expr:
        data = self.visit(m.data)
        rhs = [self.visit(c.rhs) for c in m.clauses]
        if data is m.data and all(a is c.rhs for a, c in zip(rhs, m.clauses)):
            return m
        return Match(data, [Clause(c.lhs, r) for c, r in zip(m.clauses, rhs)], m.complete)

    def visit_ref_create(self, ref: RefCreate) -> Expr:
        value = self.visit(ref.value)
        return ref if value is ref.value else RefCreate(value)

    def visit_ref_read(self, ref: RefRead) -> Expr:
        r = self.visit(ref.ref)
        return ref if r is ref.ref else RefRead(r)

    def visit_ref_write(self, ref: RefWrite) -> Expr:
        r, value = self.visit(ref.ref), self.visit(ref.value)
        if r is ref.ref and value is ref.value:
            return ref
        return RefWrite(r, value)


__all__ = ["ExprFunctor", "ExprVisitor", "ExprMutator"]
