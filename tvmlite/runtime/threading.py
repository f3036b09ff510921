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


#: glibc ``mallopt`` parameters
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: workspaces up to this size come from the heap and stay there for the next call
WORKSPACE_POOL_BYTES = 32 << 20


@lru_cache(maxsize=None)
def keep_workspaces() -> bool:
    """Make freed kernel workspaces stay in the process for the next call, as classic TVM's
    workspace pool does (once per process; glibc only).

    A kernel allocates its intermediate buffers on each call. With glibc's defaults a few MB
    of them are ``mmap``-ed, or trimmed from the heap when freed, and every call page-faults
    them in again (a Winograd convolution of ResNet-18's first 3x3 layer spent as long in page
    faults as in its GEMM). Allocations up to :data:`WORKSPACE_POOL_BYTES` now come from the
    heap, which is no longer trimmed below 4x that."""
    import ctypes
    import ctypes.util
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, WORKSPACE_POOL_BYTES)) and \
        bool(mallopt(_M_TRIM_THRESHOLD, 4 * WORKSPACE_POOL_BYTES))


def configure_library(lib) -> None:
    """Pass the thread count to a loaded library that has parallel loops; keep freed
    workspaces for the next call (:func:`keep_workspaces`)."""
    keep_workspaces()
    try:
        setter = lib["__tvmlite_set_num_threads"]
    except (AttributeError, KeyError):
        return
    import ctypes

    setter.argtypes = [ctypes.c_int32]
    setter.restype = None
    setter(num_threads())
