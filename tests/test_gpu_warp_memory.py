"""``"warp"`` storage scope on CUDA: a buffer shared by the threadIdx.x lanes of one
(threadIdx.y, threadIdx.z) group, so a lane reads what other lanes of its group stored. It
lowers to shared memory with one copy per group (barriers from the barrier pass), checked in
the emulation's checking mode against numpy; the source compiles with nvcc."""
import shutil
import subprocess

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


def _rotate_rows(rows: int, ny: int, lanes: int = 32):
    """``B[i, j] = 2 * A[i, (j + 1) % lanes]``: each row through a warp buffer, ``ny`` rows per
    block on threadIdx.y, a lane reading its neighbour's element."""
    A = te.placeholder((rows, lanes), name="A")
    B = te.compute((rows, lanes), lambda i, j: A[i, (j + 1) % lanes] * 2.0, name="B")
    s = te.create_schedule(B.op)
    AW = s.cache_read(A, "warp", [B])
    i, j = B.op.axis
    bx, ty = s[B].split(i, factor=ny)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(ty, te.thread_axis("threadIdx.y"))
    s[B].bind(j, te.thread_axis("threadIdx.x"))
    s[AW].compute_at(s[B], ty)
    s[AW].bind(s[AW].op.axis[1], te.thread_axis("threadIdx.x"))
    return s, [A, B]


@pytest.mark.parametrize("rows,ny", [(37, 4), (8, 1), (13, 3)])
def test_lanes_read_each_others_warp_stores(rows, ny, tmp_path):
    s, args = _rotate_rows(rows, ny)
    mod = tvm.build(s, args, "cuda")
    a = np.random.rand(rows, 32).astype("float32")
    dev = tvm.cuda(0)
    b = tvm.nd.array(np.zeros((rows, 32), "float32"), dev)
    mod(tvm.nd.array(a, dev), b)
    np.testing.assert_allclose(b.numpy(), np.roll(a, -1, axis=1) * 2, rtol=1e-6)
    src = mod.imported_modules[0].get_source()
    # one copy of the 32 elements per threadIdx.y group, a barrier between store and load
    assert f"__shared__ float __align__(16) A_warp[{32 * ny}];" in src
    assert "__syncthreads();" in src
    if shutil.which("nvcc"):
        cu = tmp_path / "w.cu"
        cu.write_text(src)
        r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "w.o")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr


def test_warp_buffer_of_a_vector_add_matches_the_plain_schedule():
    """Differential: the same vector add with and without a warp cache of its input."""
    n = 1000
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    AW = s.cache_read(A, "warp", [B])
    bx, tx = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[AW].compute_at(s[B], bx)
    s[AW].bind(s[AW].op.axis[0], te.thread_axis("threadIdx.x"))
    mod = tvm.build(s, [A, B], "cuda")
    a = np.random.rand(n).astype("float32")
    dev = tvm.cuda(0)
    b = tvm.nd.array(np.zeros(n, "float32"), dev)
    mod(tvm.nd.array(a, dev), b)
    np.testing.assert_allclose(b.numpy(), a + 1, rtol=1e-6)
