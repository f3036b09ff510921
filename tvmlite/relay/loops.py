"""Classic ``relay.loops``: ``while_loop``, a loop written as a recursive relay function."""
from __future__ import annotations

from typing import Callable, Sequence

from .expr import Call, Expr, Function, If, Let, Tuple, Var


def while_loop(cond: Callable[..., Expr], loop_vars: Sequence[Expr],
               loop_bodies: Callable[..., Sequence[Expr]]) -> Expr:
    """A function of the loop variables that runs ``loop_bodies`` (the next values) while
    ``cond`` (a scalar bool) holds and returns the tuple of the final values.

    Parameters
    ----------
    cond : callable
        The loop variables -> a scalar bool expression.
    loop_vars : list of Expr
        The initial values; each Var's type annotation types its loop variable.
    loop_bodies : callable
        The loop variables -> their next values.

    Returns
    -------
    Expr
        The loop function (call it with the initial values).
    """
    loop = Var("while_loop")
    fresh = []
    for i, v in enumerate(loop_vars):
        name = v.name_hint if isinstance(v, Var) else f"arg{i}"
        ann = v.type_annotation if isinstance(v, Var) else None
        if ann is None and v._checked_type is not None:
            ann = v._checked_type
        fresh.append(Var(name, ann))
    body = If(cond(*fresh), Call(loop, list(loop_bodies(*fresh))), Tuple(fresh))
    return Let(loop, Function(fresh, body), loop)
