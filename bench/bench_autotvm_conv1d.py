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
from tvmlite import autotvm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from programs import conv1d_auto_tune  # noqa: E402  (seed 000's template)
from test_seed_conv1d_schedules import make_conv1d_cpu_scheduler_v4  # noqa: E402


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
