"""TE schedules: the classic declarative facade over the TensorIR schedule engine.

(Foundation stage: a schedule holds its outputs and lowers to the default loop nests; the
primitives arrive with the schedule engine.)
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence


class Schedule:
    """The schedule of a set of output operations (``te.create_schedule``)."""

    def __init__(self, ops):
        ops = list(ops) if isinstance(ops, (list, tuple)) else [ops]
        self.outputs = [getattr(o, "op", o) for o in ops]


class Stage:
    """One operation's schedule (``s[C]``)."""


def create_schedule(ops) -> Schedule:
    """A default schedule for the output operation(s) ``ops``."""
    return Schedule(ops)


def schedule_to_prim_func(sch: Schedule, args: Sequence[Any], binds=None):
    """The scheduled TensorIR function with parameters ``args``."""
    from .create_prim_func import create_prim_func

    return create_prim_func(list(args), binds=binds) if binds else create_prim_func(list(args))
