"""Cross-thread reductions (rfactor + bind of the reduction axis to threadIdx.x, the classic
``allreduce``): warp shuffles within a warp, a shared buffer across warps, a shared-memory
tree for other thread counts. Run in the emulation's checking mode against numpy at odd sizes;
the source compiles with nvcc."""

import numpy as np
import pytest
from nvcc_helpers import assert_sources_compile, needs_nvcc

import tvmlite as tvm
from tvmlite import te


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


def _row_reduce(n, m, nx, ny=1, kind="sum", dtype="float32"):
    """B[i] = reduce_k A[i, k], classic tutorial schedule: rfactor over ``nx`` threads on
    threadIdx.x, ``ny`` rows per block on threadIdx.y."""
    A = te.placeholder((n, m), name="A", dtype=dtype)
    k = te.reduce_axis((0, m), "k")
    f = {"sum": te.sum, "max": te.max, "min": te.min}[kind]
    B = te.compute((n,), lambda i: f(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    _, ki = s[B].split(B.op.reduce_axis[0], factor=nx)
    BF = s.rfactor(B, ki)
    if ny > 1:
        bx, ty = s[B].split(s[B].op.axis[0], factor=ny)
        s[B].bind(ty, te.thread_axis("threadIdx.y"))
    else:
        bx = s[B].op.axis[0]
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    tx = s[B].op.reduce_axis[0]
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[BF].compute_at(s[B], tx)
    return s, [A, B]


SOURCES = {}


def _check(n, m, nx, ny=1, kind="sum", dtype="float32"):
    s, args = _row_reduce(n, m, nx, ny, kind, dtype)
    name = f"red_{n}_{m}_{nx}_{ny}_{kind}_{dtype}"
    mod = tvm.build(s, args, "cuda", name=name)
    if dtype.startswith("int"):  # sums within the type's range
        hi = 2 if dtype == "int8" else 1000
        a = np.random.randint(1 - hi, hi, size=(n, m)).astype(dtype)
    else:
        a = np.random.rand(n, m).astype(dtype)
    dev = tvm.cuda(0)
    out = tvm.nd.array(np.zeros(n, dtype), dev)
    mod(tvm.nd.array(a, dev), out)
    ref = {"sum": a.sum(1), "max": a.max(1), "min": a.min(1)}[kind]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5)
    src = mod.imported_modules[0].get_source()
    SOURCES[name] = src
    return src


@pytest.mark.parametrize("nx", [64, 128, 1024])
def test_row_sums_across_warps(nx):
    """Shuffles in each warp, the warps' sums through shared memory, shuffles again."""
    src = _check(37, 1000, nx)
    # every lane of a block of whole warps takes part in the shuffles
    assert src.count("__shfl_down_sync(0xffffffffu, ") == 5 + (nx // 32).bit_length() - 1
    assert "__shared__ float __align__(16) red_B_warps[" in src and "__syncthreads();" in src


@pytest.mark.parametrize("nx,ny", [(32, 1), (8, 4), (2, 3), (16, 5)])
def test_row_sums_within_a_warp(nx, ny):
    """2^k <= 32 threads per row: shuffles of width nx, no shared memory, no barrier; the
    shuffles and the warp's sync name the lanes that exist (a block's last warp may be
    partial); the warp syncs after the shuffles, before thread 0 updates the element every
    thread of the row initialised."""
    src = _check(37, 1000, nx, ny)
    mask = WARP_MASKS[(nx, ny)]
    assert f"__shfl_down_sync({mask}, red_B_local[0], 1, {nx})" in src
    assert "__shared__" not in src and "__syncthreads" not in src and "__activemask" not in src
    last_shuffle = src.rindex("__shfl_down_sync(")
    sync = src.index(f"__syncwarp({mask});")
    update = src.index("if (((int)threadIdx.x) == 0)" if ny == 1 else
                       "if ((((int)threadIdx.x) == 0)")
    assert last_shuffle < sync < update and src.count("__syncwarp(") == 1


WARP_MASKS = {(32, 1): "0xffffffffu", (8, 4): "0xffffffffu", (2, 3): "0x3fu",
              (16, 5): "(((((int)threadIdx.y) * 16 + ((int)threadIdx.x)) >> 5) == 2 ? 0xffffu "
                       ": 0xffffffffu)"}


@pytest.mark.parametrize("nx,ny", [(100, 1), (250, 2), (7, 3), (96, 2)])
def test_other_thread_counts_reduce_with_a_tree(nx, ny):
    """Not a power of two under 32, nor a multiple of 32 (96 is: shuffles and warps)."""
    src = _check(37, 1000, nx, ny)
    if nx % 32:
        assert "__shfl" not in src and "__shared__ float __align__(16) red_B[" in src
    else:
        assert "red_B_warps" in src


@pytest.mark.parametrize("kind,dtype,nx", [("max", "float32", 64), ("min", "float32", 16),
                                           ("sum", "int32", 128), ("max", "int32", 100),
                                           ("sum", "float64", 64), ("sum", "int8", 32)])
def test_other_reducers_and_types(kind, dtype, nx):
    src = _check(13, 333, nx, 1, kind, dtype)
    if dtype == "int8":  # no shuffle of 8-bit values: the tree
        assert "__shfl" not in src


@needs_nvcc
def test_reduction_kernels_compile_with_nvcc(tmp_path):
    assert_sources_compile(SOURCES, tmp_path, at_least=17)


@pytest.mark.parametrize("nx,ny", [(32, 1), (8, 4)])
def test_opencl_reduces_with_a_tree(nx, ny):
    """OpenCL has no warp shuffles (classic: its warp size is 1): the shared-memory tree with
    OpenCL barriers, and the CUDA build of the same schedule still shuffles."""
    s, args = _row_reduce(37, 1000, nx, ny)
    src = tvm.build(s, args, "opencl").imported_modules[0].get_source()
    assert "__shfl" not in src and "__syncwarp" not in src and "__syncthreads" not in src
    assert "__local float red_B[" in src and "barrier(CLK_LOCAL_MEM_FENCE);" in src
    assert "__shfl_down_sync(" in _check(37, 1000, nx, ny)
