"""Targets (``tvm.target``) and the C backend. Kept light: ``tvm.build`` imports it."""
from .target import Target, TargetKind, arm_cpu, create, cuda

__all__ = ["Target", "TargetKind", "create", "cuda", "arm_cpu"]


from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
