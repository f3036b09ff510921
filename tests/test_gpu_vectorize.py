"""Vectorized loops in CUDA kernels: ``float4``/``int2``/``__half2`` loads and stores where
the accesses are contiguous and provably aligned, scalar accesses otherwise. The kernels run in
the CPU emulation against numpy at odd sizes, and their source compiles with nvcc."""

import numpy as np
import pytest
from nvcc_helpers import assert_sources_compile, needs_nvcc

import tvmlite as tvm
from tvmlite import te


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


def _scale(n, lanes, dtype="float32", shift=0, nt=32):
    """C[i] = A[i + shift] * 3 + 1 with threads over blocks of ``lanes`` vectorized
    elements."""
    A = te.placeholder((n + shift,), name="A", dtype=dtype)
    C = te.compute((n,), lambda i: A[i + shift] * tvm.tir.const(3, dtype)
                   + tvm.tir.const(1, dtype), name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=nt * lanes)
    tx, vi = s[C].split(tx, factor=lanes)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].vectorize(vi)
    return s, [A, C]


def _run(s, args, name="default_function"):
    A, C = args
    mod = tvm.build(s, args, "cuda", name=name)
    dev = tvm.cuda(0)
    a = (np.random.rand(*[int(x) for x in A.shape]) * 10).astype(A.dtype)
    c = tvm.nd.array(np.zeros([int(x) for x in C.shape], C.dtype), dev)
    mod(tvm.nd.array(a, dev), c)
    return a, c.numpy(), mod.imported_modules[0].get_source()


SOURCES = {}


@pytest.mark.parametrize("dtype,lanes,vtype", [("float32", 4, "float4"), ("float32", 2, "float2"),
                                               ("int32", 4, "int4"), ("int32", 2, "int2"),
                                               ("float16", 2, "__half2")])
def test_aligned_vector_loads_and_stores(dtype, lanes, vtype):
    n = 32 * lanes * 5
    s, args = _scale(n, lanes, dtype)
    a, got, src = _run(s, args, f"vec_{dtype}_{lanes}")
    ref = a * np.array(3, dtype) + np.array(1, dtype)
    np.testing.assert_allclose(got.astype("float64"), ref.astype("float64"), rtol=1e-3)
    assert f"{vtype} " in src and f"*(const {vtype}*)(A + " in src and f"*({vtype}*)(C + " in src
    SOURCES[f"vec_{dtype}_{lanes}"] = src


def test_misaligned_load_is_scalar_store_vector():
    """A[i + 1] is contiguous but starts off the float4 boundary: scalar loads, float4 store."""
    n = 32 * 4 * 3
    s, args = _scale(n, 4, shift=1)
    a, got, src = _run(s, args, "vec_shift")
    np.testing.assert_allclose(got, a[1:] * 3 + 1, rtol=1e-6)
    assert "*(float4*)(C + " in src and "const float4" not in src
    SOURCES["vec_shift"] = src


def test_tail_guard_falls_back_to_a_scalar_loop():
    """n = 1001: the last thread's lanes are guarded one by one, so the loop stays scalar."""
    s, args = _scale(1001, 4)
    a, got, src = _run(s, args, "vec_tail")
    np.testing.assert_allclose(got, a * 3 + 1, rtol=1e-6)
    assert "float4" not in src and "for (int32_t" in src
    SOURCES["vec_tail"] = src


def test_eight_lanes_stay_scalar():
    s, args = _scale(32 * 8 * 2, 8)
    a, got, src = _run(s, args, "vec_eight")
    np.testing.assert_allclose(got, a * 3 + 1, rtol=1e-6)
    assert "float4" not in src
    SOURCES["vec_eight"] = src


def test_vectorized_cooperative_fetch_into_shared_memory():
    """Classic cooperative fetching with a vectorized inner loop: float4 loads from global
    memory into a 16-byte aligned shared tile, then a per-thread row sum of the tile."""
    n, m = 37, 64
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(B.op.axis[1], te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], B.op.axis[0])
    _, j = s[AS].op.axis
    jo, ji = s[AS].split(j, factor=4)
    s[AS].bind(jo, te.thread_axis("threadIdx.x"))
    s[AS].vectorize(ji)
    a, got, src = _run(s, [A, B], "vec_fetch")
    np.testing.assert_allclose(got, a * 2, rtol=1e-6)
    assert "__shared__ float __align__(16) A_shared" in src
    assert "*(const float4*)(A + " in src and "*(float4*)(A_shared + " in src
    SOURCES["vec_fetch"] = src


@needs_nvcc
def test_vector_kernels_compile_with_nvcc(tmp_path):
    assert_sources_compile(SOURCES, tmp_path, at_least=9)
