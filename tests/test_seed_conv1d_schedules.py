"""Seed 000's scheduled conv1d (v1–v4), the AutoTVM template's primitives, and the seed's own
15 pytest cases, with only the import lines changed."""
import numpy as np
import pytest
from test_seed_conv1d_unscheduled import make_conv1d_cpu_scheduler_v0

import tvmlite as tvm
from tvmlite import te


def make_conv1d_cpu_scheduler_v1(M, N, verbose=False):
    s, A, W, B = make_conv1d_cpu_scheduler_v0(M, N, False)
    n_axis = B.op.axis[0]
    s[B].parallel(n_axis)
    return s, A, W, B


def make_conv1d_cpu_scheduler_v2(M, N, factor=8, verbose=False):
    s, A, W, B = make_conv1d_cpu_scheduler_v0(M, N, False)
    n_axis = B.op.axis[0]
    outer, inner = s[B].split(n_axis, factor=factor)
    s[B].parallel(outer)
    s[B].vectorize(inner)
    return s, A, W, B


def make_conv1d_cpu_scheduler_v3(M, N, factor=8, verbose=False):
    s, A, W, B = make_conv1d_cpu_scheduler_v2(M, N, factor, False)
    k_axis = B.op.reduce_axis[0]
    k_outer, k_inner = s[B].split(k_axis, factor=factor)
    s[B].unroll(k_inner)
    return s, A, W, B


def make_conv1d_cpu_scheduler_v4(M, N, factor=8, verbose=False):
    A = te.placeholder((M,), name="A", dtype="float32")
    W = te.placeholder((N,), name="W", dtype="float32")
    k = te.reduce_axis((0, N), name="k")
    B = te.compute(
        (M + N - 1,),
        lambda n: te.sum(
            tvm.tir.if_then_else(
                tvm.tir.all(n - k >= 0, n - k < M),
                A[n - k] * W[k],
                tvm.tir.const(0.0, "float32")
            ),
            axis=k
        ),
        name="B"
    )
    s = te.create_schedule(B.op)
    n_axis = B.op.axis[0]
    outer, inner = s[B].split(n_axis, factor=factor)
    s[B].parallel(outer)
    s[B].vectorize(inner)
    return s, A, W, B


def template_schedule(M, N, tile_i, tile_k, vectorize, unroll):
    """The AutoTVM template of seed 000 with one configuration applied by hand."""
    A = te.placeholder((M,), name="A", dtype="float32")
    W = te.placeholder((N,), name="W", dtype="float32")
    k = te.reduce_axis((0, N), name="k")
    B = te.compute((M + N - 1,), lambda i: te.sum(tvm.tir.if_then_else(
        tvm.tir.all(i - k >= 0, i - k < M), A[i - k] * W[k], tvm.tir.const(0.0, "float32")),
        axis=k), name="B")
    s = te.create_schedule(B.op)
    i, k_ = B.op.axis[0], B.op.reduce_axis[0]
    A_local = s.cache_read(A, "local", [B])
    W_local = s.cache_read(W, "local", [B])
    i_outer, i_inner = s[B].split(i, factor=tile_i)
    k_outer, k_inner = s[B].split(k_, factor=tile_k)
    s[B].parallel(i_outer)
    if vectorize:
        s[B].vectorize(i_inner)
    if unroll > 0:
        s[B].unroll(i_inner)
    s[A_local].compute_at(s[B], i_outer)
    s[W_local].compute_at(s[B], i_outer)
    return s, [A, W, B]


def _check(s, args, M, N, seed=0):
    func = tvm.build(s, args, target="llvm")
    np.random.seed(seed)
    a_np = np.random.rand(M).astype("float32")
    w_np = np.random.rand(N).astype("float32")
    dev = tvm.cpu()
    out = tvm.nd.array(np.zeros((M + N - 1,), dtype="float32"), dev)
    func(tvm.nd.array(a_np, dev), tvm.nd.array(w_np, dev), out)
    np.testing.assert_allclose(out.asnumpy(), np.convolve(a_np, w_np), rtol=1e-4)
    return func


@pytest.mark.parametrize("make", [make_conv1d_cpu_scheduler_v1, make_conv1d_cpu_scheduler_v2,
                                  make_conv1d_cpu_scheduler_v3, make_conv1d_cpu_scheduler_v4])
@pytest.mark.parametrize("M,N", [(4096, 128), (37, 5), (3, 11)])
def test_seed_schedules_match_numpy(make, M, N):
    s, A, W, B = make(M, N)
    _check(s, [A, W, B], M, N)


def test_v2_lowered_like_the_seed():
    s, A, W, B = make_conv1d_cpu_scheduler_v2(4096, 128)
    text = str(tvm.lower(s, [A, W, B], simple_mode=True))
    assert "for n_outer in T.parallel(528):" in text
    assert "T.likely(n_outer * 8 + n_inner" in text


@pytest.mark.parametrize("tile_i,tile_k,vec,unroll", [
    (41, 1, True, 0), (103, 64, False, 8), (1, 2, True, 16), (64, 16, True, 8)])
def test_autotvm_template_primitives(tile_i, tile_k, vec, unroll):
    M, N = 4096, 128
    s, args = template_schedule(M, N, tile_i, tile_k, vec, unroll)
    _check(s, args, M, N)


# ----------------------------------------------------------------------------- the seed's tests
dev = tvm.device('llvm', 0)


def make_conv1d_cpu_func(M, N):
    s, A, W, Out = make_conv1d_cpu_scheduler_v4(M, N)
    func = tvm.build(s, [A, W, Out], "llvm")
    return func


def ans_np(a_np, w_np):
    a_np = a_np.flatten()
    w_np = w_np.flatten()
    return np.convolve(a_np, w_np)


def _run_case(M, N, seed):
    func = make_conv1d_cpu_func(M, N)
    np.random.seed(seed=seed)
    a_np = np.random.rand(M).astype(np.float32)
    w_np = np.random.rand(N).astype(np.float32)
    b_np = ans_np(a_np, w_np)
    a = tvm.nd.array(a_np, dev)
    w = tvm.nd.array(w_np, dev)
    b = tvm.nd.array(np.zeros((M + N - 1), dtype='float32'), dev)
    func(a, w, b)
    b_out = b.numpy()
    assert b_np.shape == b_out.shape, \
        "Shape mismatch: " + str(b_np.shape) + "\t" + str(b_out.shape)
    assert np.allclose(b_np, b_out), "Value mismatch: %s %s" % (b_np, b_out)


@pytest.mark.parametrize('execution_number', range(5))
def test1_M1_N1(execution_number):
    _run_case(1, 1, execution_number)


@pytest.mark.parametrize('execution_number', [1, 10, 100, 1000, 10000])
def test1_Mvar_N1024(execution_number):
    _run_case(execution_number, 1024, 1024)


@pytest.mark.parametrize('execution_number', [1, 10, 100, 1000, 10000])
def test1_M1024_Nvar(execution_number):
    _run_case(1024, execution_number, 1024)
