"""``Legalize``: replace each call of an operator that has a legalize callback (registered
with ``relay.op.register_legalize``, attribute ``FTVMLegalize``) by the expression the callback
returns for it; a callback returning None keeps the call."""
from __future__ import annotations

from typing import Dict

from ...error import TVMError
from ...ir.transform import Pass
from ..expr import Call, Expr, Function, TupleWrapper, post_order, replace_children, visit_children
from ..op.registry import Op
from .function_pass import function_pass
from .infer_type import infer_type


def legalize_function(func: Function, attr_name: str = "FTVMLegalize") -> Function:
    """``func`` with its calls of operators that have attribute ``attr_name`` legalized:
    ``callback(attrs, new_args, arg_types + [out_type])`` gives the replacement (types are the
    original call's)."""
    infer_type(func)
    memo: Dict[int, Expr] = {}

    def sub(c):
        return memo.get(id(c), c)
    for n in post_order(func.body, visit_children):
        post = replace_children(n, sub)
        if isinstance(n, Call) and isinstance(n.op, Op) and n.op.has_attr(attr_name):
            fn = n.op.get_attr(attr_name)
            if fn is not None:
                types = [a.checked_type for a in n.args] + [n.checked_type]
                new = fn(n.attrs, list(post.args), types)
                if isinstance(new, TupleWrapper):
                    new = new.astuple()
                if new is not None:
                    if not isinstance(new, Expr):
                        raise TVMError(f"Legalize: the {attr_name} callback of {n.op.name} "
                                       f"returned {type(new).__name__}, not a relay "
                                       "expression")
                    post = new
        memo[id(n)] = post
    body = sub(func.body)
    if body is func.body:
        return func
    return Function(func.params, body, func.ret_type, func.type_params, func.attrs)


def Legalize(legalize_map_attr_name: str = "FTVMLegalize") -> Pass:  # noqa: N802
    """Legalize operators by their registered callbacks (``relay.transform.Legalize()``)."""
    return function_pass(lambda f, mod, ctx: legalize_function(f, legalize_map_attr_name),
                         opt_level=1, name="Legalize", required=["InferType"])
