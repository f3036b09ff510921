"""CUDA C to PTX or cubin with NVRTC (``cuda-python``'s ``cuda.bindings.nvrtc``), cached on disk.

NVRTC needs no GPU, so kernels compile (and their compile errors show) on any machine with the
``[cuda]`` extra. Results live in the build cache of :mod:`tvmlite.contrib.cc`
(``~/.cache/tvmlite``), keyed by the source, the architecture, the options and NVRTC's version.
"""
from __future__ import annotations

import hashlib
import os
import time
from functools import lru_cache
from typing import Optional, Sequence

from ..contrib import cc
from ..contrib.utils import atomic_write
from ..error import CompileError, TVMError

# compile counts and seconds spent in NVRTC (cache hits cost neither)
stats = {"compiles": 0, "seconds": 0.0, "hits": 0}


@lru_cache(maxsize=None)
def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        try:
            from cuda import nvrtc  # cuda-python 11.x/12.0 layout
        except ImportError:
            raise TVMError("compiling CUDA needs NVIDIA's Python bindings: pip install "
                           "'tvmlite[cuda]' (cuda-python and nvidia-cuda-nvrtc)") from None
    try:
        err, major, minor = nvrtc.nvrtcVersion()
    except Exception as e:  # noqa: BLE001  (libnvrtc.so missing: the loader raises)
        raise TVMError(f"NVRTC is not usable: {e} (pip install nvidia-cuda-nvrtc)") from None
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise TVMError(f"NVRTC is not usable: {err}")
    return nvrtc, f"{major}.{minor}"


def nvrtc_available() -> bool:
    """Whether CUDA C can be compiled here (NVRTC loads)."""
    try:
        _nvrtc()
        return True
    except TVMError:
        return False


def nvrtc_version() -> str:
    return _nvrtc()[1]


@lru_cache(maxsize=None)
def _include_dirs() -> tuple:
    """CUDA header directories (``cuda_fp16.h``): the toolkit's, if one is installed."""
    from ..contrib.nvcc import find_cuda_path

    try:
        path = os.path.join(find_cuda_path(), "include")
    except RuntimeError:
        return ()
    return (path,) if os.path.isfile(os.path.join(path, "cuda_fp16.h")) else ()


def arch_of(target=None, arch: Optional[str] = None) -> str:
    """The ``sm_XY`` to compile for: ``arch``, the target's ``-arch``, or sm_90 (H100)."""
    if arch:
        return arch
    a = None
    if target is not None:
        a = target.attrs.get("arch") if hasattr(target, "attrs") else None
    return str(a) if a else "sm_90"


def _check(nvrtc, prog, result, what: str, name: str):
    err = result[0]
    if err == nvrtc.nvrtcResult.NVRTC_SUCCESS:
        return result[1:]
    log = ""
    if prog is not None:
        e, n = nvrtc.nvrtcGetProgramLogSize(prog)
        if e == nvrtc.nvrtcResult.NVRTC_SUCCESS and n > 1:
            buf = b" " * n
            nvrtc.nvrtcGetProgramLog(prog, buf)
            log = buf.rstrip(b"\0 ").decode(errors="replace")
    why = getattr(err, "name", err)
    raise CompileError(f"NVRTC {what} of {name} failed ({why})" + (f":\n{log}" if log else ""))


def _compile(source: str, arch: str, options: Sequence[str], name: str) -> dict:
    """One NVRTC compile: ``{"ptx": ..., "cubin": ...}``."""
    nvrtc, _ = _nvrtc()
    opts = [f"-arch={arch}"] + [f"-I{d}" for d in _include_dirs()] + list(options)
    t0 = time.perf_counter()
    (prog,) = _check(nvrtc, None, nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0,
                                                           [], []), "setup", name)
    out = {}
    try:
        _check(nvrtc, prog, nvrtc.nvrtcCompileProgram(prog, len(opts),
                                                      [o.encode() for o in opts]),
               "compilation", name)
        (n,) = _check(nvrtc, prog, nvrtc.nvrtcGetPTXSize(prog), "PTX size", name)
        buf = b" " * n
        _check(nvrtc, prog, nvrtc.nvrtcGetPTX(prog, buf), "PTX", name)
        out["ptx"] = bytes(buf.rstrip(b"\0"))
        (n,) = _check(nvrtc, prog, nvrtc.nvrtcGetCUBINSize(prog), "cubin size", name)
        buf = b" " * n
        _check(nvrtc, prog, nvrtc.nvrtcGetCUBIN(prog, buf), "cubin", name)
        out["cubin"] = bytes(buf)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    stats["compiles"] += 1
    stats["seconds"] += time.perf_counter() - t0
    return out


def compile_cuda(source: str, arch: str = "sm_90", fmt: str = "ptx",
                 options: Sequence[str] = (), name: str = "tvmlite_kernels.cu") -> bytes:
    """Compile CUDA C ``source`` for ``arch`` to PTX (``fmt="ptx"``, text) or a cubin.

    One NVRTC run makes both; both are cached on disk. A compile error is a
    :class:`CompileError` with NVRTC's log.
    """
    if fmt not in ("ptx", "cubin"):
        raise TVMError(f"compile_cuda: format {fmt!r} is not supported (use ptx or cubin)")
    if not str(arch).startswith("sm_"):
        raise TVMError(f"compile_cuda: arch must look like sm_90, got {arch!r}")
    h = hashlib.sha256()
    for part in (source, arch, "\0".join(options), nvrtc_version(), *_include_dirs()):
        h.update(part.encode() + b"\1")
    base = cc.cache_dir() / f"nvrtc-{h.hexdigest()[:32]}"
    want = base.with_suffix(f".{fmt}")
    if want.exists() and want.stat().st_size > 0:
        stats["hits"] += 1
        return want.read_bytes()
    out = _compile(source, arch, options, name)
    for k, data in out.items():
        atomic_write(base.with_suffix(f".{k}"), data)
    return out[fmt]


__all__ = ["compile_cuda", "nvrtc_available", "nvrtc_version", "arch_of", "stats"]
