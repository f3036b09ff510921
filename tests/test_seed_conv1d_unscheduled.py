"""Seed 000's naive and v0 conv1d (unscheduled), as the notebook writes them."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


def make_conv1d_cpu_scheduler_naive(M, N):
    A = te.placeholder((M,), name="A")
    W = te.placeholder((N,), name="W")
    k = te.reduce_axis((0, M + N - 1), "k")
    B = te.compute(
        (M + N - 1,),
        lambda n: te.sum(tvm.tir.if_then_else(
            tvm.tir.any(k < 0, k >= M, n - k < 0, n - k >= N),
            tvm.tir.const(0.0, "float32"),
            A[k] * W[n - k]), axis=k),
        name="B",
    )
    s = te.create_schedule(B.op)
    return s, A, W, B


def make_conv1d_cpu_scheduler_v0(M, N, verbose=False):
    A = te.placeholder((M,), name="A", dtype="float32")
    W = te.placeholder((N,), name="W", dtype="float32")
    k = te.reduce_axis((0, M), "k")
    B = te.compute(
        (M + N - 1,),
        lambda n: te.sum(tvm.tir.if_then_else(
            tvm.tir.any(k < 0, k >= M, n - k < 0, n - k >= N),
            tvm.tir.const(0.0, "float32"),
            A[k] * W[n - k]), axis=k),
        name="B",
    )
    s = te.create_schedule(B.op)
    return s, A, W, B


@pytest.mark.parametrize("make", [make_conv1d_cpu_scheduler_naive,
                                  make_conv1d_cpu_scheduler_v0])
@pytest.mark.parametrize("M,N", [(4096, 128), (1, 1), (37, 5), (5, 37)])
def test_conv1d_unscheduled_matches_numpy(make, M, N):
    s, A, W, B = make(M, N)
    func = tvm.build(s, [A, W, B], target="llvm")
    dev = tvm.device('llvm', 0)
    np.random.seed(0)
    a_np = np.random.rand(M).astype("float32")
    w_np = np.random.rand(N).astype("float32")
    out = tvm.nd.array(np.zeros((M + N - 1,), dtype="float32"), dev)
    func(tvm.nd.array(a_np, dev), tvm.nd.array(w_np, dev), out)
    np.testing.assert_allclose(out.asnumpy(), np.convolve(a_np, w_np), rtol=1e-4)
    cost = func.time_evaluator(func.entry_name, dev, number=2, repeat=2)(
        tvm.nd.array(a_np, dev), tvm.nd.array(w_np, dev), out).mean
    assert cost > 0


def test_conv1d_lowered_text_like_the_seed():
    s, A, W, B = make_conv1d_cpu_scheduler_naive(4096, 128)
    text = str(tvm.lower(s, [A, W, B], simple_mode=True))
    assert "for n in range(4223):" in text
    assert "B[n] = T.float32(0)" in text
    assert "for k in range(4223):" in text
    # the simplifier drops the provably false ``k < 0``
    assert "T.if_then_else(4096 <= k or n - k < 0 or 128 <= n - k," in text
    s, A, W, B = make_conv1d_cpu_scheduler_v0(4096, 128)
    text = str(tvm.lower(s, [A, W, B], simple_mode=True))
    assert "for k in range(4096):" in text
    assert "T.if_then_else(n - k < 0 or 128 <= n - k," in text
