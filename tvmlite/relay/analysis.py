"""Analyses of relay expressions (``relay.analysis``)."""
from __future__ import annotations

from typing import Any, Callable, List

from .expr import Call, Expr, Function, Let, Var, children, post_order


def all_vars(expr: Expr) -> List[Var]:
    """Every variable in ``expr`` (parameters and let-bound ones included), in post order."""
    out, seen = [], set()
    for n in post_order(expr):
        vs = [n] if isinstance(n, Var) else list(n.params) if isinstance(n, Function) else \
            [n.var] if isinstance(n, Let) else []
        for v in vs:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


def bound_vars(expr: Expr) -> List[Var]:
    """The variables ``expr`` binds (function parameters and let variables)."""
    out = []
    for n in post_order(expr):
        if isinstance(n, Function):
            out.extend(n.params)
        elif isinstance(n, Let):
            out.append(n.var)
    return out


def free_vars(expr: Expr) -> List[Var]:
    """The variables used in ``expr`` but not bound in it, in order of first use."""
    bound = {id(v) for v in bound_vars(expr)}
    return [n for n in post_order(expr) if isinstance(n, Var) and id(n) not in bound]


def _visit_children(e: Expr) -> list:
    """Children in classic ``post_order_visit``'s order: a function's parameters, a call's
    operator, then the rest."""
    if isinstance(e, Function):
        return list(e.params) + [e.body]
    if isinstance(e, Call):
        return [e.op] + list(e.args)
    if isinstance(e, Let):
        return [e.var, e.value, e.body]
    return children(e)


def post_order_visit(expr: Expr, fvisit: Callable[[Any], None]) -> None:
    """Call ``fvisit`` on every node of ``expr`` (operators included) once, children first
    (an explicit stack: any depth)."""
    for n in post_order(expr, lambda e: _visit_children(e) if isinstance(e, Expr) else []):
        fvisit(n)
