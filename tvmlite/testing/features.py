"""Feature requirements as pytest marks: ``requires_llvm``, ``requires_gpu``, ``uses_gpu`` …

A :class:`Feature` decorates a test (function or class): it adds a mark named after the feature
and, where the feature is not available here, skips the test with the reason.
"""
from __future__ import annotations

import importlib.util
import os
import struct
from typing import Callable, Optional

import pytest

from ..runtime.device import cuda_available
from .targets import device_enabled


class Feature:
    """A feature a test may require (``requires_X``) or merely use (``support_required=
    "optional"``).

    Parameters
    ----------
    name : str
        The mark name (``pytest -m llvm`` selects the tests that need it).
    long_name : str
        The human-readable name used in skip reasons.
    available : callable
        Returns whether this machine has the feature.
    """

    def __init__(self, name: str, long_name: Optional[str] = None,
                 available: Optional[Callable[[], bool]] = None, target_kind: Optional[str] = None):
        self.name = name
        self.long_name = long_name or name
        self._available = available or (lambda: False)
        self.target_kind = target_kind

    def available(self) -> bool:
        """Whether the feature can be used here (and, for a target, is in ``TVM_TEST_TARGETS``)."""
        if self.target_kind is not None and not device_enabled(self.target_kind):
            return False
        return bool(self._available())

    def marks(self, support_required: str = "compile-and-run") -> list:
        """The pytest marks this feature adds to a test."""
        marks = [getattr(pytest.mark, self.name)]
        if support_required != "optional" and not self.available():
            marks.append(pytest.mark.skipif(
                True, reason=f"{self.long_name} is not available in tvmlite on this machine"))
        return marks

    def __call__(self, func=None, *, support_required: str = "compile-and-run"):
        if func is None:
            return lambda f: self(f, support_required=support_required)
        for mark in self.marks(support_required):
            func = mark(func)
        return func


def _has(module: str) -> Callable[[], bool]:
    return lambda: importlib.util.find_spec(module) is not None


def _gpu() -> bool:
    return cuda_available()


requires_llvm = Feature("llvm", "LLVM (tvmlite's C backend)", lambda: True, target_kind="llvm")
requires_gpu = Feature("gpu", "a GPU", _gpu)
uses_gpu = requires_gpu(support_required="optional")
requires_cuda = Feature("cuda", "CUDA", _gpu, target_kind="cuda")
requires_rpc = Feature("rpc", "RPC", _has("tvmlite.rpc"))
requires_x86 = Feature("x86", "an x86 host", lambda: os.uname().machine in ("x86_64", "i686"))
# Features tvmlite does not offer: tests needing them are skipped, with the reason.
_UNAVAILABLE = {
    "tensorcore": "Tensor Cores", "cudnn": "cuDNN", "cublas": "cuBLAS", "nvptx": "NVPTX",
    "cudagraph": "CUDA graphs", "opencl": "OpenCL", "rocm": "ROCm", "metal": "Metal",
    "vulkan": "Vulkan", "openclml": "OpenCLML", "micro": "MicroTVM", "cutlass": "CUTLASS",
    "ethosn": "Arm Ethos-N", "libtorch": "LibTorch", "hexagon": "Hexagon", "cmsisnn": "CMSIS-NN",
    "corstone300": "Corstone300 FVP", "vitis_ai": "Vitis AI", "arm_dot": "ARM dot product",
    "cascadelake": "x86 CascadeLake", "skylake_avx512": "x86 Skylake AVX-512",
    "aprofile_aem": "AProfile AEM", "llvm_minimum_version":
    "a specific LLVM version",
}
for _name, _long in _UNAVAILABLE.items():
    globals()[f"requires_{_name}"] = Feature(_name, _long)

# Every mark a Feature may add, so ``--strict-markers`` runs stay clean.
ALL_FEATURES = ["llvm", "gpu", "cuda", "rpc", "x86", *_UNAVAILABLE]


def requires_package(*packages: str):
    """Skip the test unless every Python package named is importable."""
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    return pytest.mark.skipif(bool(missing), reason=f"requires python packages {missing}")


def requires_nvcc_version(major: int, minor: int = 0, release: int = 0):
    """Skip: tvmlite does not compile with nvcc."""
    return pytest.mark.skip(reason="tvmlite does not use nvcc")


def requires_cuda_compute_version(major: int, minor: int = 0):
    """Skip unless CUDA is available (the compute version is not checked further)."""
    return requires_cuda


def skip_if_32bit(reason: str):
    """Skip the test on a 32-bit Python."""
    return pytest.mark.skipif(struct.calcsize("P") == 4, reason=reason)


slow = pytest.mark.skipif(os.getenv("SKIP_SLOW_TESTS", "") == "1",
                          reason="SKIP_SLOW_TESTS is set")
# classic: tests that need the source tree (not run against an installed wheel)
skip_if_wheel_test = pytest.mark.skipif(
    os.getenv("WHEEL_TEST", "").lower() in {"true", "1", "yes"}, reason="WHEEL_TEST is set")
