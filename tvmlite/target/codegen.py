"""Classic ``tvm.target.codegen``: what code may ask about the code generator.

tvmlite's ``llvm`` target is its C backend (the system compiler, which is built on LLVM or
GCC). Classic code asks :func:`llvm_version_major` to decide whether a feature of its LLVM
code generator is there ("requires LLVM 8" for AVX-512 targets, ``-mattr`` flags...); every
such feature is available through the C backend, so the version reported is that of the LLVM
classic v0.12 was released against, and version-gated code takes its current path.
"""
from __future__ import annotations

from typing import Optional

from .._classic import unsupported_function

#: the LLVM major version reported for tvmlite's ``llvm`` target (see the module docstring)
LLVM_VERSION_MAJOR = 15


def llvm_version_major(allow_none: bool = False) -> Optional[int]:
    """The major LLVM version of the ``llvm`` target (classic signature).

    Parameters
    ----------
    allow_none : bool
        Classic's "return None when built without LLVM"; tvmlite always has the target.

    Returns
    -------
    major : int
    """
    return LLVM_VERSION_MAJOR


_NO_LLVM = "tvmlite generates C, not LLVM IR; build with tvm.build"
build_module = unsupported_function(__name__, "build_module", _NO_LLVM)
llvm_lookup_intrinsic_id = unsupported_function(__name__, "llvm_lookup_intrinsic_id", _NO_LLVM)
llvm_get_intrinsic_name = unsupported_function(__name__, "llvm_get_intrinsic_name", _NO_LLVM)
