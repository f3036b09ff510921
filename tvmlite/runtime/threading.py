"""The number of threads parallel loops use: ``TVM_NUM_THREADS``, else the physical cores.

Generated libraries with ``parallel`` loops export ``__tvmlite_set_num_threads``; the runtime
calls it when it loads a library, and every ``#pragma omp parallel`` region of that library
asks for that many threads.
"""
from __future__ import annotations

import os
from functools import lru_cache

from ..error import TVMError


@lru_cache(maxsize=None)
def physical_cores() -> int:
    """Physical cores this process may run on (hyper-threads not counted)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1
    cores = set()
    for c in cpus:
        base = f"/sys/devices/system/cpu/cpu{c}/topology/"
        try:
            with open(base + "core_id") as f1, open(base + "physical_package_id") as f2:
                cores.add((f2.read().strip(), f1.read().strip()))
        except OSError:
            cores.add(("", str(c)))
    return max(1, len(cores))


def num_threads() -> int:
    """Threads for parallel loops: ``TVM_NUM_THREADS`` when set, else :func:`physical_cores`."""
    env = os.environ.get("TVM_NUM_THREADS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            raise TVMError(f"TVM_NUM_THREADS must be a positive integer, got {env!r}") from None
        if n < 1:
            raise TVMError(f"TVM_NUM_THREADS must be a positive integer, got {env!r}")
        return n
    return physical_cores()


def configure_library(lib) -> None:
    """Pass the thread count to a loaded library that has parallel loops."""
    try:
        setter = lib["__tvmlite_set_num_threads"]
    except (AttributeError, KeyError):
        return
    import ctypes

    setter.argtypes = [ctypes.c_int32]
    setter.restype = None
    setter(num_threads())
