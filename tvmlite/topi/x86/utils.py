"""Helpers of the x86 schedules: vector width and the AutoTVM config of an operator."""
from __future__ import annotations

from typing import Any, Sequence, Tuple

from ...autotvm.dispatch import DispatchContext
from ...autotvm.task import args_to_workload
from ...target import Target
from ..utils import get_const_int


def vector_lanes(dtype: str = "float32") -> int:
    """float lanes of the host's widest vector register (AVX-512: 16, AVX2: 8)."""
    bits = 512 if _has_avx512() else 256
    return bits // (32 if dtype.endswith("32") else 64 if dtype.endswith("64") else 16)


def _has_avx512() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return "avx512f" in f.read(1 << 16)
    except OSError:
        return False


def get_config(task_name: str, args: Sequence[Any]) -> Tuple[Any, tuple]:
    """The config the dispatch context gives the workload ``(task_name, *args)`` (a tuned
    record, the config being measured, or a fallback), and that workload."""
    workload = args_to_workload(args, task_name)
    return query_config(workload), workload


def query_config(workload: tuple):
    """The config the current dispatch context gives ``workload``."""
    return DispatchContext.current.query(Target.current(allow_none=True), workload)


def largest_factor(n, limit: int) -> int:
    """The largest factor of ``n`` that is at most ``limit``."""
    n = get_const_int(n)
    return max(f for f in range(1, min(n, limit) + 1) if n % f == 0)
