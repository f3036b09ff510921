"""The book's chapter 5 GPU schedules (and seed 003's), run through the CPU emulation of the
CUDA target in its checking mode (``TVMLITE_GPU_EMULATION=check``) and checked against numpy at
odd sizes; their CUDA source compiles with nvcc where it is installed; GPU errors are clear."""
import shutil
import subprocess

import book_ch4
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
    np.testing.assert_allclose(got, book_ch4.conv_ref(data, weight, p, s), atol=1e-3)


@pytest.mark.parametrize("f", [b.conv_tiling, b.conv_vthread])
@pytest.mark.parametrize("oc,ic,n,k,p,s", [(64, 8, 32, 3, 1, 1), (32, 5, 29, 3, 1, 1),
                                          (16, 3, 13, 5, 2, 1)])
def test_5_5_conv_shared_tiles_and_vthreads(f, oc, ic, n, k, p, s):
    sch, args = f(oc, ic, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(oc, ic, n, k, p, s)
    got, mod = _run(sch, args, [data, weight], out.shape)
    np.testing.assert_allclose(got, book_ch4.conv_ref(data, weight, p, s), atol=1e-3)
    assert mod.imported_modules[0].get_source().count("__shared__") == 2


@pytest.mark.parametrize("ic,n,k,p,s", [(3, 13, 3, 1, 1), (4, 16, 3, 1, 1)])
def test_5_6_depthwise_default(ic, n, k, p, s):
    sch, args = b.depthwise_default(ic, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(ic, ic, n, k, p, s, conv_type="depthwise")
    got, _ = _run(sch, args, [data, weight], out.shape)
    np.testing.assert_allclose(got, book_ch4.conv_ref(data, weight, p, s, depthwise=True),
                               atol=1e-3)


@pytest.mark.parametrize("ic,n,k,p,s", [(3, 32, 3, 1, 1), (2, 29, 3, 1, 1), (4, 64, 5, 2, 1)])
def test_5_6_depthwise_shared_tiles(ic, n, k, p, s):
    sch, args = b.depthwise_schedule(ic, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(ic, ic, n, k, p, s, conv_type="depthwise")
    got, _ = _run(sch, args, [data, weight], out.shape)
    np.testing.assert_allclose(got, book_ch4.conv_ref(data, weight, p, s, depthwise=True),
                               atol=1e-3)


@pytest.mark.parametrize("f,kind", [(b.pool_max, "max"), (b.pool_avg, "avg")])
def test_5_7_pooling(f, kind):
    c, n, k = 3, 13, 3
    sch, args = f(c, n, k, nt=64)
    np.random.seed(0)
    data = np.random.normal(size=(c, n, n)).astype("float32")
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


def _conv1d_gpu(M, N, nt=64, as_written=False):
    """Seed 003's 1-D convolution on a GPU: the padded input and the output each bound to
    blocks and threads (two kernels), with an unroll pragma. ``as_written`` adds the seed's
    ``parallel`` on both stages and ``vectorize`` of the inner loop, which the binds override
    (classic TE: the last annotation of a loop wins)."""
    A = te.placeholder((M,), name="A")
    W = te.placeholder((N,), name="W")
    Apad = te.compute((M + 2 * (N - 1),), lambda n: tvm.tir.if_then_else(
        tvm.tir.all(n >= N - 1, n < M + N - 1), A[n - N + 1], tvm.tir.const(0.0, "float32")),
        name="Apad")
    k = te.reduce_axis((0, N), name="k")
    B = te.compute((M + N - 1,), lambda n: te.sum(Apad[n + k] * W[N - 1 - k], axis=k),
                   name="B")
    s = te.create_schedule(B.op)
    if as_written:
        s[Apad].parallel(Apad.op.axis[0])
        s[B].parallel(B.op.axis[0])
    outer, inner = s[B].split(B.op.axis[0], factor=nt)
    if as_written:
        s[B].vectorize(inner)
    s[B].bind(outer, te.thread_axis("blockIdx.x"))
    s[B].bind(inner, te.thread_axis("threadIdx.x"))
    s[B].pragma(outer, "auto_unroll_max_step", 16)
    oa, ia = s[Apad].split(Apad.op.axis[0], factor=nt)
    s[Apad].bind(oa, te.thread_axis("blockIdx.x"))
    s[Apad].bind(ia, te.thread_axis("threadIdx.x"))
    return s, (A, W, B)


@pytest.mark.parametrize("M,N,as_written", [(1000, 31, False), (4096, 128, False), (77, 5, False),
                                            (4096, 128, True), (333, 17, True)])
def test_seed_003_conv1d_two_kernels(M, N, as_written):
    s, args = _conv1d_gpu(M, N, as_written=as_written)
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


def _dwsp_conv2d_gpu(batch, C, H, W, K, O=None, nt=32):
    """Seed 003's depthwise-separable conv2d on a GPU (``make_dwsp_conv2d_gpu_scheduler(B, C,
    H, W, K)``): the input zero-padded to a "same" output, a K x K depthwise convolution per
    channel, the output's batch and channel axes on blocks, its rows split between blocks and
    threads, its columns on threads (``parallel`` first, as written: the binds win). With
    ``O``, the separable form's pointwise 1 x 1 convolution to ``O`` channels follows as a
    second kernel."""
    inp = te.placeholder((batch, C, H, W), name="inp")
    ker = te.placeholder((C, 1, K, K), name="ker")
    pk = (K - 1) // 2
    inp_pad = te.compute(
        (batch, C, H + 2 * pk, W + 2 * pk),
        lambda b, c, h, w: tvm.tir.if_then_else(
            tvm.tir.all(h >= pk, h < H + pk, w >= pk, w < W + pk), inp[b, c, h - pk, w - pk],
            tvm.tir.const(0.0, "float32")), name="inp_pad")
    rkh = te.reduce_axis((0, K), name="rkh")
    rkw = te.reduce_axis((0, K), name="rkw")
    out = te.compute((batch, C, H, W), lambda b, c, h, w: te.sum(
        inp_pad[b, c, h + rkh, w + rkw] * ker[c, 0, rkh, rkw], axis=[rkh, rkw]), name="out")
    args = [inp, ker, out]
    last = out
    if O is not None:
        pw = te.placeholder((O, C), name="pw")
        rc = te.reduce_axis((0, C), name="rc")
        last = te.compute((batch, O, H, W), lambda b, o, h, w: te.sum(
            out[b, rc, h, w] * pw[o, rc], axis=rc), name="pwconv")
        args = [inp, ker, pw, last]
    s = te.create_schedule(last.op)
    s[inp_pad].compute_inline()
    for t in ([out] if O is None else [out, last]):
        b, c, h, w = s[t].op.axis
        s[t].parallel(c)
        bc = s[t].fuse(b, c)
        ho, hi = s[t].split(h, factor=4)
        wo, wi = s[t].split(w, factor=nt)
        s[t].reorder(bc, ho, wo, hi, wi)
        s[t].bind(bc, te.thread_axis("blockIdx.y"))
        s[t].bind(s[t].fuse(ho, wo), te.thread_axis("blockIdx.x"))
        s[t].bind(hi, te.thread_axis("threadIdx.y"))
        s[t].bind(wi, te.thread_axis("threadIdx.x"))
    return s, args


def _dwsp_ref(x, k, pw=None):
    pk = (k.shape[-1] - 1) // 2
    out = np.stack([book_ch4.conv_ref(img, k, pk, 1, depthwise=True) for img in x])
    return out if pw is None else np.einsum("bchw,oc->bohw", out, pw)


@pytest.mark.parametrize("batch,C,H,W,K,O", [(1, 32, 56, 56, 3, None), (2, 5, 31, 29, 5, None),
                                             (1, 32, 28, 28, 3, 64), (1, 3, 17, 13, 7, 6)])
def test_seed_003_depthwise_separable_conv2d(batch, C, H, W, K, O):
    s, args = _dwsp_conv2d_gpu(batch, C, H, W, K, O)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(batch, C, H, W)).astype("float32")
    k = rng.normal(size=(C, 1, K, K)).astype("float32")
    pw = None if O is None else rng.normal(size=(O, C)).astype("float32")
    ref = _dwsp_ref(x, k, pw)
    got, mod = _run(s, args, [x, k] + ([] if pw is None else [pw]), ref.shape)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-3)
    assert mod.imported_modules[0].get_source().count("__global__") == (1 if O is None else 2)


# the book's sizes (sizes lists of d2l-tvm ch.5; one of each for CI time): section, schedule,
# inputs, reference
def _book_case(name):
    rng = np.random.default_rng(5)
    if name == "5.2 vector add 2^22":
        n = 1 << 22
        a, bb, _ = d2ltvm.get_abc(n)
        return b.va_parallel(n), [a, bb], lambda: a + bb
    if name.startswith("5.3"):
        n = 2048  # n * n > nb * nt: the further split
        a, bb, _ = d2ltvm.get_bcast_data((n, 1), (n, n))
        f = b.bc_continuous if "continuous" in name else b.bc_alternate
        return f(n), [a, bb], lambda: a + bb
    if name == "5.4 matmul 1024":
        n = 1024
        x = rng.normal(size=(n, n)).astype("float32")
        y = rng.normal(size=(n, n)).astype("float32")
        return b.matmul_gpu(n), [x, y], lambda: x @ y
    if name.startswith("5.5"):
        data, weight, _ = d2ltvm.get_conv_data(64, 64, 64, 3, 1, 1)
        f = {"default": b.conv_default, "tiling": b.conv_tiling,
             "vthread": b.conv_vthread}[name.split()[-1]]
        return (f(64, 64, 64, 3, 1, 1), [data, weight],
                lambda: book_ch4.conv_ref(data, weight, 1, 1))
    if name.startswith("5.6"):
        data, weight, _ = d2ltvm.get_conv_data(64, 64, 64, 3, 1, 1, conv_type="depthwise")
        f = b.depthwise_default if "default" in name else b.depthwise_schedule
        return (f(64, 64, 3, 1, 1), [data, weight],
                lambda: book_ch4.conv_ref(data, weight, 1, 1, depthwise=True))
    if name.startswith("5.7"):
        kind = name.split()[-1]
        data = rng.normal(size=(64, 64, 64)).astype("float32")
        f = b.pool_max if kind == "max" else b.pool_avg
        return f(64, 64, 3), [data], lambda: book_ch4.pool_ref(kind, data, 3, 1, 1)
    assert name == "5.8 batch norm 32x112"
    data, mean, var, gamma, beta, _ = d2ltvm.get_bn_data(32, 112)
    return (b.bn_default(32, 112), [data, mean, var, gamma, beta],
            lambda: (data - mean) / np.sqrt(var + 1e-5) * gamma + beta)


BOOK_CASES = ["5.2 vector add 2^22", "5.3 broadcast add continuous", "5.3 broadcast add alternate",
              "5.4 matmul 1024", "5.5 conv 64x64x64 default", "5.5 conv 64x64x64 tiling",
              "5.5 conv 64x64x64 vthread", "5.6 depthwise 64x64 default",
              "5.6 depthwise 64x64 scheduled", "5.7 pooling 64x64x64 max",
              "5.7 pooling 64x64x64 avg", "5.8 batch norm 32x112"]


@pytest.mark.parametrize("name", BOOK_CASES)
def test_book_sizes(name):
    """Each ch.5 schedule at a size from the book's own lists, in the checking mode."""
    (sch, args), inputs, ref = _book_case(name)
    want = ref()
    got, _ = _run(sch, args, inputs, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_cuda_source_compiles_with_nvcc(tmp_path):
    """Every kernel of this file (the book's at odd and at the book's sizes, seed 003's)
    compiles with nvcc for an H100."""
    schedules = [b.va_parallel(1000), b.bc_alternate(129), b.bc_continuous(45),
                 b.matmul_gpu(300), b.conv_default(4, 3, 13, 3, 1, 1),
                 b.conv_tiling(32, 5, 29, 3, 1, 1), b.conv_vthread(64, 64, 64, 3, 1, 1),
                 b.depthwise_default(3, 13, 3, 1, 1), b.depthwise_schedule(3, 32, 3, 1, 1),
                 b.pool_max(3, 13, 3, nt=64), b.pool_avg(3, 13, 3, nt=64), b.bn_default(5, 13),
                 _conv1d_gpu(1000, 31), _conv1d_gpu(4096, 128, as_written=True),
                 _gemm_gpu(100, 77, 90), _dwsp_conv2d_gpu(2, 5, 31, 29, 5),
                 _dwsp_conv2d_gpu(1, 32, 28, 28, 3, 64)]
    schedules += [_book_case(name)[0] for name in BOOK_CASES]
    files = []
    for i, (sch, args) in enumerate(schedules):
        src = tvm.build(sch, list(args), "cuda -arch=sm_90").imported_modules[0].get_source()
        (tmp_path / f"k{i}.cu").write_text(src)
        files.append(f"k{i}.cu")
    # device code only (-cubin: ptxas for sm_90, no host compiler), two nvcc at once
    runs = [subprocess.Popen(["nvcc", "-arch=sm_90", "-cubin", *files[i::2]], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i in range(2)]
    for r in runs:
        _, err = r.communicate(timeout=900)
        assert r.returncode == 0, err
    assert len(list(tmp_path.glob("*.cubin"))) == len(files)
