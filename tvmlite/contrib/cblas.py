"""BLAS matrix multiply as a TE extern op (``tvm.contrib.cblas``), calling the CBLAS that
numpy ships (scipy-openblas) or, failing that, a system CBLAS.

``cblas.matmul(A, B)`` is a ``te.extern`` whose body is ``call_packed("tvm.contrib.cblas.
matmul", A, B, C, transa, transb)``; the packed function calls ``cblas_sgemm``/``cblas_dgemm``
on the arrays' memory.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import importlib
import os
from typing import Tuple

import numpy as np

from .. import te, tir
from ..error import TVMError
from ..runtime.packed_func import register_func

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
# (symbol prefix, suffix, integer type): scipy-openblas builds for numpy are ILP64 with
# prefixed symbols; plain CBLAS libraries use 32-bit integers.
_SYMBOLS = [("scipy_cblas_", "64_", ctypes.c_int64), ("scipy_cblas_", "", ctypes.c_int32),
            ("cblas_", "64_", ctypes.c_int64), ("cblas_", "", ctypes.c_int32)]


def _candidate_libraries() -> list:
    found = []
    numpy_dir = os.path.dirname(np.__file__)
    for pattern in ("*openblas*.so*", "*openblas*.dylib", "*openblas*.dll"):
        found += sorted(glob.glob(os.path.join(numpy_dir, os.pardir, "numpy.libs", pattern)))
        found += sorted(glob.glob(os.path.join(numpy_dir, ".dylibs", pattern)))
    for module in ("scipy_openblas64", "scipy_openblas32"):
        try:
            lib_dir = importlib.import_module(module).get_lib_dir()
        except (ImportError, AttributeError):
            continue
        found += sorted(glob.glob(os.path.join(lib_dir, "*openblas*")))
    for name in ("cblas", "openblas", "blas"):
        path = ctypes.util.find_library(name)
        if path:
            found.append(path)
    return found


@functools.lru_cache(maxsize=None)
def _gemm(dtype: str) -> Tuple[object, type]:
    letter = {"float32": "s", "float64": "d"}.get(dtype)
    if letter is None:
        raise TVMError(f"cblas.matmul: dtype {dtype} is not supported (float32 and float64 are)")
    for path in _candidate_libraries():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix, int_t in _SYMBOLS:
            fn = getattr(lib, f"{prefix}{letter}gemm{suffix}", None)
            if fn is not None:
                real = ctypes.c_float if letter == "s" else ctypes.c_double
                fn.restype = None
                fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, int_t, int_t, int_t,
                               real, ctypes.c_void_p, int_t, ctypes.c_void_p, int_t, real,
                               ctypes.c_void_p, int_t]
                return fn, int_t
    raise TVMError("tvm.contrib.cblas: no CBLAS library found (looked for the OpenBLAS numpy "
                   "ships and a system libcblas/libopenblas)")


def library_found() -> bool:
    """Whether a CBLAS library is available for :func:`matmul`."""
    try:
        _gemm("float32")
    except TVMError:
        return False
    return True


def _sgemm(a: np.ndarray, b: np.ndarray, c: np.ndarray, transa: bool, transb: bool) -> None:
    if c.dtype != a.dtype or b.dtype != a.dtype:
        raise TVMError(f"cblas.matmul: dtypes differ ({a.dtype}, {b.dtype}, {c.dtype})")
    fn, _ = _gemm(str(a.dtype))
    m, k = (a.shape[1], a.shape[0]) if transa else a.shape
    kb, n = (b.shape[1], b.shape[0]) if transb else b.shape
    if k != kb or c.shape != (m, n):
        raise TVMError(f"cblas.matmul: shapes {a.shape} x {b.shape} -> {c.shape} do not match "
                       f"(transa={transa}, transb={transb})")
    for x in (a, b, c):
        if not x.flags.c_contiguous:
            raise TVMError("cblas.matmul: arrays must be compact (row major)")
    if m == 0 or n == 0:
        return
    if k == 0:
        c[...] = 0
        return
    fn(_ROW_MAJOR, _TRANS if transa else _NO_TRANS, _TRANS if transb else _NO_TRANS, m, n, k,
       1.0, a.ctypes.data, a.shape[1], b.ctypes.data, b.shape[1], 0.0, c.ctypes.data, n)


def _view(x) -> np.ndarray:
    return x._numpy_view() if hasattr(x, "_numpy_view") else np.asarray(x)


@register_func("tvm.contrib.cblas.matmul", override=True)
def _matmul_packed(a, b, c, transa=0, transb=0) -> None:
    _sgemm(_view(a), _view(b), _view(c), bool(transa), bool(transb))


@register_func("tvm.contrib.cblas.batch_matmul", override=True)
def _batch_matmul_packed(a, b, c, transa=0, transb=0) -> None:
    a, b, c = _view(a), _view(b), _view(c)
    if a.ndim != 3 or b.ndim != 3 or c.ndim != 3 or b.shape[0] not in (1, a.shape[0]):
        raise TVMError(f"cblas.batch_matmul: bad shapes {a.shape} x {b.shape} -> {c.shape}")
    for i in range(a.shape[0]):
        _sgemm(a[i], b[i if b.shape[0] > 1 else 0], c[i], bool(transa), bool(transb))


register_func("tvm.contrib.cblas.batch_matmul_iterative", _batch_matmul_packed, override=True)


def matmul(lhs, rhs, transa: bool = False, transb: bool = False, **kwargs):
    """``lhs @ rhs`` (each optionally transposed) as an extern op computed by BLAS gemm.

    Returns the output tensor of shape ``(n, m)``."""
    n = lhs.shape[1] if transa else lhs.shape[0]
    m = rhs.shape[0] if transb else rhs.shape[1]
    return te.extern((n, m), [lhs, rhs], lambda ins, outs: tir.call_packed(
        "tvm.contrib.cblas.matmul", ins[0], ins[1], outs[0], transa, transb),
        name=kwargs.pop("name", "C"), **kwargs)


def batch_matmul(lhs, rhs, transa: bool = False, transb: bool = False, iterative: bool = False,
                 **kwargs):
    """Batched :func:`matmul` over the first axis (``rhs`` may have batch 1)."""
    b = lhs.shape[0]
    n = lhs.shape[2] if transa else lhs.shape[1]
    m = rhs.shape[1] if transb else rhs.shape[2]
    name = "tvm.contrib.cblas.batch_matmul" + ("_iterative" if iterative else "")
    return te.extern((b, n, m), [lhs, rhs], lambda ins, outs: tir.call_packed(
        name, ins[0], ins[1], outs[0], transa, transb),
        name=kwargs.pop("name", "C"), **kwargs)


__all__ = ["matmul", "batch_matmul", "library_found"]
