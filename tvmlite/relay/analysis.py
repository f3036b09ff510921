"""Analyses of relay expressions (``relay.analysis``)."""
from __future__ import annotations

from typing import List

from .expr import Expr, Function, Let, Var, post_order


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
