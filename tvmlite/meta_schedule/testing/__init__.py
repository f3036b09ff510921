"""``tvm.meta_schedule.testing``: only ``te_workload`` is provided."""
from __future__ import annotations

from ..._classic import unsupported
from . import te_workload


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise unsupported(f"tvm.meta_schedule.testing.{name}")


__all__ = ["te_workload"]
