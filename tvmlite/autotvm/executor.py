"""``autotvm.measure.executor``: the interface of the object a runner hands each measurement
to (classic AutoTVM's ``Executor``). ``LocalRunner`` measures through its own worker process
unless ``runner.executor`` is set to one of these."""
from __future__ import annotations

import concurrent.futures
from typing import Any, Callable


class Executor:
    """Runs ``func(*args, **kwargs)`` somewhere and returns a future of its result."""

    def submit(self, func: Callable, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        raise NotImplementedError


class InlineExecutor(Executor):
    """Runs each function at once in the calling process."""

    def submit(self, func: Callable, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        fut: concurrent.futures.Future = concurrent.futures.Future()
        try:
            fut.set_result(func(*args, **kwargs))
        except Exception as e:  # noqa: BLE001  (the future carries it to the caller)
            fut.set_exception(e)
        return fut
