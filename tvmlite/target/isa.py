"""The instruction set a CPU build targets: ``-march=native`` resolved once per process, and
``-mcpu=X`` checked against what this host can run (never a SIGILL at call time)."""
from __future__ import annotations

import hashlib
import shlex
import subprocess
from functools import lru_cache
from typing import FrozenSet, List, Optional, Tuple

from ..contrib.cc import DEFAULT_CC, _which
from ..error import TVMError

# -m flags that select instructions the compiler may emit for ordinary code. Other flags gcc
# toggles per CPU (hle, sgx, pku, waitpkg ...) concern system instructions it never emits
# unasked, so a missing one does not make the code unrunnable.
_COMPUTE_PREFIXES = ("-msse", "-mssse", "-mavx", "-mamx", "-mfma", "-mf16c", "-mbmi", "-mpopcnt",
                     "-mlzcnt", "-mabm", "-mgfni", "-mvaes", "-mvpclmulqdq", "-mpclmul", "-maes",
                     "-msha", "-madx", "-mmovbe", "-mtbm", "-mxop", "-mfma4", "-mcrc32")
# Flags with those prefixes that only tune code generation (any CPU runs the result).
_TUNING_FLAGS = frozenset({"-mavx256-split-unaligned-load", "-mavx256-split-unaligned-store"})

# LLVM CPU names whose gcc spelling differs.
_MCPU_ALIASES = {"generic": "x86-64", "x86-64": "x86-64", "core-avx2": "core-avx2"}


@lru_cache(maxsize=None)
def _gcc_target(march: str, cc: str) -> Tuple[str, FrozenSet[str]]:
    """(resolved -march value, enabled -m flags) for ``gcc -march=<march>``."""
    cmd = [_which(cc), f"-march={march}", "-Q", "--help=target"]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise TVMError(f"C compiler {cc!r} was not found (set TVMLITE_CC to another "
                       f"compiler); command: {' '.join(cmd)}") from None
    if res.returncode != 0:
        msg = [ln for ln in res.stderr.splitlines() if ln.strip()] or ["no output"]
        raise TVMError(f"the C compiler does not know the CPU {march!r} (exit code "
                       f"{res.returncode}): " + "\n".join(msg[:3])
                       + f"\nCommand: {shlex.join(cmd)}")
    resolved, enabled = march, set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "-march=":
            resolved = parts[1]
        elif len(parts) == 2 and parts[1] == "[enabled]" and parts[0].startswith("-m"):
            enabled.add(parts[0])
    return resolved, frozenset(enabled)


def _compute_flags(flags: FrozenSet[str]) -> FrozenSet[str]:
    return frozenset(f for f in flags if f.startswith(_COMPUTE_PREFIXES)
                     and not f.startswith("-mno-") and f not in _TUNING_FLAGS)


def missing_features(mcpu: str, cc: Optional[str] = None) -> List[str]:
    """Instruction-set features code built for ``-march=mcpu`` needs that this host lacks."""
    cc = cc or DEFAULT_CC
    _, host = _gcc_target("native", cc)
    _, want = _gcc_target(_MCPU_ALIASES.get(mcpu, mcpu), cc)
    return sorted(f[2:] for f in _compute_flags(want) - _compute_flags(host))


@lru_cache(maxsize=None)
def isa_flags(mcpu: Optional[str] = None, cc: Optional[str] = None) -> Tuple[Tuple[str, ...], str]:
    """Compiler flags selecting the ISA and a string naming it exactly (for the cache key).

    ``mcpu=None`` (or ``"native"``) means this host. Raises TVMError when the host cannot run
    code built for ``mcpu``.
    """
    cc = cc or DEFAULT_CC
    march = "native" if mcpu in (None, "", "native") else _MCPU_ALIASES.get(mcpu, mcpu)
    resolved, flags = _gcc_target(march, cc)
    if march != "native":
        missing = missing_features(march, cc)
        if missing:
            raise TVMError(f"-mcpu={mcpu}: this host cannot run code built for {mcpu}; it lacks "
                           f"the CPU features {', '.join(missing)}")
    digest = hashlib.sha1(" ".join(sorted(flags)).encode()).hexdigest()[:16]
    return (f"-march={march}",), f"{resolved}:{digest}"
