"""``ToGraphNormalForm`` and ``ToANormalForm``: relay's two spellings of a dataflow program.

Graph normal form shares values by using one node twice (no ``let``); A-normal form binds
every computed value to a variable with a ``let``, in evaluation (post) order, and uses the
variable. ``ToGraphNormalForm`` replaces each let-bound variable by its value;
``ToANormalForm`` let-binds the calls, tuples and projections of a function's body (bodies
with ``if`` or inner functions, which need scoped bindings, are refused with a TVMError).
"""
from __future__ import annotations

from typing import Dict

from ...error import TVMError
from ...ir.transform import Pass
from ..expr import (
    Call,
    Expr,
    Function,
    If,
    Let,
    Tuple,
    TupleGetItem,
    Var,
    post_order,
    replace_children,
    visit_children,
)
from .function_pass import function_pass


def to_graph_normal_form(expr: Expr) -> Expr:
    """``expr`` without lets: each let-bound variable replaced by its value."""
    memo: Dict[int, Expr] = {}
    lets = {id(n.var): n for n in post_order(expr, visit_children) if isinstance(n, Let)}
    recursive = {key for key, let in lets.items() if isinstance(let.value, Function)
                 and any(m is let.var for m in post_order(let.value))}

    def sub(c):
        return memo.get(id(c), c)
    for n in post_order(expr, visit_children):
        if isinstance(n, Var) and id(n) in lets and id(n) not in recursive:
            memo[id(n)] = sub(lets[id(n)].value)  # walked after its value, before its uses
        elif isinstance(n, Let) and id(n.var) not in recursive:
            memo[id(n)] = sub(n.body)
        elif not isinstance(n, Var):
            memo[id(n)] = replace_children(n, sub)  # a recursive function stays let-bound
    return sub(expr)


def to_a_normal_form(expr: Expr) -> Expr:
    """``expr`` (a dataflow body) with every call, tuple and projection let-bound once, in
    evaluation order; a function's body is converted on its own."""
    if isinstance(expr, Function):
        body = to_a_normal_form(expr.body)
        if body is expr.body:
            return expr
        return Function(expr.params, body, expr.ret_type, expr.type_params, expr.attrs)
    bindings = []
    memo: Dict[int, Expr] = {}
    let_value = {id(n.var): n.value for n in post_order(expr, visit_children)
                 if isinstance(n, Let)}

    def sub(c):
        return memo.get(id(c), c)
    for n in post_order(expr, visit_children):
        if isinstance(n, (If, Function)):
            raise TVMError(f"ToANormalForm: {type(n).__name__} inside a function body is not "
                           "supported by tvmlite (it needs scoped bindings)")
        if isinstance(n, Let):
            memo[id(n)] = sub(n.body)  # its variable now stands for its value's binding
            continue
        if isinstance(n, Var) and id(n) in let_value:
            memo[id(n)] = sub(let_value[id(n)])  # a let of the input: its value's binding
            continue
        new = replace_children(n, sub)
        if isinstance(n, (Call, Tuple, TupleGetItem)):
            v = Var(f"x{len(bindings)}")
            bindings.append((v, new))
            memo[id(n)] = v
        else:
            memo[id(n)] = new
    out = sub(expr)
    for v, value in reversed(bindings):
        out = Let(v, value, out)
    return out


def ToGraphNormalForm() -> Pass:  # noqa: N802
    """Remove lets, sharing values by node (``relay.transform.ToGraphNormalForm()``)."""
    return function_pass(lambda f, mod, ctx: to_graph_normal_form(f), opt_level=1,
                         name="ToGraphNormalForm")


def ToANormalForm() -> Pass:  # noqa: N802
    """Let-bind every computed value (``relay.transform.ToANormalForm()``)."""
    return function_pass(lambda f, mod, ctx: to_a_normal_form(f), opt_level=1,
                         name="ToANormalForm")
