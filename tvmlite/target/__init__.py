"""Targets (``tvm.target``): Target, tags and the ISA description (``isa``); code generation
for them is ``tvmlite.codegen``. Kept light: ``tvm.build`` imports it."""
from .target import Target, TargetKind, arm_cpu, create, cuda

__all__ = ["Target", "TargetKind", "create", "cuda", "arm_cpu"]
