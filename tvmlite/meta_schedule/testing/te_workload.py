"""TE definitions of common workloads (``tvm.meta_schedule.testing.te_workload``): each
returns the tensors to pass to ``te.create_prim_func``, inputs first."""
from __future__ import annotations

from typing import Tuple

from ... import te, tir


def matmul(n: int, m: int, k: int, in_dtype: str = "float32",
           out_dtype: str = "float32") -> Tuple[te.Tensor, te.Tensor, te.Tensor]:
    """``C[i, j] = sum_k A[i, k] * B[k, j]`` with A (n, k) and B (k, m), accumulated in
    ``out_dtype``."""
    a = te.placeholder((n, k), name="A", dtype=in_dtype)
    b = te.placeholder((k, m), name="B", dtype=in_dtype)
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((n, m), lambda i, j: te.sum(
        a[i, r].astype(out_dtype) * b[r, j].astype(out_dtype), axis=[r]), name="C")
    return a, b, c


def matmul_relu(n: int, m: int, k: int, in_dtype: str = "float32",
                out_dtype: str = "float32") -> Tuple[te.Tensor, te.Tensor, te.Tensor]:
    """:func:`matmul` followed by ``max(C, 0)``."""
    a, b, c = matmul(n, m, k, in_dtype, out_dtype)
    d = te.compute((n, m), lambda i, j: tir.max(c[i, j], tir.const(0, out_dtype)), name="D")
    return a, b, d
