"""Schedules of classic ``topi.arm_cpu`` that tvmlite has: its injective schedules, which are
the CPU ones of :mod:`tvmlite.topi.x86` (outer axes fused and parallel, the innermost
vectorized by the target's vector width). Other ``topi.arm_cpu`` names raise
``UnsupportedError``."""
from ..x86.injective import (
    schedule_concatenate,
    schedule_injective,
    schedule_injective_from_existing,
)

__all__ = ["schedule_injective", "schedule_injective_from_existing", "schedule_concatenate"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
