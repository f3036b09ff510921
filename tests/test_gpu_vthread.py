"""Virtual threads (``vthread``): the loop disappears and its iterations are interleaved, the
copies of each statement side by side in the innermost loop, local buffers replicated per
virtual thread, shared ones not. Checked differentially (the same schedule with the vthread
axes left serial) in the checking-mode emulation against numpy at odd sizes; the CUDA source
compiles with nvcc where it is installed."""
import re
import shutil
import subprocess

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import TVMError


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


def gemm_vthread(m, k, n, vthread=True, nthread=4, vt=2, scale=2):
    """The classic CUDA GEMM recipe (shared and local caches, a 2-D grid of virtual threads
    between the blocks and the threads); ``vthread=False`` leaves the virtual axes serial."""
    A = te.placeholder((m, k), name="A")
    B = te.placeholder((k, n), name="B")
    r = te.reduce_axis((0, k), name="r")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    BB = s.cache_read(B, "shared", [C])
    AL = s.cache_read(AA, "local", [C])
    BL = s.cache_read(BB, "local", [C])
    CC = s.cache_write(C, "local")
    block = vt * nthread * scale
    by, yi = s[C].split(C.op.axis[0], factor=block)
    bx, xi = s[C].split(C.op.axis[1], factor=block)
    s[C].reorder(by, bx, yi, xi)
    tyz, yi = s[C].split(yi, nparts=vt)
    ty, yi = s[C].split(yi, nparts=nthread)
    txz, xi = s[C].split(xi, nparts=vt)
    tx, xi = s[C].split(xi, nparts=nthread)
    s[C].reorder(tyz, txz, ty, tx, yi, xi)
    s[C].bind(by, te.thread_axis("blockIdx.y"))
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    if vthread:
        s[C].bind(tyz, te.thread_axis("vthread", name="vy"))
        s[C].bind(txz, te.thread_axis("vthread", name="vx"))
    s[C].bind(ty, te.thread_axis("threadIdx.y"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[CC].compute_at(s[C], tx)
    yo, xo = CC.op.axis
    ko, ki = s[CC].split(CC.op.reduce_axis[0], factor=4)
    s[CC].reorder(ko, ki, yo, xo)
    s[AA].compute_at(s[CC], ko)
    s[BB].compute_at(s[CC], ko)
    s[AL].compute_at(s[CC], ki)
    s[BL].compute_at(s[CC], ki)
    for load in (AA, BB):
        fused = s[load].fuse(*s[load].op.axis)
        t_y, fused = s[load].split(fused, nparts=nthread)
        t_x, _ = s[load].split(fused, nparts=nthread)
        s[load].bind(t_y, te.thread_axis("threadIdx.y"))
        s[load].bind(t_x, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


def _run(sch, args, inputs, out_shape, target="cuda"):
    mod = tvm.build(sch, args, target)
    dev = tvm.cuda(0) if target == "cuda" else tvm.cpu(0)
    out = tvm.nd.array(np.zeros(out_shape, dtype="float32"), dev)
    mod(*[tvm.nd.array(x, dev) for x in inputs], out)
    return out.numpy(), mod


@pytest.mark.parametrize("m,k,n", [(37, 29, 41), (64, 16, 64), (100, 13, 33)])
def test_gemm_with_vthreads_matches_serial_and_numpy(m, k, n):
    rng = np.random.default_rng(m * k + n)
    a = rng.normal(size=(m, k)).astype("float32")
    b = rng.normal(size=(k, n)).astype("float32")
    got_vt, mod = _run(*gemm_vthread(m, k, n, True), [a, b], (m, n))
    got_serial, _ = _run(*gemm_vthread(m, k, n, False), [a, b], (m, n))
    np.testing.assert_allclose(got_vt, a @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_vt, got_serial, rtol=1e-5, atol=1e-5)


def test_lowered_vthreads_are_interleaved():
    s, args = gemm_vthread(64, 16, 64)
    text = str(tvm.lower(s, args))
    assert "vthread" not in text and "vy" not in text and "vx" not in text
    # the local accumulator holds the 2 x 2 virtual threads' tiles (2 x 2 elements each) ...
    assert re.search(r'C_local = T.allocate\(\[16\], "float32", "local"\)', text)
    # ... each local copy of a shared tile one per virtual thread along its axis ...
    assert re.search(r'A_shared_local = T.allocate\(\[4\], "float32", "local"\)', text)
    # ... while the shared tiles (16 x 4) are loaded once for all of them
    assert re.search(r'A_shared = T.allocate\(\[64\], "float32", "shared"\)', text)
    assert re.search(r'B_shared = T.allocate\(\[64\], "float32", "shared"\)', text)
    # the innermost loop of the update holds the four virtual threads' statements
    update = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("C_local_1[")
              and "A_shared_local" in ln]
    offsets = sorted(re.match(r"C_local_1\[([^\]]*)\]", u).group(1).split(" + ")[-1]
                     for u in update)
    assert len(update) == 4, update
    assert offsets == sorted(["j_c", "4", "8", "12"]), offsets


def test_cuda_source_shows_the_interleaving():
    s, args = gemm_vthread(64, 16, 64)
    src = tvm.build(s, args, "cuda").imported_modules[0].get_source()
    assert re.search(r"float (__align__\(16\) )?C_local\[16\];", src)
    assert re.search(r"__shared__ float (__align__\(16\) )?A_shared\[64\];", src)
    assert "vy" not in src and "vx" not in src
    body = src[src.index("r_inner = 0"):]
    for off in ("4", "8", "12"):
        assert re.search(r"C_local\[[^\]]* \+ " + off + r"\] = ", body), body


def test_shared_stage_under_a_vthread_is_loaded_once():
    """A shared cache attached under a virtual thread covers all virtual threads (classic
    InferBound relaxes them): it is loaded once and read by both copies of the consumer."""
    n = 45
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2, name="B")
    C = te.compute((n,), lambda i: B[i] + 1, name="C")
    s = te.create_schedule(C.op)
    bx, rest = s[C].split(C.op.axis[0], factor=16)
    v, tx = s[C].split(rest, nparts=2)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(v, te.thread_axis("vthread"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    BS = s.cache_read(B, "shared", [C])
    s[B].compute_inline()
    s[BS].compute_at(s[C], tx)
    text = str(tvm.lower(s, [A, C]))
    assert text.count("B_shared_1[ax0] =") == 1   # one tile of 16 per block, as classic
    assert 'T.allocate([16], "float32", "shared")' in text
    assert text.count("C[i_outer * 16 + i_inner_inner") == 2
    a = np.random.default_rng(1).normal(size=n).astype("float32")
    got, mod = _run(s, [A, C], [a], (n,))
    np.testing.assert_allclose(got, a * 2 + 1, rtol=1e-6)


def test_many_vthreads_get_a_serial_loop_on_cpu():
    """16 or more virtual threads are not unrolled: one serial loop over them per statement."""
    m, n = 17 * 3, 7
    A = te.placeholder((m, n), name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] * 3, name="B")
    s = te.create_schedule(B.op)
    vo, _ = s[B].split(B.op.axis[0], nparts=17)
    s[B].bind(vo, te.thread_axis("vthread"))
    text = str(tvm.lower(s, [A, B]))
    assert "for i_inner, j, i_outer_s in T.grid(3, 7, 17):" in text, text
    a = np.random.default_rng(2).normal(size=(m, n)).astype("float32")
    got, _ = _run(s, [A, B], [a], (m, n), target="llvm")
    np.testing.assert_allclose(got, a * 3, rtol=1e-6)


def test_tir_schedule_binds_vthread():
    m, n = 30, 9
    A = te.placeholder((m, n), name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] + 1.5, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    i, j = sch.get_loops(sch.get_block("B"))
    io, ii = sch.split(i, factors=[3, None])
    sch.bind(io, "vthread.x")
    text = str(tvm.lower(sch.mod))
    assert "vthread" not in text
    a = np.random.default_rng(3).normal(size=(m, n)).astype("float32")
    f = tvm.build(sch.mod, target="llvm")
    out = tvm.nd.array(np.zeros((m, n), "float32"))
    f(tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), a + 1.5, rtol=1e-6)


def test_symbolic_vthread_extent_is_an_error():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    vo, _ = s[B].split(B.op.axis[0], factor=4)
    s[B].bind(vo, te.thread_axis("vthread"))
    with pytest.raises(TVMError, match="virtual thread .* constant extent"):
        tvm.lower(s, [A, B])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_vthread_cuda_source_compiles_with_nvcc(tmp_path):
    s, args = gemm_vthread(100, 13, 33)
    src = tvm.build(s, args, "cuda -arch=sm_90").imported_modules[0].get_source()
    cu = tmp_path / "k.cu"
    cu.write_text(src)
    r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "k.o")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + src
