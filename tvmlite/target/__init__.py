"""Targets (``tvm.target``): Target, tags and the ISA description (``isa``); code generation
for them is ``tvmlite.codegen``. Kept light: ``tvm.build`` imports it."""
from .target import Target, TargetKind, arm_cpu, create, cuda

__all__ = ["Target", "TargetKind", "create", "cuda", "arm_cpu"]


from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
