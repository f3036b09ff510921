"""Whole-network tuning as classic tune_relay_x86 does it: extract the tasks of a relay
program, tune them, build under ``apply_history_best`` with the tuned configs."""
import logging

import numpy as np
import pytest
from relay_helpers import build_run, kernel_names

import tvmlite as tvm
from tvmlite import autotvm, relay
from tvmlite.autotvm.dispatch import DispatchContext, FallbackContext
from tvmlite.topi import x86 as topi_x86
from tvmlite.topi.testing import conv2d_nchw_python

CONV = relay.op.get("nn.conv2d")
DENSE = relay.op.get("nn.dense")


def _conv_dense_net(c=5, h=11, oc=7, units=9):
    x = relay.var("data", shape=(1, c, h, h))
    w = relay.var("w", shape=(oc, c, 3, 3))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    w2 = relay.var("w2", shape=(units, oc * h * h))
    z = relay.nn.dense(relay.nn.batch_flatten(y), w2)
    return relay.Function([x, w, w2], z)


def _reference(data, w, w2):
    y = np.maximum(conv2d_nchw_python(data, w, 1, 1), 0).reshape(1, -1)
    return y @ w2.T


def _random(shape, rng):
    return rng.uniform(-1, 1, size=shape).astype("float32")


def test_extract_gives_the_classic_tasks():
    func = _conv_dense_net()
    mod = tvm.IRModule.from_expr(func)
    tasks = autotvm.task.extract_from_program(mod["main"], target="llvm", params={},
                                              ops=(CONV, DENSE))
    names = [t.name for t in tasks]
    # a 3x3 stride-1 conv also gives its Winograd task (tests/test_relay_winograd.py)
    assert names == ["conv2d_NCHWc.x86", "conv2d_nchw_winograd.x86", "dense_nopack.x86",
                     "dense_pack.x86"]
    conv = tasks[0]
    assert conv.args[0] == ("TENSOR", (1, 5, 11, 11), "float32")
    assert conv.args[1] == ("TENSOR", (7, 5, 3, 3), "float32")
    assert conv.flop == 2 * 7 * 11 * 11 * 5 * 9
    assert len(conv.config_space) > 1
    assert all(t.target.kind.name == "llvm" for t in tasks)
    # only the ops asked for; the same workload twice is one task
    only_conv = autotvm.task.extract_from_program(mod, target="llvm", params=None,
                                                  ops=(CONV,))
    assert [t.name for t in only_conv] == ["conv2d_NCHWc.x86", "conv2d_nchw_winograd.x86"]


def test_extract_binds_params_and_dedups_workloads():
    x = relay.var("x", shape=(2, 4, 9, 9))
    w = relay.var("w", shape=(4, 4, 3, 3))
    y = relay.nn.conv2d(relay.nn.conv2d(x, w, padding=(1, 1)), w, padding=(1, 1))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], y))
    params = {"w": np.zeros((4, 4, 3, 3), "float32")}
    tasks = autotvm.task.extract_from_program(mod["main"], params, "llvm", ops=(CONV,))
    assert [t.name for t in tasks] == ["conv2d_NCHWc.x86", "conv2d_nchw_winograd.x86"]


def test_extract_rejects_what_is_not_an_operator():
    mod = tvm.IRModule.from_expr(_conv_dense_net())
    with pytest.raises(tvm.TVMError, match="relay operators"):
        autotvm.task.extract_from_program(mod, {}, "llvm", ops=("nn.conv2d",))


def test_fallback_warning_once_per_workload(caplog):
    # sizes no other test builds: the fallback context warns once per workload per process
    func = _conv_dense_net(c=3, h=13, oc=6, units=5)
    fallback = DispatchContext.current
    assert isinstance(fallback, FallbackContext)
    with caplog.at_level(logging.WARNING, logger="autotvm"):
        for _ in range(2):
            with tvm.transform.PassContext(opt_level=3):
                relay.build(tvm.IRModule.from_expr(func), "llvm")
    msgs = [r.getMessage() for r in caplog.records if "Cannot find config" in r.getMessage()]
    assert len(msgs) == 2, msgs  # the conv and the dense workload, once each
    assert all(m.startswith("Cannot find config for target=llvm") for m in msgs)
    assert any("conv2d_NCHWc.x86" in m for m in msgs)
    assert any("dense_nopack.x86" in m for m in msgs)


@pytest.fixture(scope="module")
def tuned_log(tmp_path_factory):
    pytest.importorskip("xgboost", reason="XGBTuner needs xgboost")
    log = str(tmp_path_factory.mktemp("tune") / "net.log")
    mod = tvm.IRModule.from_expr(_conv_dense_net())
    # the direct conv and the dense (Winograd's tuning: tests/test_relay_winograd.py)
    tasks = [t for t in autotvm.task.extract_from_program(mod["main"], target="llvm",
                                                          params={}, ops=(CONV, DENSE))
             if t.name != "conv2d_nchw_winograd.x86"]
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(),
                                    runner=autotvm.LocalRunner(number=2, repeat=1))
    for t in tasks:
        tuner = autotvm.tuner.XGBTuner(t, plan_size=4)
        tuner.tune(n_trial=4, measure_option=option,
                   callbacks=[autotvm.callback.log_to_file(log)])
    return log, tasks


def test_tune_then_build_with_the_best_configs(tuned_log, monkeypatch, tmp_path):
    # an empty kernel cache: a cached whole-network build would skip the schedule the spy watches
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(tmp_path))
    log, tasks = tuned_log
    records = list(autotvm.record.load_from_file(log))
    assert {inp.task.name for inp, _ in records} == {t.name for t in tasks}
    best = autotvm.apply_history_best(log)
    conv_task = tasks[0]
    seen = []
    real = topi_x86.conv2d.config_of

    def spy(out):
        cfg = real(out)
        seen.append(cfg)
        return cfg
    monkeypatch.setattr(topi_x86.conv2d, "config_of", spy)
    rng = np.random.default_rng(3)
    data, w, w2 = _random((1, 5, 11, 11), rng), _random((7, 5, 3, 3), rng), \
        _random((9, 7 * 11 * 11), rng)
    with best:
        (out,), factory = build_run(_conv_dense_net(), {"data": data, "w": w, "w2": w2})
    # the conv kernel was scheduled with a tuned record's config, not a fallback: the layout
    # choice weighs each block pair's fastest record with the transforms its blocks imply,
    # so the config is the fastest logged one of its own (tile_ic, tile_oc)
    assert len(seen) == 1 and not seen[0].is_fallback

    def blocks(cfg):
        return cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1]
    same_blocks = [(np.mean(res.costs), str(inp.config)) for inp, res in records
                   if inp.task.workload == conv_task.workload and res.error_no == 0
                   and blocks(inp.config) == blocks(seen[0])]
    assert str(seen[0]) == min(same_blocks)[1]
    np.testing.assert_allclose(out, _reference(data, w, w2), rtol=1e-4, atol=1e-4)
    # dense: the faster of the two tuned implementations
    costs = {}
    for name in ("dense_nopack.x86", "dense_pack.x86"):
        wl = next(t.workload for t in tasks if t.name == name)
        res = best.best_by_targetkey[("cpu", wl)][1]
        costs[name] = np.mean(res.costs)
    faster = min(costs, key=costs.get)
    src = factory.get_lib().get_source()
    assert ("T_dense_pack" in src) == (faster == "dense_pack.x86")
    assert any(k.startswith("fused_nn_dense") for k in kernel_names(factory))


def test_the_cheapest_record_wins_and_changes_the_kernel(monkeypatch, tmp_path):
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(tmp_path))  # as above: the spy needs a cold build
    func = _conv_dense_net(c=4, h=10, oc=8, units=3)
    task, _ = autotvm.task.extract_from_program(tvm.IRModule.from_expr(func), {}, "llvm",
                                                ops=(CONV,))  # direct, Winograd
    space = task.config_space
    a, b = space.get(0), space.get(len(space) - 1)
    records = [(autotvm.MeasureInput(task.target, task, a), autotvm.MeasureResult((2e-3,), 0,
                                                                                 0.1, 0)),
               (autotvm.MeasureInput(task.target, task, b), autotvm.MeasureResult((1e-3,), 0,
                                                                                 0.1, 0))]
    seen = []
    real = topi_x86.conv2d.config_of
    monkeypatch.setattr(topi_x86.conv2d, "config_of", lambda out: seen.append(real(out))
                        or seen[-1])
    rng = np.random.default_rng(5)
    data, w, w2 = _random((1, 4, 10, 10), rng), _random((8, 4, 3, 3), rng), \
        _random((3, 8 * 10 * 10), rng)
    sources = []
    for recs in (records, records[:1]):
        seen.clear()
        with autotvm.apply_history_best(recs):
            (out,), factory = build_run(func, {"data": data, "w": w, "w2": w2})
        np.testing.assert_allclose(out, _reference(data, w, w2), rtol=1e-4, atol=1e-4)
        sources.append(factory.get_lib().get_source())
        assert seen[0].index == recs[-1][0].config.index
    assert sources[0] != sources[1]
