"""Winograd convolution in relay: the ``nn.contrib_conv2d_winograd_*`` operators (types,
results vs numpy), task extraction of ``conv2d_nchw_winograd.x86`` for eligible convolutions,
and AlterOpLayout choosing Winograd when a tuning log says it is faster."""
import logging

import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import autotvm, relay
from tvmlite.relay.op.registry import Op
from tvmlite.topi.testing import conv2d_nchw_python

CONV = relay.op.get("nn.conv2d")


def _rand(shape, rng):
    return rng.standard_normal(shape).astype("float32")


def _infer(expr):
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(expr))
    return mod["main"].body.checked_type


def test_weight_transform_and_conv_types():
    w = relay.var("w", shape=(8, 4, 3, 3))
    t = relay.nn.contrib_conv2d_winograd_weight_transform(w, 4)
    assert _infer(relay.Function([w], t)).shape == (6, 6, 8, 4)
    x = relay.var("x", shape=(2, 4, 9, 7))
    y = relay.nn.contrib_conv2d_winograd_without_weight_transform(x, t, 4, padding=(1, 1),
                                                                   channels=8,
                                                                   kernel_size=(3, 3))
    assert _infer(relay.Function([x, w], y)).shape == (2, 8, 9, 7)
    xp = relay.var("xp", shape=(1, 2, 9, 7, 2))
    wp = relay.var("wp", shape=(6, 6, 1, 4, 8))
    yp = relay.nn.contrib_conv2d_winograd_without_weight_transform(
        xp, wp, 4, padding=(0, 0), data_layout="NCHW2c", kernel_layout="HWOI8o",
        out_layout="NCHW8c")
    assert _infer(relay.Function([xp, wp], yp)).shape == (1, 1, 7, 5, 8)
    bad = relay.nn.contrib_conv2d_winograd_without_weight_transform(x, t, 2)
    with pytest.raises(tvm.TVMError, match="alpha"):
        _infer(relay.Function([x, w], bad))
    with pytest.raises(tvm.TVMError, match="square"):
        _infer(relay.Function([x], relay.nn.contrib_conv2d_winograd_weight_transform(
            relay.var("v", shape=(8, 4, 3, 1)), 4)))


@pytest.mark.parametrize("m,pad", [(2, 1), (4, 0), (6, 1)])
def test_weight_transform_then_conv_matches_numpy(m, pad):
    rng = np.random.default_rng(m)
    x = relay.var("x", shape=(2, 5, 11, 9))
    w = relay.var("w", shape=(6, 5, 3, 3))
    y = relay.nn.contrib_conv2d_winograd_without_weight_transform(
        x, relay.nn.contrib_conv2d_winograd_weight_transform(w, m), m, padding=(pad, pad),
        kernel_size=(3, 3), channels=6)
    y = relay.nn.relu(y)
    xv, wv = _rand((2, 5, 11, 9), rng), _rand((6, 5, 3, 3), rng)
    (out,), _ = build_run(relay.Function([x, w], y), {"x": xv, "w": wv})
    ref = np.maximum(conv2d_nchw_python(xv.astype("float64"), wv.astype("float64"), 1, pad), 0)
    assert np.abs(out - ref).max() / np.abs(ref).max() < 1e-4


def _net(c=8, h=10, oc=16):
    x = relay.var("data", shape=(1, c, h, h))
    w1 = relay.var("w1", shape=(oc, c, 3, 3))
    w2 = relay.var("w2", shape=(oc, oc, 3, 3))
    w3 = relay.var("w3", shape=(oc, oc, 1, 1))
    y = relay.nn.relu(relay.nn.conv2d(x, w1, padding=(1, 1)))
    y = relay.nn.conv2d(y, w2, strides=(2, 2), padding=(1, 1))  # stride 2: direct only
    z = relay.nn.conv2d(relay.nn.relu(y), w3)
    return relay.Function([x, w1, w2, w3], relay.add(z, y))


def _reference(p):
    y = np.maximum(conv2d_nchw_python(p["data"], p["w1"], 1, 1), 0)
    y = conv2d_nchw_python(y, p["w2"], 2, 1)
    return conv2d_nchw_python(np.maximum(y, 0), p["w3"], 1, 0) + y


def test_extract_gives_winograd_tasks_for_eligible_convs():
    mod = tvm.IRModule.from_expr(_net())
    tasks = autotvm.task.extract_from_program(mod["main"], target="llvm", params={},
                                              ops=(CONV,))
    names = [(t.name, t.args[1][1]) for t in tasks]
    assert names == [("conv2d_NCHWc.x86", (16, 8, 3, 3)),
                     ("conv2d_nchw_winograd.x86", (16, 8, 3, 3)),
                     ("conv2d_NCHWc.x86", (16, 16, 3, 3)),
                     ("conv2d_NCHWc.x86", (16, 16, 1, 1))]
    wino = tasks[1]
    assert {wino.config_space.get(i)["tile_size"].val
            for i in range(len(wino.config_space))} == {2, 4, 6}
    assert wino.flop == 2 * 16 * 8 * 10 * 10 * 9


def _records(tasks, wino_cost, direct_cost, tile_size=4):
    """One record per task: the Winograd task's config of ``tile_size`` and blocks (8, 16)
    at ``wino_cost``, the direct tasks' last config at ``direct_cost``."""
    recs = []
    for t in tasks:
        space = t.config_space
        if t.name == "conv2d_nchw_winograd.x86":
            cfg = next(space.get(i) for i in range(len(space))
                       if space.get(i)["tile_size"].val == tile_size
                       and space.get(i)["tile_ic"].size[-1] == 8
                       and space.get(i)["tile_oc"].size[-1] == 16)
            cost = wino_cost
        else:
            cfg, cost = space.get(len(space) - 1), direct_cost
        recs.append((autotvm.MeasureInput(t.target, t, cfg),
                     autotvm.MeasureResult((cost,), 0, 0.1, 0)))
    return recs


def _op_names(func, params, recs):
    with autotvm.apply_history_best(recs), tvm.target.Target("llvm"):
        with tvm.transform.PassContext(opt_level=3):
            mod = relay.build_module.optimize(tvm.IRModule.from_expr(func), params)
            mod = relay.transform.FoldConstant()(relay.transform.AlterOpLayout()(mod))
    names = set()
    relay.analysis.post_order_visit(mod["main"], lambda n: names.add(n.op.name) if isinstance(
        n, relay.Call) and isinstance(n.op, Op) else None)
    return names


@pytest.mark.parametrize("tile_size", [2, 4])
def test_tuned_log_choosing_winograd_builds_the_same_network(tile_size, monkeypatch,
                                                             tmp_path, caplog):
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(tile_size)
    func = _net()
    p = {"data": _rand((1, 8, 10, 10), rng), "w1": _rand((16, 8, 3, 3), rng),
         "w2": _rand((16, 16, 3, 3), rng), "w3": _rand((16, 16, 1, 1), rng)}
    tasks = autotvm.task.extract_from_program(tvm.IRModule.from_expr(func)["main"],
                                              target="llvm", params={}, ops=(CONV,))
    fast = _records(tasks, 1e-6, 1e-3, tile_size)
    slow = _records(tasks, 1e-3, 1e-6, tile_size)
    params = {k: v for k, v in p.items() if k != "data"}
    names = _op_names(func, params, fast)
    assert "nn.contrib_conv2d_winograd_without_weight_transform" in names
    # the weight transform is folded at build time
    assert "nn.contrib_conv2d_winograd_weight_transform" not in names
    assert "nn.contrib_conv2d_winograd_without_weight_transform" not in \
        _op_names(func, params, slow)
    # no records: the direct convolution, as classic x86
    assert "nn.contrib_conv2d_winograd_without_weight_transform" not in \
        _op_names(func, params, [])
    with autotvm.apply_history_best(fast), caplog.at_level(logging.WARNING, "autotvm"):
        (out,), _ = build_run(func, {"data": p["data"]}, params=params)
    # the packed Winograd kernel runs the tuned config (no fallback)
    assert not [r for r in caplog.records if "winograd" in r.getMessage()]
    (plain,), _ = build_run(func, p, opt_level=0)
    ref = _reference({k: v.astype("float64") for k, v in p.items()})
    assert np.abs(out - ref).max() / np.abs(ref).max() < 1e-4
    np.testing.assert_allclose(out, plain, rtol=1e-4, atol=1e-4 * np.abs(plain).max())
