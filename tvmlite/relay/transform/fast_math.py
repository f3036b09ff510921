"""``FastMath``: ``exp``, ``tanh``, ``erf`` and ``nn.softmax`` become their fast
approximations ``fast_exp``, ``fast_tanh``, ``fast_erf`` and ``nn.fast_softmax`` (classic
relay; opt_level 4, so ``relay.build`` runs it only at opt_level 4 or when it is a required
pass)."""
from __future__ import annotations

from typing import Dict

from ...ir.transform import Pass
from ..expr import Call, Expr, Function, post_order, replace_children, visit_children
from ..op import registry
from ..op.registry import Op
from .function_pass import function_pass

#: the operators FastMath replaces, and their replacements
FAST_OPS = {"exp": "fast_exp", "tanh": "fast_tanh", "erf": "fast_erf",
            "nn.softmax": "nn.fast_softmax"}


def fast_math_function(func: Function) -> Function:
    """``func`` with its exp / tanh / erf calls replaced by the fast versions."""
    memo: Dict[int, Expr] = {}

    def sub(c):
        return memo.get(id(c), c)
    for n in post_order(func.body, visit_children):
        post = replace_children(n, sub)
        if isinstance(n, Call) and isinstance(n.op, Op) and n.op.name in FAST_OPS:
            post = Call(registry.get(FAST_OPS[n.op.name]), list(post.args), post.attrs,
                        post.type_args)
        memo[id(n)] = post
    body = sub(func.body)
    if body is func.body:
        return func
    return Function(func.params, body, func.ret_type, func.type_params, func.attrs)


def FastMath() -> Pass:  # noqa: N802
    """Swap in fast approximations of exp, tanh and erf (``relay.transform.FastMath()``)."""
    return function_pass(lambda f, mod, ctx: fast_math_function(f), opt_level=4,
                         name="FastMath", required=["InferType"])
