"""TE schedules (owned by the lead engineer; a facade over the TensorIR schedule engine)."""
from __future__ import annotations


class Schedule:
    """Placeholder until the schedule facade lands."""

    def __init__(self, outputs):
        self.outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


class Stage:
    pass


def create_schedule(ops) -> Schedule:
    return Schedule(ops)
