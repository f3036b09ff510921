"""Winograd vs direct convolution on ResNet-18's 3x3 stride-1 layers (batch 1).

For each layer it times, side by side in alternating rounds of one process (medians):

- ``direct``: ``conv2d_NCHWc.x86`` over packed data and kernel, as a network runs it;
- ``winograd``: ``conv2d_nchw_winograd_without_weight_transform.x86`` over packed data and a
  pre-transformed kernel, as a network runs it;
- ``torch``: ``torch.nn.functional.conv2d`` (MKL-DNN) on the same NCHW tensors.

Configs are the fallback ones, the best records of ``--log`` (the same workloads as
ResNet-18's tasks), or with ``--tune-trials N`` each layer's ``conv2d_NCHWc.x86`` and
``conv2d_nchw_winograd.x86`` tasks tuned for N trials (XGBTuner, cache flushed before each
measurement as bench_relay.py tunes) and the best record applied.

    OMP_NUM_THREADS=2 python bench/bench_winograd.py [--tune-trials 64 | --log FILE]
                                                     [--layers 0 1]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

#: (channels, size) of ResNet-18's 3x3 stride-1 convolutions (padding 1)
LAYERS = ((64, 56), (128, 28), (256, 14), (512, 7))


def _tasks(c: int, hw: int):
    import tvmlite.topi.x86  # noqa: F401  (registers the templates)
    from tvmlite import autotvm, te
    data = te.placeholder((1, c, hw, hw), name="data")
    kernel = te.placeholder((c, c, 3, 3), name="kernel")
    args = (data, kernel, (1, 1), (1, 1, 1, 1), (1, 1))
    return (autotvm.task.create("conv2d_NCHWc.x86", args + ("NCHW", "NCHW", "float32"), "llvm"),
            autotvm.task.create("conv2d_nchw_winograd.x86", args + ("float32",), "llvm"))


def _tune(task, log: str, trials: int) -> None:
    from tvmlite import autotvm
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(),
        runner=autotvm.LocalRunner(number=1, repeat=10, min_repeat_ms=0,
                                   enable_cpu_cache_flush=True))
    tuner = autotvm.tuner.XGBTuner(task, plan_size=min(trials, 16))
    tuner.tune(n_trial=min(trials, len(task.config_space)), early_stopping=None,
               measure_option=option, callbacks=[autotvm.callback.log_to_file(log)])


def _kernel(task, log: str):
    """The task's kernel as a network runs it (the template in tuning mode), built under
    ``log``'s best config (or the fallback), and random arguments."""
    import tvmlite as tvm
    from tvmlite import autotvm
    from tvmlite.autotvm.env import GLOBAL_SCOPE
    ctx = autotvm.apply_history_best(log) if log else autotvm.FallbackContext()
    with ctx, tvm.target.Target("llvm"):
        task.func(*task.args)  # defines the knobs on a fallback config
        cfg = autotvm.DispatchContext.current.query(tvm.target.Target("llvm"), task.workload)
        with autotvm.ApplyConfig(cfg):
            old, GLOBAL_SCOPE.in_tuning = GLOBAL_SCOPE.in_tuning, True
            try:
                s, args = task.func(*task.args)
            finally:
                GLOBAL_SCOPE.in_tuning = old
            f = tvm.build(s, args)
    arrs = [tvm.nd.array(np.random.randn(*[int(d) for d in a.shape]).astype("float32"))
            for a in args]
    return (lambda: f(*arrs)), str(cfg)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tune-trials", type=int, default=0)
    ap.add_argument("--layers", type=int, nargs="*", default=list(range(len(LAYERS))))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--log", default="",
                    help="an AutoTVM log to take the best configs from (e.g. the tune.log "
                         "bench_relay.py --tune-trials leaves in its bench_relay_* folder)")
    args = ap.parse_args()
    import logging
    import warnings
    warnings.simplefilter("ignore")
    logging.getLogger("autotvm").setLevel(logging.ERROR)
    import torch
    from bench_relay import alternate
    threads = int(os.environ.get("OMP_NUM_THREADS", "2"))
    os.environ.setdefault("TVM_NUM_THREADS", str(threads))
    torch.set_num_threads(threads)
    work = tempfile.mkdtemp(prefix="bench_winograd_")
    print(f"{'layer':>12} {'direct ms':>10} {'winograd ms':>12} {'torch ms':>9} "
          f"{'wino/direct':>11}  winograd config")
    for i in args.layers:
        c, hw = LAYERS[i]
        direct_t, wino_t = _tasks(c, hw)
        log = args.log
        if args.tune_trials:
            log = os.path.join(work, f"layer{i}.log")
            _tune(direct_t, log, args.tune_trials)
            _tune(wino_t, log, args.tune_trials)
        direct, _ = _kernel(direct_t, log)
        wino, wcfg = _kernel(wino_t, log)
        x = torch.randn(1, c, hw, hw)
        w = torch.randn(c, c, 3, 3)
        with torch.no_grad():
            t = alternate({"direct": direct, "winograd": wino,
                           "torch": lambda x=x, w=w: torch.nn.functional.conv2d(x, w, padding=1)},
                          args.rounds, per_round=5)
        print(f"{hw:>3}x{hw:<3}x{c:<4} {t['direct']:10.3f} {t['winograd']:12.3f} "
              f"{t['torch']:9.3f} {t['winograd'] / t['direct']:11.2f}  {wcfg}", flush=True)


if __name__ == "__main__":
    main()
