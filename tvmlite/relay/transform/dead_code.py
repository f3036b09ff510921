"""``DeadCodeElimination``: drop ``let`` bindings whose variable is never used (relay
operators are pure, so an unused value need not be computed). Iterative walks only."""
from __future__ import annotations

from typing import Dict

from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext
from ..expr import Expr, Function, If, Let, Var, children, post_order, with_children


def _uses(root: Expr) -> Dict[int, int]:
    counts: Dict[int, int] = {}
    for n in post_order(root):
        for c in children(n):
            if isinstance(c, Var):
                counts[id(c)] = counts.get(id(c), 0) + 1
    return counts


def _eliminate_once(body: Expr) -> Expr:
    uses = _uses(body)
    memo: Dict[int, Expr] = {}
    for n in post_order(body):
        if isinstance(n, Let):
            new_body = memo.get(id(n.body), n.body)
            if uses.get(id(n.var), 0) == 0:
                memo[id(n)] = new_body
                continue
            value = memo.get(id(n.value), n.value)
            memo[id(n)] = n if value is n.value and new_body is n.body else \
                Let(n.var, value, new_body)
        elif isinstance(n, If):
            parts = [memo.get(id(c), c) for c in (n.cond, n.true_branch, n.false_branch)]
            memo[id(n)] = n if all(a is b for a, b in zip(
                parts, (n.cond, n.true_branch, n.false_branch))) else If(*parts)
        elif isinstance(n, Function):
            b = memo.get(id(n.body), n.body)
            memo[id(n)] = n if b is n.body else Function(n.params, b, n.ret_type,
                                                         n.type_params, n.attrs)
        else:
            memo[id(n)] = with_children(n, memo)
    return memo[id(body)]


def eliminate(func: Function) -> Function:
    """``func`` without its dead let bindings (repeated until none is left)."""
    body = func.body
    while True:
        new = _eliminate_once(body)
        if new is body:
            break
        body = new
    if body is func.body:
        return func
    return Function(func.params, body, func.ret_type, func.type_params, func.attrs)


def _run(mod: IRModule, ctx: PassContext) -> IRModule:
    out = IRModule({}, mod.attrs)
    for name, func in mod.functions.items():
        out[name] = eliminate(func) if isinstance(func, Function) else func
    return out


def DeadCodeElimination(inline_once: bool = False, ignore_impurity: bool = False) -> Pass:  # noqa: N802
    """Remove unused let bindings (``relay.transform.DeadCodeElimination()``)."""
    return ModulePass(_run, "DeadCodeElimination", opt_level=1, required=("InferType",))
