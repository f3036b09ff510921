"""``tvm.tir.analysis.verify_gpu_code`` (classic's check of a GPU function against a device's
limits) at phases 1 and 2 of the lowering, and AutoTVM's GPU builds rejecting candidates over
the limits (INSTANTIATION_ERROR) before any C is generated."""
import time

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm, te, topi  # noqa: F401  (registers conv2d_nchw.cuda)
from tvmlite.autotvm.measure import MeasureErrorNo, MeasureInput
from tvmlite.error import TVMError


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")


def _verified(s, args, phase=2, **constraints):
    """Build ``s`` for cuda with a verify pass at ``phase``; the verdict and the errors."""
    seen = []

    def check(func, mod, ctx):
        seen.append((tvm.tir.analysis.verify_gpu_code(func, constraints),
                     tvm.tir.analysis.gpu_code_errors(func, constraints)))
        return func

    vpass = tvm.tir.transform.prim_func_pass(check, opt_level=0)
    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(phase, vpass)]}):
        f = tvm.build(s, args, "cuda")
    assert len(seen) == 1
    return seen[0][0], seen[0][1], f


def test_num_threads_per_block_and_per_axis():
    n, m = 1024, 128
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    o, i = s[B].split(B.op.axis[0], m)
    s[B].bind(o, te.thread_axis("threadIdx.x"))
    s[B].bind(i, te.thread_axis("threadIdx.y"))
    ok, errs, _ = _verified(s, [A, B], max_shared_memory_per_block=0, max_threads_per_block=n - 1)
    assert not ok and "threads per block (1024)" in errs[0] and "(1023)" in errs[0]
    assert _verified(s, [A, B], max_shared_memory_per_block=0, max_threads_per_block=n)[0]
    ok, errs, _ = _verified(s, [A, B], max_threads_per_block=n, max_thread_y=m - 1)
    assert not ok and "extent of threadIdx.y (128)" in errs[0]
    ok, _, f = _verified(s, [A, B], max_threads_per_block=n, max_thread_y=m)
    assert ok
    a = np.random.default_rng(0).normal(size=n).astype("float32")
    dev = tvm.cuda(0)
    b = tvm.nd.array(np.zeros(n, "float32"), dev)
    f(tvm.nd.array(a, dev), b)
    np.testing.assert_allclose(b.numpy(), a + 1, rtol=1e-6)


def _tiled_matmul(n=37, tile=8):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    CL = s.cache_write(C, "local")
    by, ty = s[C].split(C.op.axis[0], factor=tile)
    bx, tx = s[C].split(C.op.axis[1], factor=tile)
    s[C].reorder(by, bx, ty, tx)
    for ax, tag in ((by, "blockIdx.y"), (bx, "blockIdx.x"), (ty, "threadIdx.y"),
                    (tx, "threadIdx.x")):
        s[C].bind(ax, te.thread_axis(tag))
    s[CL].compute_at(s[C], tx)
    ko, _ = s[CL].split(CL.op.reduce_axis[0], factor=4)
    s[AA].compute_at(s[CL], ko)
    fused = s[AA].fuse(*s[AA].op.axis)
    t_y, rest = s[AA].split(fused, nparts=tile)
    s[AA].bind(t_y, te.thread_axis("threadIdx.y"))
    s[AA].bind(s[AA].split(rest, nparts=tile)[0], te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


def test_shared_and_local_memory():
    s, args = _tiled_matmul()
    shared = 64 * 4  # the A_shared the kernel declares (an 8 x 8 tile per k step), float32
    local = 4  # one accumulator per thread
    ok, _, f = _verified(s, args, max_shared_memory_per_block=shared)
    assert ok and " A_shared[64];" in f.imported_modules[0].get_source()
    ok, errs, _ = _verified(s, args, max_shared_memory_per_block=shared - 1)
    assert not ok and f"bytes of shared memory per block ({shared})" in errs[0]
    assert _verified(s, args, max_local_memory_per_block=local)[0]
    ok, errs, _ = _verified(s, args, max_local_memory_per_block=local - 1)
    assert not ok and "bytes of local memory per thread (4)" in errs[0]
    # at phase 1 nothing is compacted yet: thread limits hold there too
    assert _verified(s, args, phase=1, max_threads_per_block=64)[0]
    assert not _verified(s, args, phase=1, max_threads_per_block=63)[0]


@pytest.mark.parametrize("phase", [1, 2])
def test_vthread(phase):
    """Classic's case (16 vthreads at phase 1 and after injection), and the product of
    nested vthreads."""
    n = 64
    A = te.placeholder((n, 16), name="A")
    B = te.compute((n, 16), lambda i, j: A[i, j] * 2, name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(B.op.axis[1], te.thread_axis("vthread"))
    assert _verified(s, [A, B], phase, max_vthread=16)[0]
    ok, errs, _ = _verified(s, [A, B], phase, max_vthread=15)
    assert not ok and "virtual threads (product of the vthread extents) (16)" in errs[0]

    C = te.compute((n, 12), lambda i, j: A[i, j] + 1, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], nparts=4)
    yo, yi = s[C].split(C.op.axis[1], nparts=3)
    s[C].reorder(xo, yo, xi, yi)
    s[C].bind(xo, te.thread_axis("vthread"))
    s[C].bind(yo, te.thread_axis("vthread"))
    s[C].bind(xi, te.thread_axis("blockIdx.x"))
    s[C].bind(yi, te.thread_axis("threadIdx.x"))
    assert _verified(s, [A, C], phase, max_vthread=12)[0]
    ok, errs, f = _verified(s, [A, C], phase, max_vthread=11)
    assert not ok and "(12)" in errs[0]
    a = np.random.default_rng(1).normal(size=(n, 16)).astype("float32")
    dev = tvm.cuda(0)
    c = tvm.nd.array(np.zeros((n, 12), "float32"), dev)
    f(tvm.nd.array(a, dev), c)
    np.testing.assert_allclose(c.numpy(), a[:, :12] + 1, rtol=1e-6)


def test_vector_bytes():
    n = 4 * 37
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3, name="B")
    s = te.create_schedule(B.op)
    o, v = s[B].split(B.op.axis[0], factor=4)
    bx, tx = s[B].split(o, factor=8)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[B].vectorize(v)
    assert _verified(s, [A, B], max_vector_bytes=16)[0]
    ok, errs, _ = _verified(s, [A, B], max_vector_bytes=8)
    assert not ok and "4 lanes of float32 are 16 bytes" in errs[0]
    # the CPU-style lowering (vector expressions) is checked just the same
    func = tvm.lower(s, [A, B])["main"]
    assert tvm.tir.analysis.verify_gpu_code(func, {"max_vector_bytes": 16})
    assert not tvm.tir.analysis.verify_gpu_code(func, {"max_vector_bytes": 8})


def test_kernels_and_bad_constraints():
    s, args = _tiled_matmul()
    func = tvm.lower(s, args)["main"]
    assert tvm.tir.analysis.verify_gpu_code(func, {"max_kernels": 1})
    assert not tvm.tir.analysis.verify_gpu_code(func, {"max_kernels": 0})
    with pytest.raises(TVMError, match="unknown constraint 'max_warps'"):
        tvm.tir.analysis.verify_gpu_code(func, {"max_warps": 1})
    with pytest.raises(TVMError, match="max_vthread must be an integer"):
        tvm.tir.analysis.verify_gpu_code(func, {"max_vthread": 1.5})


def test_tuning_rejects_huge_vthread_configs_before_building():
    """conv2d_nchw.cuda at this shape offers up to 8x9x9 virtual threads: those configs are
    INSTANTIATION_ERRORs within seconds, the others build and run correctly."""
    shapes = ((1, 3, 9, 9), (8, 3, 3, 3))
    args = (("TENSOR", shapes[0], "float32"), ("TENSOR", shapes[1], "float32"), (1, 1),
            (1, 1), (1, 1), "float32")
    task = autotvm.task.create("conv2d_nchw.cuda", args=args, target="cuda")
    space = task.config_space

    def vthreads(i):
        c = space.get(i)
        return c["tile_f"].size[1] * c["tile_y"].size[1] * c["tile_x"].size[1]

    huge = [i for i in range(0, len(space), 7) if vthreads(i) >= 216][:3]
    small = [0, 1]
    assert len(huge) == 3
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(timeout=120),
        runner=autotvm.LocalRunner(number=1, repeat=1, timeout=60, check_correctness=True))
    batch = autotvm.measure.create_measure_batch(task, option)
    t0 = time.perf_counter()
    res = batch([MeasureInput(task.target, task, space.get(i)) for i in huge + small])
    elapsed = time.perf_counter() - t0
    for r in res[:3]:
        assert r.error_no == MeasureErrorNo.INSTANTIATION_ERROR, r
        assert "max_vthread" in str(r.costs[0]), r
        assert r.all_cost < 30, r
    assert all(r.error_no == 0 for r in res[3:]), res[3:]
    assert elapsed < 300
