"""Targets (``tvm.target``): Target, tags and the ISA description (``isa``); code generation
for them is ``tvmlite.codegen``. Kept light: ``tvm.build`` imports it."""
from .target import (
    Target,
    TargetKind,
    arm_cpu,
    bifrost,
    create,
    cuda,
    intel_graphics,
    mali,
    rasp,
)

__all__ = ["Target", "TargetKind", "create", "cuda", "arm_cpu", "mali", "bifrost",
           "intel_graphics", "rasp"]


from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
