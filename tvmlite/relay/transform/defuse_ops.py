"""``DefuseOps``: the inverse of FuseOps: every call of a function (a fused group) becomes
the function's body with its parameters replaced by the call's arguments."""
from __future__ import annotations

from typing import Dict

from ...ir.transform import Pass
from ..expr import Call, Expr, Function, post_order, replace_children, substitute, visit_children
from .function_pass import function_pass


def defuse_function(func: Function) -> Function:
    """``func`` with every called function inlined (nested ones too)."""
    memo: Dict[int, Expr] = {}

    def sub(c):
        return memo.get(id(c), c)
    for n in post_order(func.body, visit_children):
        post = replace_children(n, sub)
        if isinstance(post, Call) and isinstance(post.op, Function):
            inner = post.op
            post = substitute(inner.body, {id(p): a for p, a in zip(inner.params, post.args)})
        memo[id(n)] = post
    body = sub(func.body)
    if body is func.body:
        return func
    return Function(func.params, body, func.ret_type, func.type_params, func.attrs)


def DefuseOps() -> Pass:  # noqa: N802
    """Inline the fused functions FuseOps made (``relay.transform.DefuseOps()``)."""
    return function_pass(lambda f, mod, ctx: defuse_function(f), opt_level=3,
                         name="DefuseOps", required=["InferType"])
