"""Seed 000's AutoTVM template tuned for 50 trials (XGBTuner, the seed's measure options):
total wall time split into build, run and tuner overhead; the tuned kernel beside the seed's
hand schedule v4 and np.convolve.

    python bench/bench_autotvm_conv1d.py [trials]
"""
import os
import sys
import tempfile
import time

import numpy as np

import tvmlite as tvm
from tvmlite import autotvm, te

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from test_seed_conv1d_schedules import make_conv1d_cpu_scheduler_v4  # noqa: E402


@autotvm.template("tutorial/conv1d_auto_tune")
def conv1d_auto_tune(M, N):
    A = te.placeholder((M,), name="A", dtype="float32")
    W = te.placeholder((N,), name="W", dtype="float32")
    k = te.reduce_axis((0, N), name="k")
    B = te.compute((M + N - 1,), lambda i: te.sum(tvm.tir.if_then_else(
        tvm.tir.all(i - k >= 0, i - k < M), A[i - k] * W[k], tvm.tir.const(0.0, "float32")),
        axis=k), name="B")
    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    i = B.op.axis[0]
    k_ = B.op.reduce_axis[0]
    cfg.define_split("tile_i", i, num_outputs=2, filter=lambda x: x.size[-1] <= 64)
    cfg.define_split("tile_k", k_, num_outputs=2, filter=lambda x: x.size[-1] <= 64)
    cfg.define_knob("vectorize", [True, False])
    cfg.define_knob("unroll", [0, 8, 16])
    A_local = s.cache_read(A, "local", [B])
    W_local = s.cache_read(W, "local", [B])
    i_outer, i_inner = cfg["tile_i"].apply(s, B, i)
    k_outer, k_inner = cfg["tile_k"].apply(s, B, k_)
    s[B].parallel(i_outer)
    if cfg["vectorize"].val:
        s[B].vectorize(i_inner)
    if cfg["unroll"].val > 0:
        s[B].unroll(i_inner)
    s[A_local].compute_at(s[B], i_outer)
    s[W_local].compute_at(s[B], i_outer)
    return s, [A, W, B]


def main(trials: int = 50) -> None:
    M, N = 4096, 128
    dev = tvm.cpu()
    a_np = np.random.rand(M).astype("float32")
    w_np = np.random.rand(N).astype("float32")
    ref = np.convolve(a_np, w_np)
    log = os.path.join(tempfile.mkdtemp(), "conv1d.log")

    t0 = time.perf_counter()
    task = autotvm.task.create("tutorial/conv1d_auto_tune", args=(M, N), target="llvm")
    print("AutoTVM Task:", task.name, "Search Space Size:", len(task.config_space))
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(),
        runner=autotvm.LocalRunner(number=5, repeat=1, min_repeat_ms=100))
    tuner = autotvm.tuner.XGBTuner(task)
    tuner.tune(n_trial=trials, measure_option=option,
               callbacks=[autotvm.callback.log_to_file(log),
                          autotvm.callback.progress_bar(trials)])
    with autotvm.apply_history_best(log):
        with tvm.target.Target("llvm"):
            s, args = conv1d_auto_tune(M, N)
            func = tvm.build(s, args, target="llvm")
    wall = time.perf_counter() - t0

    def timed(f):
        a, w = tvm.nd.array(a_np, dev), tvm.nd.array(w_np, dev)
        out = tvm.nd.array(np.zeros(M + N - 1, "float32"), dev)
        r = f.time_evaluator(f.entry_name, dev, number=10, repeat=7, min_repeat_ms=50)(a, w, out)
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4)
        return r.median, r.min

    t_auto = timed(func)
    _, A4, W4, B4 = make_conv1d_cpu_scheduler_v4(M, N)
    t_v4 = timed(tvm.build(_, [A4, W4, B4], target="llvm"))
    reps = 200
    t1 = time.perf_counter()
    for _ in range(reps):
        np.convolve(a_np, w_np)
    t_np = (time.perf_counter() - t1) / reps
    t_np = (t_np, t_np)

    st = tuner.stats
    overhead = st["tune_s"] - st["build_s"] - st["run_s"]
    print(f"[TVM AutoTVM] time: {t_auto[0] * 1e3:.4f} ms")
    print(f"\n{'':28s}{'seconds':>10s}")
    print(f"{'tuning wall (task..build)':28s}{wall:10.2f}   (seed 000 on Colab: 89.83 s)")
    print(f"{'  build (parallel workers)':28s}{st['build_s']:10.2f}")
    print(f"{'  run (runner process)':28s}{st['run_s']:10.2f}")
    print(f"{'  tuner overhead':28s}{overhead:10.2f}   (model {st['model_s']:.2f} s, "
          f"features {st['features_s']:.2f} s, {st['trains']} retrains)")
    print(f"\n{'kernel (median / min of 7)':28s}{'ms':>10s}{'min ms':>10s}{'np/this':>10s}")
    for name, t in (("AutoTVM tuned", t_auto), ("seed v4 (hand)", t_v4),
                    ("np.convolve", t_np)):
        print(f"{name:28s}{t[0] * 1e3:10.4f}{t[1] * 1e3:10.4f}{t_np[0] / t[0]:9.2f}x")
    print(f"best config: {tuner.best_config}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
