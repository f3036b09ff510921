"""TopHub: pre-tuned AutoTVM logs per backend (``autotvm.tophub``), offline.

Classic TVM downloads ``<backend>_v<version>.log`` files from the TopHub repository into
``~/.tvm/tophub`` and applies them under ``relay.build``. tvmlite never downloads: it applies
the files already in that folder (or in ``$TOPHUB_LOCATION`` when that is a folder), plus
``extra_files``; a backend with no local file gets a warning naming the file it would use, as
classic TVM warns when its download fails.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Iterable, List, Optional, Union

from ..target.target import Target
from .apply_history_best import ApplyHistoryBest

logger = logging.getLogger("autotvm")

AUTOTVM_TOPHUB_LOC_VAR = "TOPHUB_LOCATION"
AUTOTVM_TOPHUB_DEFAULT_LOC = "https://raw.githubusercontent.com/tlc-pack/tophub/main/tophub"
AUTOTVM_TOPHUB_NONE_LOC = "NONE"
AUTOTVM_TOPHUB_ROOT_PATH = Path("~").expanduser() / ".tvm" / "tophub"

# the log versions classic TVM v0.12 asks for, per backend
PACKAGE_VERSION = {
    "arm_cpu": "v0.08", "llvm": "v0.04", "cuda": "v0.10", "rocm": "v0.05", "opencl": "v0.04",
    "mali": "v0.06", "intel_graphics": "v0.02", "vta": "v0.10",
    "amd_apu": "v0.01", "adreno": "v0.01",
}

_ALIASES = {"webgpu": "opencl", "vulkan": "opencl", "nvptx": "cuda", "amd_apu": "amd_apu"}


def _alias(name: str) -> str:
    return _ALIASES.get(name, name)


def _root() -> Path:
    loc = os.environ.get(AUTOTVM_TOPHUB_LOC_VAR)
    if loc and loc != AUTOTVM_TOPHUB_NONE_LOC and Path(loc).is_dir():
        return Path(loc)
    return AUTOTVM_TOPHUB_ROOT_PATH


def _backends(target: Target) -> List[str]:
    device = target.attrs.get("device")
    names = [str(device)] if device not in (None, True) else []
    names.append(target.kind.name)
    model = target.attrs.get("model")
    if model not in (None, True) and "arm_cpu" not in names and target.kind.name == "llvm" \
            and str(model) != "unknown":
        names.insert(0, "arm_cpu")
    return [_alias(n) for n in names if _alias(n) in PACKAGE_VERSION]


def check_backend(tophub_location: Union[str, Path, None], backend: str) -> bool:
    """Whether ``backend``'s log is available locally (tvmlite never downloads it)."""
    backend = _alias(backend)
    if backend not in PACKAGE_VERSION:
        logger.warning("tophub: no pre-tuned logs for backend %r", backend)
        return False
    path = _root() / f"{backend}_{PACKAGE_VERSION[backend]}.log"
    if path.is_file():
        return True
    logger.warning("tophub: %s is not there and tvmlite does not download it (from %s); "
                   "the fallback configs are used", path, tophub_location
                   or AUTOTVM_TOPHUB_DEFAULT_LOC)
    return False


def context(target: Union[str, Target, Iterable], extra_files: Optional[List[str]] = None
            ) -> ApplyHistoryBest:
    """A dispatch context with the best local TopHub records for ``target`` (a target or a
    list of them) and ``extra_files``."""
    targets = target if isinstance(target, (list, tuple)) else [target]
    best = ApplyHistoryBest([])
    if os.environ.get(AUTOTVM_TOPHUB_LOC_VAR) != AUTOTVM_TOPHUB_NONE_LOC:
        for t in targets:
            t = t if isinstance(t, Target) else Target(str(t))
            for backend in _backends(t):
                if check_backend(os.environ.get(AUTOTVM_TOPHUB_LOC_VAR), backend):
                    best.load(str(_root() / f"{backend}_{PACKAGE_VERSION[backend]}.log"))
    for f in extra_files or ():
        best.load(f)
    return best


def load_reference_log(backend: str, model: str, workload_name: str) -> list:
    """The local reference records of ``backend`` for ``model`` and ``workload_name``
    (an empty list when the log is not there)."""
    from .record import load_from_file

    backend = _alias(backend)
    path = _root() / f"{backend}_{PACKAGE_VERSION.get(backend, '')}.log"
    if not path.is_file():
        return []
    out = []
    for inp, _res in load_from_file(str(path)):
        if workload_name in str(inp.task.workload) and model in str(inp.target):
            out.append(inp.config)
    return out
