"""``tvm.contrib.clang``: classic TVM compiles C micro-kernels to LLVM IR with clang and splices
them in with ``s[C].pragma(x, "import_llvm", ll_code)``.

tvmlite's CPU backend is C, so :func:`create_llvm` keeps the kernel as C: it returns the C source
(C++-only ``extern "C"`` linkage markers removed) behind a header line the build recognises, and
the ``import_llvm`` pragma then links it exactly like ``import_c``."""
from __future__ import annotations

import re
from typing import Optional, Sequence, Union

# First line of what create_llvm returns; build_c accepts an import_llvm value starting so.
C_KERNEL_HEADER = "// tvmlite: C source standing in for LLVM IR (contrib.clang.create_llvm)\n"

_EXTERN_C = re.compile(r'extern\s+"C"\s*')


def create_llvm(inputs: Union[str, Sequence[str]], output: Optional[str] = None,
                options: Optional[Sequence[str]] = None, cc: Optional[str] = None) -> str:
    """The micro-kernel(s) in ``inputs`` (C source text or ``.c`` file paths) as a unit the
    ``import_llvm`` pragma links; written to ``output`` too when given. ``options`` and ``cc``
    are accepted for compatibility (the build compiles with its own C compiler and flags)."""
    items = [inputs] if isinstance(inputs, str) else list(inputs)
    parts = []
    for item in items:
        if "\n" not in item and item.endswith((".c", ".cc", ".cpp")):
            with open(item) as f:
                item = f.read()
        parts.append(_EXTERN_C.sub("", item))
    code = C_KERNEL_HEADER + "\n".join(parts)
    if output is not None:
        with open(output, "w") as f:
            f.write(code)
    return code


def find_clang(required: bool = True) -> list:
    """Not needed by tvmlite (its kernels stay C); an empty list, as classic gives when none."""
    return []
