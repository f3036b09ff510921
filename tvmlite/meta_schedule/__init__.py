"""``tvm.meta_schedule``: tvmlite has no MetaSchedule tuner; only ``testing.te_workload`` (TE
definitions of common operators that classic tests build schedules from) is provided. Any
other name raises ``UnsupportedError`` naming it."""
from __future__ import annotations

from .._classic import unsupported


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    if name == "testing":
        import importlib

        return importlib.import_module(".testing", __name__)
    raise unsupported(f"tvm.meta_schedule.{name}")
