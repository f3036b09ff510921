"""A GEMM 1024^3 AutoTVM template (y, x and k split; cache_write at the tile; packed B;
vectorize, unroll and parallel knobs) tuned for 100 trials with XGBTuner, beside numpy's
matmul.

    python bench/bench_autotvm_gemm.py [trials]
"""
import os
import sys
import tempfile
import time

import numpy as np

import tvmlite as tvm
from tvmlite import autotvm, te


@autotvm.template("bench/gemm_packed")
def gemm_packed(N, L, M):
    A = te.placeholder((N, L), name="A")
    B = te.placeholder((L, M), name="B")
    cfg = autotvm.get_config()
    cfg.define_split("tile_y", N, num_outputs=2, filter=lambda x: 4 <= x.size[-1] <= 64)
    cfg.define_split("tile_x", M, num_outputs=2, filter=lambda x: 16 <= x.size[-1] <= 64)
    cfg.define_split("tile_k", L, num_outputs=2, filter=lambda x: x.size[-1] <= 16)
    cfg.define_knob("vectorize", [True, False])
    cfg.define_knob("unroll_k", [True, False])
    cfg.define_knob("parallel", [True, False])
    bn = cfg["tile_x"].size[-1]
    k = te.reduce_axis((0, L), name="k")
    packedB = te.compute((M // bn, L, bn), lambda x, y, z: B[y, x * bn + z], name="packedB")
    C = te.compute((N, M), lambda i, j: te.sum(
        A[i, k] * packedB[j // bn, k, tvm.tir.indexmod(j, bn)], axis=k), name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "global")
    y, x = s[C].op.axis
    yo, yi = cfg["tile_y"].apply(s, C, y)
    xo, xi = cfg["tile_x"].apply(s, C, x)
    s[C].reorder(yo, xo, yi, xi)
    s[CC].compute_at(s[C], xo)
    yc, xc = s[CC].op.axis
    (kc,) = s[CC].op.reduce_axis
    ko, ki = cfg["tile_k"].apply(s, CC, kc)
    s[CC].reorder(ko, yc, ki, xc)
    if cfg["vectorize"].val:
        s[CC].vectorize(xc)
        s[C].vectorize(xi)
    if cfg["unroll_k"].val:
        s[CC].unroll(ki)
    if cfg["parallel"].val:
        s[C].parallel(yo)
    px, py, pz = s[packedB].op.axis
    s[packedB].vectorize(pz)
    s[packedB].parallel(px)
    cfg.add_flop(2 * N * L * M)
    return s, [A, B, C]


def main(trials: int = 100) -> None:
    n = 1024
    dev = tvm.cpu()
    a_np = np.random.rand(n, n).astype("float32")
    b_np = np.random.rand(n, n).astype("float32")
    log = os.path.join(tempfile.mkdtemp(), "gemm.log")

    t0 = time.perf_counter()
    task = autotvm.task.create("bench/gemm_packed", args=(n, n, n), target="llvm")
    print("AutoTVM Task:", task.name, "Search Space Size:", len(task.config_space))
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(),
        runner=autotvm.LocalRunner(number=2, repeat=1, min_repeat_ms=50, timeout=20))
    tuner = autotvm.tuner.XGBTuner(task)
    tuner.tune(n_trial=trials, measure_option=option,
               callbacks=[autotvm.callback.log_to_file(log),
                          autotvm.callback.progress_bar(trials)])
    with autotvm.apply_history_best(log):
        with tvm.target.Target("llvm"):
            s, args = gemm_packed(n, n, n)
            func = tvm.build(s, args, target="llvm")
    wall = time.perf_counter() - t0

    a, b = tvm.nd.array(a_np, dev), tvm.nd.array(b_np, dev)
    c = tvm.nd.array(np.zeros((n, n), "float32"), dev)
    t_tvm = func.time_evaluator(func.entry_name, dev, number=3, repeat=5)(a, b, c).median
    np.testing.assert_allclose(c.numpy(), a_np @ b_np, rtol=1e-3)
    np.matmul(a_np, b_np)
    reps = 10
    t1 = time.perf_counter()
    for _ in range(reps):
        np.matmul(a_np, b_np)
    t_np = (time.perf_counter() - t1) / reps

    st = tuner.stats
    overhead = st["tune_s"] - st["build_s"] - st["run_s"]
    gf = 2 * n ** 3 / 1e9
    print(f"\ntuning wall {wall:.2f} s: build {st['build_s']:.2f} s, run {st['run_s']:.2f} s, "
          f"tuner overhead {overhead:.2f} s (model {st['model_s']:.2f} s, features "
          f"{st['features_s']:.2f} s)")
    print(f"{'kernel':20s}{'ms':>10s}{'GFLOP/s':>10s}{'vs numpy':>10s}")
    for name, t in (("AutoTVM tuned", t_tvm), ("numpy matmul", t_np)):
        print(f"{name:20s}{t * 1e3:10.3f}{gf / t:10.1f}{t_np / t:9.2f}x")
    print(f"best config: {tuner.best_config}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
