"""The error every schedule primitive raises when its legality conditions do not hold."""
from __future__ import annotations

from ...error import TVMError


class ScheduleError(TVMError):
    """An illegal schedule request (``tvm.tir.ScheduleError``).

    The message names the primitive, the block or loop, and the violated condition.
    """


def fail(primitive: str, what: str, condition: str) -> "ScheduleError":
    """Build the error for ``primitive`` applied to ``what`` (a block or loop description)."""
    return ScheduleError(f"ScheduleError: {primitive}: {what}: {condition}")
