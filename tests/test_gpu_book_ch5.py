"""The book's chapter 5 GPU schedules (and seed 003's), run through the CPU emulation of the
CUDA target in its checking mode (``TVMLITE_GPU_EMULATION=check``) and checked against numpy at
odd sizes; their CUDA source compiles with nvcc where it is installed; GPU errors are clear."""
import shutil
import subprocess

import book_ch5 as b
import d2ltvm
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import TVMError


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    # the checking mode: a race or out-of-bounds shared access fails even if the answer is right
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


def _run(sch, args, inputs, out_shape):
    mod = tvm.build(sch, list(args), "cuda")
    dev = tvm.cuda(0)
    out = tvm.nd.array(np.zeros(out_shape, dtype="float32"), dev)
    mod(*[tvm.nd.array(x, dev) for x in inputs], out)
    return out.numpy(), mod


@pytest.mark.parametrize("n", [256, 1000, 13])
def test_5_2_vector_add(n):
    s, args = b.va_parallel(n)
    a, bb, _ = d2ltvm.get_abc(n)
    got, mod = _run(s, args, [a, bb], (n,))
    np.testing.assert_array_equal(got, a + bb)
    src = mod.imported_modules[0].get_source()
    assert '__global__' in src and "threadIdx.x" in src


@pytest.mark.parametrize("f", [b.bc_continuous, b.bc_alternate])
@pytest.mark.parametrize("n", [32, 45, 129])
def test_5_3_broadcast_add(f, n):
    s, args = f(n)
    a, bb, _ = d2ltvm.get_bcast_data((n, 1), (n, n))
    got, _ = _run(s, args, [a, bb], (n, n))
    np.testing.assert_allclose(got, a + bb, atol=1e-5)


@pytest.mark.parametrize("n", [64, 100, 37, 256, 300])
def test_5_4_matmul_shared_tiles(n):
    s, args = b.matmul_gpu(n)
    np.random.seed(0)
    x = np.random.normal(size=(n, n)).astype("float32")
    y = np.random.normal(size=(n, n)).astype("float32")
    got, mod = _run(s, args, [x, y], (n, n))
    np.testing.assert_allclose(got, x @ y, atol=1e-3)
    src = mod.imported_modules[0].get_source()
    assert "__shared__" in src and "__syncthreads();" in src


@pytest.mark.parametrize("oc,ic,n,k,p,s", [(4, 3, 13, 3, 1, 1), (8, 4, 16, 3, 1, 1)])
def test_5_5_conv_default(oc, ic, n, k, p, s):
    sch, args = b.conv_default(oc, ic, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(oc, ic, n, k, p, s)
    got, _ = _run(sch, args, [data, weight], out.shape)
    import book_ch4
    np.testing.assert_allclose(got, book_ch4.conv_ref(data, weight, p, s), atol=1e-3)


@pytest.mark.parametrize("f", [b.conv_tiling, b.conv_vthread])
@pytest.mark.parametrize("oc,ic,n,k,p,s", [(64, 8, 32, 3, 1, 1), (32, 5, 29, 3, 1, 1),
                                          (16, 3, 13, 5, 2, 1)])
def test_5_5_conv_shared_tiles_and_vthreads(f, oc, ic, n, k, p, s):
    sch, args = f(oc, ic, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(oc, ic, n, k, p, s)
    got, mod = _run(sch, args, [data, weight], out.shape)
    import book_ch4
    np.testing.assert_allclose(got, book_ch4.conv_ref(data, weight, p, s), atol=1e-3)
    assert mod.imported_modules[0].get_source().count("__shared__") == 2


@pytest.mark.parametrize("ic,n,k,p,s", [(3, 13, 3, 1, 1), (4, 16, 3, 1, 1)])
def test_5_6_depthwise_default(ic, n, k, p, s):
    sch, args = b.depthwise_default(ic, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(ic, ic, n, k, p, s, conv_type="depthwise")
    got, _ = _run(sch, args, [data, weight], out.shape)
    import book_ch4
    np.testing.assert_allclose(got, book_ch4.conv_ref(data, weight, p, s, depthwise=True),
                               atol=1e-3)


@pytest.mark.parametrize("ic,n,k,p,s", [(3, 32, 3, 1, 1), (2, 29, 3, 1, 1), (4, 64, 5, 2, 1)])
def test_5_6_depthwise_shared_tiles(ic, n, k, p, s):
    sch, args = b.depthwise_schedule(ic, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(ic, ic, n, k, p, s, conv_type="depthwise")
    got, _ = _run(sch, args, [data, weight], out.shape)
    import book_ch4
    np.testing.assert_allclose(got, book_ch4.conv_ref(data, weight, p, s, depthwise=True),
                               atol=1e-3)


@pytest.mark.parametrize("f,kind", [(b.pool_max, "max"), (b.pool_avg, "avg")])
def test_5_7_pooling(f, kind):
    c, n, k = 3, 13, 3
    sch, args = f(c, n, k, nt=64)
    np.random.seed(0)
    data = np.random.normal(size=(c, n, n)).astype("float32")
    import book_ch4
    ref = book_ch4.pool_ref(kind, data, k, 1, 1)
    got, _ = _run(sch, args, [data], ref.shape)
    np.testing.assert_allclose(got, ref, atol=1e-4)


def test_5_8_batch_norm():
    c, n = 5, 13
    sch, args = b.bn_default(c, n)
    data, mean, var, gamma, beta, _ = d2ltvm.get_bn_data(c, n)
    got, _ = _run(sch, args, [data, mean, var, gamma, beta], (c, n, n))
    ref = (data - mean) / np.sqrt(var + 1e-5) * gamma + beta
    np.testing.assert_allclose(got, ref, atol=1e-4)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_cuda_source_compiles_with_nvcc(tmp_path):
    for sch, args in [b.va_parallel(1000), b.bc_alternate(129), b.matmul_gpu(300),
                      b.conv_default(4, 3, 13, 3, 1, 1), b.conv_vthread(64, 64, 64, 3, 1, 1),
                      b.depthwise_schedule(3, 32, 3, 1, 1), b.pool_avg(3, 13, 3, nt=64),
                      b.bn_default(5, 13), _conv1d_gpu(1000, 31), _gemm_gpu(100, 77, 90)]:
        src = tvm.build(sch, list(args), "cuda -arch=sm_90").imported_modules[0].get_source()
        cu = tmp_path / "k.cu"
        cu.write_text(src)
        r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "k.o")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr + src


def test_too_many_threads_per_block():
    s, args = b.va_parallel(4096, nt=2048)
    with pytest.raises(TVMError, match="2048 threads per block"):
        tvm.build(s, list(args), "cuda")


def test_thread_axis_bound_twice():
    A, B, C = d2ltvm.vector_add(64)
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=8)
    s[C].bind(xo, te.thread_axis("threadIdx.x"))
    with pytest.raises(TVMError, match="binds threadIdx.x twice"):
        s[C].bind(xi, te.thread_axis("threadIdx.x"))


def test_shared_memory_per_block_limit():
    s, args = b.matmul_gpu(256, block_size=16, tx=16, ty=16, tk=64)
    with pytest.raises(TVMError, match="bytes of shared memory per block .* exceed"):
        tvm.build(s, list(args), "cuda")


def test_nothing_bound():
    A, B, C = d2ltvm.vector_add(64)
    s = te.create_schedule(C.op)
    with pytest.raises(TVMError, match="nothing is bound to a GPU thread"):
        tvm.build(s, [A, B, C], "cuda")


def test_unbound_stage_runs_on_host():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1, name="B")
    C = te.compute((64,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=16)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    with pytest.raises(TVMError, match="store to B.*not bound to any GPU thread"):
        tvm.build(s, [A, C], "cuda")


def test_missing_barrier_gives_a_wrong_answer(monkeypatch):
    """A shared buffer read by other threads without a barrier: the emulation (without the
    checking mode), like a GPU, computes garbage; with the inserted barrier it is right."""
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    n = 64
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[n - 1 - i], name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(B.op.axis[0], tx)
    s[AS].compute_at(s[B], B.op.axis[0])
    s[AS].bind(s[AS].op.axis[0], te.thread_axis("threadIdx.x"))
    a = np.arange(n, dtype="float32")
    got, _ = _run(s, [A, B], [a], (n,))
    np.testing.assert_array_equal(got, a[::-1])
    import tvmlite.driver.build_module as bm
    full = bm.gpu_passes
    monkeypatch.setattr(bm, "gpu_passes", lambda tgt: full(tgt)[:1])  # no barrier pass
    got2, _ = _run(s, [A, B], [a], (n,))
    assert not np.array_equal(got2, a[::-1])


def test_emulated_device():
    dev = tvm.cuda(0)
    assert dev.exist and dev.emulated and dev.compute_version == "9.0"
    assert tvm.gpu(0).max_threads_per_block == 1024


def _conv1d_gpu(M, N, nt=64):
    """Seed 003's 1-D convolution on a GPU: the padded input and the output each bound to
    blocks and threads (two kernels), with an unroll pragma."""
    A = te.placeholder((M,), name="A")
    W = te.placeholder((N,), name="W")
    Apad = te.compute((M + 2 * (N - 1),), lambda n: tvm.tir.if_then_else(
        tvm.tir.all(n >= N - 1, n < M + N - 1), A[n - N + 1], tvm.tir.const(0.0, "float32")),
        name="Apad")
    k = te.reduce_axis((0, N), name="k")
    B = te.compute((M + N - 1,), lambda n: te.sum(Apad[n + k] * W[N - 1 - k], axis=k),
                   name="B")
    s = te.create_schedule(B.op)
    outer, inner = s[B].split(B.op.axis[0], factor=nt)
    s[B].bind(outer, te.thread_axis("blockIdx.x"))
    s[B].bind(inner, te.thread_axis("threadIdx.x"))
    s[B].pragma(outer, "auto_unroll_max_step", 16)
    oa, ia = s[Apad].split(Apad.op.axis[0], factor=nt)
    s[Apad].bind(oa, te.thread_axis("blockIdx.x"))
    s[Apad].bind(ia, te.thread_axis("threadIdx.x"))
    return s, (A, W, B)


@pytest.mark.parametrize("M,N", [(1000, 31), (4096, 128), (77, 5)])
def test_seed_003_conv1d_two_kernels(M, N):
    s, args = _conv1d_gpu(M, N)
    np.random.seed(1)
    a = np.random.rand(M).astype("float32")
    w = np.random.rand(N).astype("float32")
    got, mod = _run(s, args, [a, w], (M + N - 1,))
    np.testing.assert_allclose(got, np.convolve(a, w), rtol=1e-4, atol=1e-4)
    src = mod.imported_modules[0].get_source()
    assert "default_function_kernel0" in src and "default_function_kernel1" in src


def _gemm_gpu(M, K, N, bs=16):
    """Seed 003's GEMM on a GPU: 2-D tiles on blocks (parallel, then bound: the last
    annotation wins), the reduction split and kept outside the thread loops, and local
    caches of A and B computed at the outer reduction loop."""
    k = te.reduce_axis((0, K), name="k")
    A = te.placeholder((M, K), name="A")
    B = te.placeholder((K, N), name="B")
    C = te.compute((M, N), lambda x, y: te.sum(A[x, k] * B[k, y], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "local", [C])
    BB = s.cache_read(B, "local", [C])
    x, y = s[C].op.axis
    xo, yo, xi, yi = s[C].tile(x, y, bs, bs)
    s[C].parallel(yo)
    s[C].parallel(xo)
    s[C].bind(yo, te.thread_axis("blockIdx.x"))
    s[C].bind(xo, te.thread_axis("blockIdx.y"))
    ko, ki = s[C].split(s[C].op.reduce_axis[0], factor=bs)
    s[C].reorder(xo, yo, ko, ki, xi, yi)
    s[C].bind(xi, te.thread_axis("threadIdx.y"))
    s[C].bind(yi, te.thread_axis("threadIdx.x"))
    s[AA].compute_at(s[C], ko)
    s[BB].compute_at(s[C], ko)
    return s, (A, B, C)


@pytest.mark.parametrize("M,K,N", [(64, 64, 64), (100, 77, 90)])
def test_seed_003_gemm(M, K, N):
    s, args = _gemm_gpu(M, K, N)
    np.random.seed(2)
    a = np.random.rand(M, K).astype("float32")
    w = np.random.rand(K, N).astype("float32")
    got, _ = _run(s, args, [a, w], (M, N))
    np.testing.assert_allclose(got, a @ w, rtol=1e-4)
