"""``EliminateCommonSubexpr``: compute each distinct operator call once.

Two calls of the same operator with equal attributes and the same arguments (the same
expression, or equal scalar constants; a tuple argument compares field by field) are one value:
the later one is replaced by the earlier. Likewise two projections ``t.i`` of the same tuple.
Operators are pure in tvmlite (none is stateful), so every call qualifies, except those
``fskip(call)`` rejects and calls without arguments. One post-order walk with a table of the
values seen, no recursion: a graph of any depth is handled.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Hashable, List, Optional

import numpy as np

from ...ir.transform import Pass, register_pass
from ..expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    Tuple,
    TupleGetItem,
    post_order,
    with_children,
)
from ..op.registry import Op
from .function_pass import FunctionPass

NAME = "EliminateCommonSubexpr"


def _frozen(value: Any) -> Hashable:
    """A hashable form of an attribute value, equal for equal values."""
    if isinstance(value, (list, tuple)):
        return ("seq",) + tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return ("map",) + tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (np.generic,)):
        return ("scalar", value.dtype.str, value.tobytes())
    try:
        hash(value)
    except TypeError:
        return ("object", repr(value))
    return (type(value).__name__, value)


def _attrs_key(call: Call) -> Hashable:
    if call.attrs is None:
        return ()
    return tuple(sorted((k, _frozen(v)) for k, v in call.attrs.items()))


def _arg_key(arg: Expr) -> Hashable:
    """An argument's identity: the expression itself, or a scalar constant's value."""
    if isinstance(arg, Constant) and len(arg.data.shape) == 0:
        data = arg.data.numpy()
        return ("const", data.dtype.str, data.tobytes())
    return ("expr", id(arg))


def _call_key(call: Call) -> Hashable:
    args = tuple(("tuple",) + tuple(_arg_key(f) for f in a.fields) if isinstance(a, Tuple)
                 else _arg_key(a) for a in call.args)
    return ("call", call.op.name, _attrs_key(call), args)


def _rebuild(n: Expr, memo: Dict[int, Expr]) -> Expr:
    """``n`` over its children's replacements (``n`` itself when none changed)."""
    if isinstance(n, Let):
        parts = [memo.get(id(c), c) for c in (n.value, n.body)]
        return n if parts[0] is n.value and parts[1] is n.body else Let(n.var, *parts)
    if isinstance(n, If):
        old = (n.cond, n.true_branch, n.false_branch)
        parts = [memo.get(id(c), c) for c in old]
        return n if all(a is b for a, b in zip(parts, old)) else If(*parts)
    if isinstance(n, Function):
        body = memo.get(id(n.body), n.body)
        return n if body is n.body else Function(n.params, body, n.ret_type, n.type_params,
                                                 n.attrs)
    if isinstance(n, Call) and isinstance(n.op, Expr):  # a call of a function value
        op = memo.get(id(n.op), n.op)
        args = [memo.get(id(a), a) for a in n.args]
        if op is n.op and all(a is b for a, b in zip(args, n.args)):
            return n
        new = Call(op, args, n.attrs, n.type_args)
        new._checked_type = n._checked_type
        return new
    return with_children(n, memo)


def eliminate_common_subexpr(expr: Expr,
                             fskip: Optional[Callable[[Expr], bool]] = None) -> Expr:
    """``expr`` with every repeated operator call and tuple projection computed once;
    ``fskip(e)`` returning true keeps ``e`` as it is (classic's callback)."""
    memo: Dict[int, Expr] = {}
    seen: Dict[Hashable, Expr] = {}
    kept: List[Expr] = []  # the new nodes, alive so that the ids in the keys stay theirs
    for n in post_order(expr):
        new = _rebuild(n, memo)
        if new is not n:
            kept.append(new)
        key = None
        if isinstance(new, Call) and isinstance(new.op, Op) and new.args:
            key = _call_key(new)
        elif isinstance(new, TupleGetItem):
            key = ("item", id(new.tuple_value), new.index)
        if key is not None and not (fskip is not None and fskip(new)):
            first = seen.get(key)
            if first is None:
                seen[key] = new
            else:
                new = first
        if new is not n:
            memo[id(n)] = new
    return memo.get(id(expr), expr)


def EliminateCommonSubexpr(fskip: Optional[Callable[[Expr], bool]] = None) -> Pass:  # noqa: N802
    """The common-subexpression pass (``relay.transform.EliminateCommonSubexpr``), a function
    pass at opt_level 3 that requires ``InferType``, as in classic TVM."""
    return FunctionPass(lambda func, mod, ctx: eliminate_common_subexpr(func, fskip), NAME,
                        opt_level=3, required=["InferType"])


register_pass(NAME, EliminateCommonSubexpr)
