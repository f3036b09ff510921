"""The GPU lowering passes one by one: kernels and launch extents, barrier placement,
host/device split and the CPU emulation's structure."""
import sys
from pathlib import Path

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.driver.build_module import Sequential, gpu_passes, lower
from tvmlite.error import TVMError
from tvmlite.runtime.device import cuda_available
from tvmlite.tir.transform.gpu_emulate import emulate_gpu_kernels
from tvmlite.tir.transform.gpu_kernels import KERNEL_ATTR
from tvmlite.tir.transform.gpu_split_host_device import split_host_device

sys.path.insert(0, str(Path(__file__).parent))
import book_ch5 as b  # noqa: E402


def _gpu_lower(sch, args):
    mod = lower(sch, list(args))
    return Sequential(gpu_passes(tvm.target.Target("cuda")))(mod)["main"]


def _kernels(func):
    found = []

    class V(tvm.tir.functor.Visitor):
        def visit_AttrStmt(self, s):
            if s.attr_key == KERNEL_ATTR:
                found.append(s)
            self.generic(s)

    V().visit(func.body)
    return found


def test_launch_extents_of_the_book_matmul():
    func = _gpu_lower(*b.matmul_gpu(300))
    (k,) = _kernels(func)
    ext = {t: int(e.value) for t, e in k.node.extents.items()}
    # 300 rows in blocks of 16*8, 300 columns in blocks of 16*4
    assert ext == {"blockIdx.x": 5, "blockIdx.y": 3, "threadIdx.x": 16, "threadIdx.y": 16}
    sizes = sorted(int(a.extents[0].value) for a in k.node.shared)
    assert sizes == [2048, 4096]  # B tile 32x64, A tile 128x32 (24 KiB, as the book says)


def test_barriers_around_the_shared_tiles():
    func = _gpu_lower(*b.matmul_gpu(256))
    _, devices = split_host_device(func)
    (_, dev), = devices
    text = str(dev)
    # inside the k.outer loop: after the cooperative loads, and before the next iteration's
    body = text[text.index("for k_outer"):]
    assert body.count("tvm_storage_sync") == 2
    loads = body.index("A_shared")
    assert loads < body.index("tvm_storage_sync")


def test_no_barrier_without_shared_memory():
    func = _gpu_lower(*b.conv_default(4, 3, 13, 3, 1, 1))
    assert "tvm_storage_sync" not in str(func)


def test_host_launches_one_kernel_per_host_iteration():
    """§5.5's default conv binds h and w; the channel loop stays on the host and launches the
    kernel once per channel, passing the channel as a scalar."""
    func = _gpu_lower(*b.conv_default(4, 3, 13, 3, 1, 1))
    host, devices = split_host_device(func)
    assert len(devices) == 1
    text = str(host)
    assert "for c in range(4)" in text and "tvmlite.launch_kernel" in text
    assert any(p.dtype == "int32" for p in devices[0][1].params)


def test_emulation_splits_threads_at_barriers():
    func = emulate_gpu_kernels(_gpu_lower(*b.matmul_gpu(128)))
    text = str(func)
    assert "T.parallel" in text and "tvm_storage_sync" not in text
    # one thread loop nest per phase: init, then per k.outer the loads and the products,
    # then the copy-out
    assert text.count("for threadIdx_y, threadIdx_x") == 4


def test_barrier_under_divergent_condition_is_refused():
    from tvmlite.tir import stmt as S
    from tvmlite.tir.expr import IntImm, Var
    from tvmlite.tir.transform.gpu_barrier import barrier
    from tvmlite.tir.transform.gpu_emulate import _Phases
    from tvmlite.tir.transform.gpu_kernels import KernelInfo
    tx = Var("threadIdx_x", "int32")
    info = KernelInfo("k", {"threadIdx.x": tx}, {"threadIdx.x": IntImm("int32", 32)})
    body = S.IfThenElse(tvm.tir.op.lt(tx, 4), barrier())
    with pytest.raises(TVMError, match="barrier under a IfThenElse that depends on the thread"):
        _Phases(info).run(body)


def test_symbolic_grid_and_scalar_parameter(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    mod = tvm.build(s, [A, B], "cuda")
    # the grid size and (classic: a variable-shaped argument broadcasts) the strides
    assert "int32_t n, int32_t stride, int32_t stride_1)" in \
        mod.imported_modules[0].get_source()
    dev = tvm.cuda(0)
    for m in (1, 33, 1000):
        a = np.random.rand(m).astype("float32")
        out = tvm.nd.array(np.zeros(m, "float32"), dev)
        mod(tvm.nd.array(a, dev), out)
        np.testing.assert_allclose(out.numpy(), a * 2)
    with pytest.raises(TVMError, match="expected to be on cuda"):
        mod(tvm.nd.array(a), tvm.nd.array(np.zeros(1000, "float32")))


def test_no_gpu_arrays_without_emulation(monkeypatch):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    if cuda_available():
        pytest.skip("a real GPU is present")
    assert not tvm.cuda(0).exist
    with pytest.raises(TVMError, match="CUDA is not available"):
        tvm.nd.array(np.zeros(3, "float32"), tvm.cuda(0))
    # the CUDA source is still produced
    s, args = b.va_parallel(100)
    assert "__global__" in tvm.build(s, list(args), "cuda").imported_modules[0].get_source()


def test_float16_kernel(monkeypatch, tmp_path):
    import shutil
    import subprocess
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    n = 1000
    A = te.placeholder((n,), name="A", dtype="float16")
    B = te.placeholder((n,), name="B", dtype="float16")
    C = te.compute((n,), lambda i: A[i] * B[i] + A[i], name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=128)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    mod = tvm.build(s, [A, B, C], "cuda")
    dev = tvm.cuda(0)
    a = np.random.rand(n).astype("float16")
    bb = np.random.rand(n).astype("float16")
    c = tvm.nd.array(np.zeros(n, "float16"), dev)
    mod(tvm.nd.array(a, dev), tvm.nd.array(bb, dev), c)
    np.testing.assert_allclose(c.numpy(), a * bb + a, rtol=1e-2)
    if shutil.which("nvcc"):
        cu = tmp_path / "h.cu"
        cu.write_text(mod.imported_modules[0].get_source())
        r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "h.o")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr


def test_vectorized_loop_in_a_kernel(monkeypatch, tmp_path):
    """A vectorized loop inside a kernel runs as a serial loop per thread (CUDA has no GCC
    vectors); the result is right and the source compiles."""
    import shutil
    import subprocess
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    n = 1024
    A = te.placeholder((n,), name="A")
    C = te.compute((n,), lambda i: A[i] * 3.0, name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=256)
    tx, vi = s[C].split(tx, factor=4)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].vectorize(vi)
    mod = tvm.build(s, [A, C], "cuda")
    src = mod.imported_modules[0].get_source()
    assert "vector_size" not in src
    a = np.random.rand(n).astype("float32")
    c = tvm.nd.array(np.zeros(n, "float32"), tvm.cuda(0))
    mod(tvm.nd.array(a, tvm.cuda(0)), c)
    np.testing.assert_allclose(c.numpy(), a * 3)
    if shutil.which("nvcc"):
        cu = tmp_path / "v.cu"
        cu.write_text(src)
        r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "v.o")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr


def _shared_gather(index, n=64):
    """B[i] = A[index(i)] through a shared cache loaded by the same threads."""
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[index(i)], name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], B.op.axis[0])
    s[AS].bind(s[AS].op.axis[0], te.thread_axis("threadIdx.x"))
    return s, [A, B]


def _run_without_barriers(monkeypatch, s, args, a):
    import tvmlite.driver.build_module as bm
    full = bm.gpu_passes
    monkeypatch.setattr(bm, "gpu_passes", lambda tgt: full(tgt)[:1])  # no barrier pass
    mod = tvm.build(s, args, "cuda")
    dev = tvm.cuda(0)
    mod(tvm.nd.array(a, dev), tvm.nd.array(np.zeros(a.shape, "float32"), dev))


def test_check_mode_finds_a_race(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")
    s, args = _shared_gather(lambda i: i // 2)
    a = np.random.rand(64).astype("float32")
    with pytest.raises(TVMError, match=r"race on shared buffer A\.shared: a thread reads an "
                       r"element another thread wrote since the last barrier.*store to B"):
        _run_without_barriers(monkeypatch, s, args, a)


def test_check_mode_finds_a_read_before_any_write(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")
    s, args = _shared_gather(lambda i: 63 - i)
    a = np.random.rand(64).astype("float32")
    with pytest.raises(TVMError, match=r"read of shared buffer A\.shared before any thread "
                       "wrote it"):
        _run_without_barriers(monkeypatch, s, args, a)


@pytest.mark.parametrize("index", [lambda i: i // 2, lambda i: 63 - i])
def test_check_mode_passes_with_barriers(monkeypatch, index):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")
    s, args = _shared_gather(index)
    a = np.random.rand(64).astype("float32")
    mod = tvm.build(s, args, "cuda")
    dev = tvm.cuda(0)
    out = tvm.nd.array(np.zeros(64, "float32"), dev)
    mod(tvm.nd.array(a, dev), out)
    np.testing.assert_array_equal(out.numpy(), a[[index(i) for i in range(64)]])


def test_check_mode_accepts_the_book_schedules(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")
    dev = tvm.cuda(0)
    x = np.random.rand(100, 100).astype("float32")
    sch, args = b.matmul_gpu(100)
    mod = tvm.build(sch, list(args), "cuda")
    out = tvm.nd.array(np.zeros((100, 100), "float32"), dev)
    mod(tvm.nd.array(x, dev), tvm.nd.array(x, dev), out)
    np.testing.assert_allclose(out.numpy(), x @ x, rtol=1e-4)


def _row_reduce(n, m, kind="sum", rfactor=False):
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    f = {"sum": te.sum, "max": te.max, "min": te.min}[kind]
    B = te.compute((n,), lambda i: f(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    if not rfactor:
        s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
        s[B].bind(B.op.reduce_axis[0], te.thread_axis("threadIdx.x"))
        return s, [A, B]
    # classic cross-thread reduction: rfactor the inner part, bind it to threadIdx.x
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    bx, ty = s[B].split(s[B].op.axis[0], factor=8)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(ty, te.thread_axis("threadIdx.y"))
    s[B].bind(s[B].op.reduce_axis[0], te.thread_axis("threadIdx.x"))
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    return s, [A, B]


@pytest.mark.parametrize("kind,rfactor,n,m", [("sum", False, 13, 100), ("max", False, 7, 77),
                                              ("min", False, 5, 3), ("sum", True, 37, 100),
                                              ("sum", True, 9, 250)])
def test_cross_thread_reduction(monkeypatch, tmp_path, kind, rfactor, n, m):
    """A reduction loop bound to threadIdx: warp shuffles where threadIdx.x has 2^k <= 32
    threads, else a tree in shared memory with barriers (checked for races by the emulation's
    checking mode)."""
    import shutil
    import subprocess
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")
    s, args = _row_reduce(n, m, kind, rfactor)
    mod = tvm.build(s, args, "cuda")
    src = mod.imported_modules[0].get_source()
    if rfactor:  # 16 x 8 threads: shuffles within the warps, no shared memory
        assert "__shfl_down_sync(0xffffffffu, " in src and "__shared__" not in src
        assert "__syncwarp(0xffffffffu);" in src
    else:  # 100, 77 or 3 threads: a tree in shared memory
        assert "__shared__ float __align__(16) red_B" in src and "__syncthreads();" in src
    a = np.random.rand(n, m).astype("float32")
    out = tvm.nd.array(np.zeros(n, "float32"), tvm.cuda(0))
    mod(tvm.nd.array(a, tvm.cuda(0)), out)
    ref = {"sum": a.sum(1), "max": a.max(1), "min": a.min(1)}[kind]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5)
    if shutil.which("nvcc"):
        cu = tmp_path / "r.cu"
        cu.write_text(src)
        r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "r.o")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr


def test_reduction_loop_bound_to_blocks_is_refused():
    A = te.placeholder((64, 64), name="A")
    k = te.reduce_axis((0, 64), name="k")
    B = te.compute((64,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    s[B].bind(B.op.reduce_axis[0], te.thread_axis("blockIdx.x"))
    with pytest.raises(TVMError, match="bound to blockIdx.x is a reduction loop of B: blocks "
                       "cannot reduce"):
        tvm.build(s, [A, B], "cuda")


def test_cuda_targets_and_tags():
    t = tvm.target.Target("nvidia/nvidia-h100")
    assert t.kind.name == "cuda" and t.attrs["arch"] == "sm_90" and t.max_num_threads == 1024
    assert tvm.target.Target(str(t)).attrs["arch"] == "sm_90"
    assert tvm.target.Target("cuda -arch=sm_90").attrs["arch"] == "sm_90"
    assert tvm.target.cuda(arch="sm_80").attrs["arch"] == "sm_80"
    with pytest.raises(TVMError, match="unknown target tag 'nvidia/no-such-gpu'"):
        tvm.target.Target("nvidia/no-such-gpu")
    # the build checks the tag's limits
    s, args = b.va_parallel(4096, nt=512)
    with pytest.raises(TVMError, match="512 threads per block .* limit of 256"):
        tvm.build(s, list(args), "nvidia/tesla-t4 -max_num_threads=256")


def test_unrolled_loop_in_a_kernel(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    n = 1000
    A = te.placeholder((n,), name="A")
    C = te.compute((n,), lambda i: A[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=256)
    tx, ui = s[C].split(tx, factor=64)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].unroll(ui)  # too long to copy: a loop with nvcc's unroll hint
    mod = tvm.build(s, [A, C], "cuda")
    src = mod.imported_modules[0].get_source()
    assert "#pragma unroll 64" in src and "GCC" not in src
    a = np.random.rand(n).astype("float32")
    c = tvm.nd.array(np.zeros(n, "float32"), tvm.cuda(0))
    mod(tvm.nd.array(a, tvm.cuda(0)), c)
    np.testing.assert_allclose(c.numpy(), a + 1)
