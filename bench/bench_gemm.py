"""GEMM 1024^3 fp32 with the classic blocked schedule, beside numpy (OpenBLAS) matmul.

Schedule (TVM's "How to optimize GEMM on CPU", final step): B packed to (n/32, n, 32), C tiled
32x32, a global cache_write computed at the column-tile loop, k split by 4 and unrolled, the
inner 32 vectorized, the row-tile loop parallel.

Run: python bench/bench_gemm.py [n]   (medians of >= 5 runs; TVM_NUM_THREADS sets the threads)
"""
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import median_time  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import te  # noqa: E402


def blocked_gemm(n: int, bn: int = 32):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), "k")
    packedB = te.compute((n // bn, n, bn), lambda x, y, z: B[y, x * bn + z], name="packedB")
    C = te.compute((n, n), lambda x, y: te.sum(
        A[x, k] * packedB[y // bn, k, tvm.tir.indexmod(y, bn)], axis=k), name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "global")
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
    s[CC].compute_at(s[C], yo)
    xc, yc = s[CC].op.axis
    (kk,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(kk, factor=4)
    s[CC].reorder(ko, xc, ki, yc)
    s[CC].unroll(ki)
    s[CC].vectorize(yc)
    s[C].parallel(xo)
    x, y, z = s[packedB].op.axis
    s[packedB].vectorize(z)
    s[packedB].parallel(x)
    return s, [A, B, C]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    s, args = blocked_gemm(n)
    t0 = time.perf_counter()
    mod = tvm.build(s, args, target="llvm")
    build_s = time.perf_counter() - t0
    a_np = np.random.rand(n, n).astype("float32")
    b_np = np.random.rand(n, n).astype("float32")
    a, b = tvm.nd.array(a_np), tvm.nd.array(b_np)
    c = tvm.nd.array(np.zeros((n, n), "float32"))
    mod(a, b, c)
    np.testing.assert_allclose(c.numpy(), a_np @ b_np, rtol=1e-3)
    flops = 2.0 * n ** 3
    ev = mod.time_evaluator(mod.entry_name, tvm.cpu(), number=3, repeat=7)
    t_tvm = ev(a, b, c).median
    t_np = median_time(lambda: np.matmul(a_np, b_np), reps=7, number=3)
    dump = subprocess.run(["objdump", "-d", mod.library_path], capture_output=True, text=True)
    fma = sum(1 for ln in dump.stdout.splitlines() if "vfmadd" in ln and "zmm" in ln)
    fma_any = sum(1 for ln in dump.stdout.splitlines() if "vfmadd" in ln)
    print(f"GEMM {n}^3 fp32 (build {build_s * 1e3:.0f} ms; {fma_any} vfmadd instructions in the "
          f".so, {fma} on zmm)")
    print(f"  tvmlite blocked   {t_tvm * 1e3:8.2f} ms  {flops / t_tvm / 1e9:7.1f} GFLOP/s")
    print(f"  numpy matmul      {t_np * 1e3:8.2f} ms  {flops / t_np / 1e9:7.1f} GFLOP/s")
    print(f"  ratio tvmlite/numpy GFLOP/s: {t_np / t_tvm:.2f}")


if __name__ == "__main__":
    main()
