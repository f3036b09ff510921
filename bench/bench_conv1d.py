"""Seed 000's conv1d (M=4096, N=128): the seed's v4 schedule and a hand schedule, beside
np.convolve, measured in one run (medians).

The hand schedule rewrites the compute over a zero-padded input, so no if_then_else remains in
the main computation: B[n] = sum_k Apad[n + N - 1 - k] * W[k], n split by 64 (the 64-lane
inner loop vectorized: four AVX-512 accumulators), the outer loop parallel, k in between.

Run: python bench/bench_conv1d.py   (TVM_NUM_THREADS sets the threads; default physical cores)
"""
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from _timing import median_time  # noqa: E402
from test_seed_conv1d_schedules import make_conv1d_cpu_scheduler_v4  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import te  # noqa: E402
from tvmlite.runtime.threading import num_threads  # noqa: E402


def hand_schedule(M: int, N: int, lanes: int = 64):
    A = te.placeholder((M,), name="A")
    W = te.placeholder((N,), name="W")
    Apad = te.compute((M + 2 * (N - 1),), lambda i: tvm.tir.if_then_else(
        tvm.tir.all(i >= N - 1, i < M + N - 1), A[i - (N - 1)], tvm.tir.const(0.0, "float32")),
        name="Apad")
    k = te.reduce_axis((0, N), name="k")
    B = te.compute((M + N - 1,), lambda n: te.sum(Apad[n + (N - 1) - k] * W[k], axis=k),
                   name="B")
    s = te.create_schedule(B.op)
    no, ni = s[B].split(B.op.axis[0], factor=lanes)
    s[B].reorder(no, B.op.reduce_axis[0], ni)
    s[B].parallel(no)
    s[B].vectorize(ni)
    po, pi = s[Apad].split(Apad.op.axis[0], factor=64)
    s[Apad].vectorize(pi)
    return s, [A, W, B]


def main():
    M, N = 4096, 128
    rng = np.random.default_rng(0)
    a_np, w_np = rng.random(M, dtype="float32"), rng.random(N, dtype="float32")
    want = np.convolve(a_np, w_np)
    dev = tvm.cpu()
    a, w = tvm.nd.array(a_np), tvm.nd.array(w_np)
    rows = []
    for label, make in [("seed v4 schedule", lambda: make_conv1d_cpu_scheduler_v4(M, N)),
                        ("hand schedule (padded input)", lambda: hand_schedule(M, N))]:
        sched = make()
        s, args = (sched[0], list(sched[1:])) if len(sched) == 4 else sched
        mod = tvm.build(s, args, target="llvm")
        out = tvm.nd.array(np.zeros(M + N - 1, "float32"))
        mod(a, w, out)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4)
        ev = mod.time_evaluator(mod.entry_name, dev, number=100, repeat=7)
        rows.append((label, ev(a, w, out).median))
    t_np = median_time(lambda: np.convolve(a_np, w_np), reps=7, number=50)
    print(f"conv1d M={M} N={N}, {num_threads()} threads (medians of 7 runs)")
    print(f"  {'np.convolve':<37} {t_np * 1e6:8.1f} us")
    for label, t in rows:
        print(f"  tvmlite {label:<28} {t * 1e6:8.1f} us   {t_np / t:5.2f}x numpy's speed")


if __name__ == "__main__":
    main()
