"""The device part of a module built for ``cuda``, and the launches of its kernels.

``mod.imported_modules[0]`` of a CUDA build is a :class:`CUDAModule`: ``get_source()`` is the
CUDA C source, ``get_source("ptx")`` the PTX NVRTC made of it (compiled on first request in an
emulated build). A build run by the driver API embeds source, PTX and kernel signatures in its
host library's metadata, so ``export_library`` writes host code + PTX in one file and
``load_module`` gives them back; its host code launches each kernel through the global
function :data:`LAUNCH_FUNC`.
"""
from __future__ import annotations

import base64
import os
from typing import Dict, List, Optional

from ..error import TVMError
from . import cuda_driver
from .packed_func import register_func

LAUNCH_FUNC = "tvmlite.cuda.launch"

# key → (images, {kernel: parameter types}) of every driver-run module loaded so far; the
# images are the cubin for the build's arch (loads without JIT on any recent driver) and
# the PTX (JIT-compiled where the cubin does not fit the device)
_IMAGES: Dict[str, tuple] = {}


class CUDAModule:
    """``mod.imported_modules[0]`` of a CUDA build: the kernels' CUDA C source and PTX."""

    type_key = "cuda"

    def __init__(self, source: str, kernels: List[str], ptx: Optional[str] = None,
                 arch: str = "sm_90"):
        self._source = source
        self.kernels = list(kernels)
        self._ptx = ptx
        self.arch = arch
        self.imported_modules: list = []

    def get_source(self, fmt: str = "") -> str:
        """The CUDA C source (``fmt`` "" or "cu"), or its PTX (``fmt="ptx"``)."""
        if fmt in ("", "cu", "cuda"):
            return self._source
        if fmt == "ptx":
            if self._ptx is None:
                from .cuda_compile import compile_cuda

                self._ptx = compile_cuda(self._source, self.arch, "ptx").decode()
            return self._ptx
        raise TVMError(f"CUDA module: unknown source format {fmt!r} (use cu or ptx)")

    def save(self, file_name: str, fmt: str = "") -> None:
        """Save the CUDA source (``.cu``) or the PTX (``.ptx``)."""
        fmt = fmt or os.path.splitext(file_name)[1].lstrip(".")
        with open(file_name, "w") as fh:
            fh.write(self.get_source("ptx" if fmt == "ptx" else ""))

    def __call__(self, *args):
        raise TVMError("the CUDA device module is launched through its host module; call "
                       "the module tvm.build returned")

    def __repr__(self) -> str:
        return f"Module(cuda, {id(self):x})"


CUDASourceModule = CUDAModule  # the emulated build's name for it


def attach_cuda(module, meta: dict) -> None:
    """Give a driver-run host ``module`` its CUDA device module and register its kernels for
    :data:`LAUNCH_FUNC` (at build time and when the library is loaded back)."""
    images = [meta["ptx"].encode()]
    if meta.get("cubin"):
        images.insert(0, base64.b64decode(meta["cubin"]))
    _IMAGES[meta["key"]] = (images, meta["kernels"])
    module.imported_modules[:] = [CUDAModule(meta["source"], list(meta["kernels"]), meta["ptx"],
                                             meta.get("arch", "sm_90"))]


@register_func(LAUNCH_FUNC)
def _launch(key: str, name: str, gx: int, gy: int, gz: int, bx: int, by: int, bz: int,
            *args) -> None:
    image = _IMAGES.get(key)
    if image is None:
        raise TVMError(f"launch of {name}: its module's PTX is not loaded")
    images, kernels = image
    if gx <= 0 or gy <= 0 or gz <= 0:
        return  # an empty grid (a zero-sized symbolic shape) has nothing to do
    dev = cuda_driver.current_device()
    func = cuda_driver.get_function(key, images, name, dev)
    cuda_driver.launch(func, (gx, gy, gz), (bx, by, bz), kernels[name], args, name)


def time_evaluator(f, dev, number: int, repeat: int, min_repeat_ms: float):
    """A ``time_evaluator`` for a function of a driver-run module: each measurement is the
    device time between two CUDA events around ``number`` runs (after one warm-up run)."""
    from .module import BenchmarkResult

    def evaluator(*args) -> BenchmarkResult:
        cuda_driver.set_device(dev.device_id)
        f(*args)
        timer = cuda_driver.EventTimer(dev.device_id)
        results = []
        num = number
        for _ in range(repeat):
            while True:
                timer.record_start()
                for _ in range(num):
                    f(*args)
                ms = timer.elapsed_ms()
                if min_repeat_ms <= 0 or ms >= min_repeat_ms:
                    break
                num = max(int(num * 1.618) + 1, int(min_repeat_ms / max(ms / num, 1e-6)) + 1)
            results.append(ms * 1e-3 / num)
        return BenchmarkResult(results)

    return evaluator
