"""Process-wide AutoTVM state (classic ``autotvm.env``)."""
from __future__ import annotations


class _GlobalScope:
    """``in_tuning``: a config is being instantiated to be measured (set by the build
    workers), so a template may leave out work a network does elsewhere."""

    in_tuning = False


GLOBAL_SCOPE = _GlobalScope()
