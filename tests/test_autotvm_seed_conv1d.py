"""Seed 000's AutoTVM cells, as written (fewer trials), through XGBTuner with loop-nest
features: the tuned conv1d matches np.convolve."""
import re

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm, te

pytest.importorskip("xgboost", reason="seed 000 tunes with XGBTuner: pip install xgboost-cpu")


@autotvm.template("tutorial/conv1d_auto_tune")
def conv1d_auto_tune(M, N):
    A = te.placeholder((M,), name="A", dtype="float32")
    W = te.placeholder((N,), name="W", dtype="float32")
    k = te.reduce_axis((0, N), name="k")

    B = te.compute(
        (M + N - 1,),
        lambda i: te.sum(
            tvm.tir.if_then_else(
                tvm.tir.all(i - k >= 0, i - k < M),
                A[i - k] * W[k],
                tvm.tir.const(0.0, "float32")
            ),
            axis=k
        ),
        name="B"
    )

    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    i = B.op.axis[0]
    k_ = B.op.reduce_axis[0]

    # define search space
    cfg.define_split("tile_i", i, num_outputs=2, filter=lambda x: x.size[-1] <= 64)
    cfg.define_split("tile_k", k_, num_outputs=2, filter=lambda x: x.size[-1] <= 64)
    cfg.define_knob("vectorize", [True, False])
    cfg.define_knob("unroll", [0, 8, 16])

    # schedule according to config
    A_local = s.cache_read(A, "local", [B])
    W_local = s.cache_read(W, "local", [B])

    i_outer, i_inner = cfg["tile_i"].apply(s, B, i)
    k_outer, k_inner = cfg["tile_k"].apply(s, B, k_)

    s[B].parallel(i_outer)

    if cfg["vectorize"].val:
        s[B].vectorize(i_inner)

    unroll_factor = cfg["unroll"].val
    if unroll_factor > 0:
        s[B].unroll(i_inner)

    s[A_local].compute_at(s[B], i_outer)
    s[W_local].compute_at(s[B], i_outer)

    return s, [A, W, B]


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
