"""``tvm.testing.tir``: helpers of classic TIR tests. The tensor-core schedules
(``mma_schedule``, ``mfma_schedule``) need the ldmatrix/mma intrinsics tvmlite lacks."""
from __future__ import annotations

from .._classic import unsupported


def mma_schedule(*args, **kwargs):
    """Classic's ldmatrix + mma.sync GEMM schedule: not implemented (raises)."""
    raise unsupported("tvm.testing.tir.mma_schedule (the ldmatrix/mma tensor-core schedule)")


def mfma_schedule(*args, **kwargs):
    """Classic's AMD MFMA GEMM schedule: not implemented (raises)."""
    raise unsupported("tvm.testing.tir.mfma_schedule (the MFMA tensor-core schedule)")
