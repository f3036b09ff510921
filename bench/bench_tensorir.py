"""TensorIR (seed 004) benchmarks, side by side.

1. Seed 004's ``mm_relu`` 128x128: untransformed, the seed's code (split j by 4 +
   reverse_compute_at; loop order i, j_0, j_1, k), and the loop order its printout shows
   (plus ``reorder(k, j_1)``, which its code omits).
2. A 1024^3 matmul scheduled only with ``tir.Schedule`` and the same schedule written with TE:
   the lowered loop nests are compared (structurally, names aside) and both are timed.

Run: python bench/bench_tensorir.py [n]   (default n = 1024; time_evaluator means)
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from programs import matmul, matmul_relu_module  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import te  # noqa: E402
from tvmlite.ir.structural import structural_equal  # noqa: E402


def seed_schedule(reorder: bool):
    sch = tvm.tir.Schedule(MyModule)
    block_Y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(block_Y)
    j0, j1 = sch.split(j, factors=[None, 4])
    if reorder:
        sch.reorder(k, j1)
    sch.reverse_compute_at(sch.get_block("C", "mm_relu"), j0)
    return sch.mod


def timed(mod, name, args, number=20, repeat=5):
    lib = tvm.build(mod, target="llvm")
    lib[name](*args)
    return lib, lib.time_evaluator(name, tvm.cpu(), number=number, repeat=repeat)(*args).mean


def bench_mm_relu():
    a = np.random.rand(128, 128).astype("float32")
    b = np.random.rand(128, 128).astype("float32")
    ref = np.maximum(a @ b, 0)
    args = [tvm.nd.array(a), tvm.nd.array(b), tvm.nd.empty((128, 128), "float32")]
    rows = []
    for label, mod in [("MyModule (untransformed)", MyModule),
                       ("sch.mod, seed code (i, j_0, j_1, k)", seed_schedule(False)),
                       ("sch.mod + reorder(k, j_1) (seed printout)", seed_schedule(True))]:
        _, t = timed(mod, "mm_relu", args)
        np.testing.assert_allclose(args[2].numpy(), ref, rtol=1e-4)
        rows.append((label, t))
    print("seed 004 mm_relu 128x128 (time_evaluator mean):")
    base = rows[0][1]
    for label, t in rows:
        print(f"  {label:45s} {t * 1e6:9.1f} us   x{base / t:5.2f} vs untransformed")


MyModule = matmul_relu_module()  # seed 004's module

BN, KF = 32, 4


def tir_matmul(n):
    sch = tvm.tir.Schedule(matmul(n, n, n, "matmul"))
    blk = sch.get_block("C")
    i, j, k = sch.get_loops(blk)
    io, ii = sch.split(i, factors=[None, BN])
    jo, ji = sch.split(j, factors=[None, BN])
    ko, ki = sch.split(k, factors=[None, KF])
    sch.reorder(io, jo, ko, ii, ki, ji)
    sch.parallel(io)
    sch.unroll(ki)
    sch.vectorize(ji)
    return sch.mod


def te_matmul(n):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), "k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    io, ii = s[C].split(i, factor=BN)
    jo, ji = s[C].split(j, factor=BN)
    ko, ki = s[C].split(k, factor=KF)
    s[C].reorder(io, jo, ko, ii, ki, ji)
    s[C].parallel(io)
    s[C].unroll(ki)
    s[C].vectorize(ji)
    return s, [A, B, C]


def bench_matmul(n=1024):
    tir_mod = tir_matmul(n)
    s, targs = te_matmul(n)
    te_mod = tvm.lower(s, targs, name="matmul")
    tir_low = tvm.lower(tir_mod)
    same = structural_equal(tir_low["main"].body, te_mod["matmul"].body)
    print(f"\n{n}^3 matmul, tile {BN}x{BN}, k by {KF}: lowered loop nests equal (modulo names): "
          f"{same}")
    a = np.random.rand(n, n).astype("float32")
    b = np.random.rand(n, n).astype("float32")
    args = [tvm.nd.array(a), tvm.nd.array(b), tvm.nd.empty((n, n), "float32")]
    _, t_tir = timed(tir_mod, "matmul", args, number=2, repeat=3)
    np.testing.assert_allclose(args[2].numpy(), a @ b, rtol=1e-3)
    lib = tvm.build(s, targs, target="llvm", name="matmul")
    t_te = lib.time_evaluator("matmul", tvm.cpu(), number=2, repeat=3)(*args).mean
    np.testing.assert_allclose(args[2].numpy(), a @ b, rtol=1e-3)
    gf = 2 * n ** 3 / 1e9
    print(f"  tir.Schedule: {t_tir * 1e3:8.2f} ms  {gf / t_tir:6.1f} GFLOP/s")
    print(f"  TE schedule:  {t_te * 1e3:8.2f} ms  {gf / t_te:6.1f} GFLOP/s   "
          f"(TIR/TE time ratio {t_tir / t_te:.2f})")


if __name__ == "__main__":
    bench_mm_relu()
    bench_matmul(int(sys.argv[1]) if len(sys.argv) > 1 else 1024)
