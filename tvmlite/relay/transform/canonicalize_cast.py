"""``CanonicalizeCast``: a widening cast read by several element-wise or broadcast ops gets
one copy per reader, so that each copy can fuse into its reader (classic relay)."""
from __future__ import annotations

from typing import Dict

from ...ir.transform import Pass
from ..expr import Call, Expr, Function, post_order, replace_children, visit_children
from ..op.registry import Op, OpPattern
from .function_pass import function_pass
from .infer_type import infer_type


def _bits(dtype: str) -> int:
    digits = "".join(ch for ch in dtype if ch.isdigit())
    return 1 if dtype == "bool" else int(digits or 32)


def _is_widening_cast(e) -> bool:
    return isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "cast" \
        and _bits(e.args[0].checked_type.dtype) < _bits(e.attrs.dtype)


def canonicalize_cast_function(func: Function) -> Function:
    """``func`` with each widening cast duplicated for its second and later element-wise /
    broadcast readers."""
    infer_type(func)
    memo: Dict[int, Expr] = {}
    uses: Dict[int, int] = {}

    def sub(c):
        return memo.get(id(c), c)
    for n in post_order(func.body, visit_children):
        post = replace_children(n, sub)
        if isinstance(n, Call) and isinstance(n.op, Op) and n.op.pattern <= OpPattern.BROADCAST:
            args = list(post.args)
            for i, a in enumerate(n.args):
                if _is_widening_cast(a):
                    uses[id(a)] = uses.get(id(a), 0) + 1
                    if uses[id(a)] > 1:
                        new = sub(a)
                        args[i] = Call(new.op, list(new.args), new.attrs, new.type_args)
            if any(x is not y for x, y in zip(args, post.args)):
                post = Call(post.op, args, post.attrs, post.type_args)
        memo[id(n)] = post
    body = sub(func.body)
    if body is func.body:
        return func
    return Function(func.params, body, func.ret_type, func.type_params, func.attrs)


def CanonicalizeCast() -> Pass:  # noqa: N802
    """Duplicate shared widening casts per reader (``relay.transform.CanonicalizeCast()``)."""
    return function_pass(lambda f, mod, ctx: canonicalize_cast_function(f), opt_level=3,
                         name="CanonicalizeCast", required=["InferType"])
