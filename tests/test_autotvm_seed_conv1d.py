"""Seed 000's AutoTVM cells, as written (fewer trials), through XGBTuner with loop-nest
features: the tuned conv1d matches np.convolve."""
import re

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm

pytest.importorskip("xgboost", reason="seed 000 tunes with XGBTuner: pip install xgboost-cpu")

from programs import conv1d_auto_tune  # noqa: E402  (seed 000's template, as written)


def tune_conv1d(M, N, trials=200, log_file="conv1d.log"):
    task = autotvm.task.create("tutorial/conv1d_auto_tune", args=(M, N), target="llvm")
    print("AutoTVM Task:", task.name, "Search Space Size:", len(task.config_space))

    measure_option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(),
        runner=autotvm.LocalRunner(number=5, repeat=1, min_repeat_ms=100)
    )

    tuner = autotvm.tuner.XGBTuner(task)
    tuner.tune(
        n_trial=trials,
        measure_option=measure_option,
        callbacks=[
            autotvm.callback.log_to_file(log_file),
            autotvm.callback.progress_bar(trials)
        ]
    )

    # build kernel from the best history
    with autotvm.apply_history_best(log_file):
        with tvm.target.Target("llvm"):
            s, arg_bufs = conv1d_auto_tune(M, N)
            func = tvm.build(s, arg_bufs, target="llvm")

    return func


def benchmark_conv1d_autotvm(M, N, dev, a_np, w_np, trials=200, num_runs=10):
    func = tune_conv1d(M, N, trials=trials)
    a_tvm = tvm.nd.array(a_np, dev)
    w_tvm = tvm.nd.array(w_np, dev)
    out_tvm = tvm.nd.array(np.zeros((M + N - 1,), dtype=a_np.dtype), dev)

    evaluator = func.time_evaluator(func.entry_name, dev, number=num_runs, repeat=1)
    cost = evaluator(a_tvm, w_tvm, out_tvm).mean
    return cost, out_tvm.asnumpy()


@pytest.mark.slow
def test_seed_autotvm_cells(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    M, N = 4096, 128
    dev = tvm.cpu()
    a_np = np.random.rand(M).astype("float32")
    w_np = np.random.rand(N).astype("float32")
    ref = np.convolve(a_np, w_np)
    auto_time, auto_res = benchmark_conv1d_autotvm(M, N, dev, a_np, w_np, trials=12,
                                                   num_runs=10)
    np.testing.assert_allclose(auto_res, ref, rtol=1e-4)
    print(f"[TVM AutoTVM] time: {auto_time*1e3:.4f} ms")
    out = capsys.readouterr().out
    assert "AutoTVM Task: tutorial/conv1d_auto_tune Search Space Size: 84" in out
    assert re.search(r" Current/Best: +\d+\.\d\d/ +\d+\.\d\d GFLOPS \| Progress: \(12/12\) \| "
                     r"\d+\.\d\d s Done\.\n", out)
    assert re.search(r"\[TVM AutoTVM\] time: \d+\.\d{4} ms", out)
    lines = (tmp_path / "conv1d.log").read_text().splitlines()
    assert len(lines) == 12
    assert auto_time > 0
