"""``tvm.contrib.nvcc``: CUDA capability queries. tvmlite compiles CUDA through NVRTC, not the
nvcc command line, so :func:`compile_cuda` is not offered."""
from __future__ import annotations

import os
import shutil
from typing import Tuple

from .._classic import unsupported


def _version(compute_version) -> Tuple[int, int]:
    text = str(compute_version)
    try:
        major, minor = (int(x) for x in text.split(".")[:2])
    except ValueError:
        raise ValueError(f"compute version {text!r} is not of the form major.minor") from None
    return major, minor


def have_fp16(compute_version) -> bool:
    """Whether a GPU of ``compute_version`` (``"7.5"``) does float16 arithmetic (5.3 and later,
    except 6.1)."""
    major, minor = _version(compute_version)
    return (major, minor) == (5, 3) or (major >= 6 and (major, minor) != (6, 1))


def have_int8(compute_version) -> bool:
    """Whether ``compute_version`` has the int8 dot-product instructions (6.1 and later)."""
    return _version(compute_version) >= (6, 1)


def have_tensorcore(compute_version=None, target=None) -> bool:
    """Whether ``compute_version`` has Tensor Cores (7.0 and later)."""
    if compute_version is None:
        return False
    return _version(compute_version) >= (7, 0)


def have_bf16(compute_version) -> bool:
    """Whether ``compute_version`` does bfloat16 arithmetic (8.0 and later)."""
    return _version(compute_version) >= (8, 0)


def have_cudagraph() -> bool:
    """tvmlite does not use CUDA graphs."""
    return False


def find_cuda_path() -> str:
    """The CUDA toolkit directory (``CUDA_PATH``/``CUDA_HOME`` or where nvcc is)."""
    for key in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(key):
            return os.environ[key]
    nvcc = shutil.which("nvcc")
    if nvcc:
        return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    if os.path.isdir("/usr/local/cuda"):
        return "/usr/local/cuda"
    raise RuntimeError("Cannot find CUDA path")


def compile_cuda(code, target_format="ptx", arch=None, options=None, path_target=None):
    """Not offered: tvmlite compiles CUDA C with NVRTC inside ``tvm.build``."""
    raise unsupported("contrib.nvcc.compile_cuda (tvmlite compiles CUDA with NVRTC)")
