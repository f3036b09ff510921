"""Seed 000's conv1d, unmodified classic TVM code: run it with ``python -m tvmlite
examples/conv1d.py`` (the alias makes ``import tvm`` resolve to tvmlite)."""
import numpy as np
import tvm
from tvm import te


def make_conv1d_cpu_scheduler_v0(M, N):
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


M, N = 4096, 128
s, A, W, B = make_conv1d_cpu_scheduler_v0(M, N)
print(tvm.lower(s, [A, W, B], simple_mode=True))
func = tvm.build(s, [A, W, B], target="llvm")
dev = tvm.cpu()
np.random.seed(0)
a_np = np.random.rand(M).astype("float32")
w_np = np.random.rand(N).astype("float32")
a, w = tvm.nd.array(a_np, dev), tvm.nd.array(w_np, dev)
b = tvm.nd.array(np.zeros((M + N - 1,), dtype="float32"), dev)
func(a, w, b)
np.testing.assert_allclose(b.numpy(), np.convolve(a_np, w_np), rtol=1e-4)
cost = func.time_evaluator(func.entry_name, dev, number=10, repeat=3)(a, w, b).mean
print(f"[tvmlite conv1d v0] {cost * 1e3:.4f} ms, result matches np.convolve")
