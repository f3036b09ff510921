"""The network cache of relay.build: a second build of the same network takes the graph,
library and params of the first from disk; anything that changes the result changes the key."""
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm, relay
from tvmlite.autotvm.dispatch import DispatchContext, FallbackContext
from tvmlite.contrib import graph_executor
from tvmlite.relay import build_cache
from tvmlite.topi.testing import conv2d_nchw_python, pool2d_ref


def _net(c=3, h=9, w=7, oc=5):
    x = relay.var("x", shape=(1, c, h, w))
    wt = relay.var("w", shape=(oc, c, 3, 3))
    b = relay.var("b", shape=(oc,))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, wt, padding=(1, 1)), b))
    pool = relay.nn.max_pool2d(y, (2, 2), (2, 2))
    return tvm.IRModule.from_expr(relay.Function([x, wt, b], pool))


def _params(rng, c=3, oc=5):
    return {"w": rng.standard_normal((oc, c, 3, 3)).astype("float32"),
            "b": rng.standard_normal(oc).astype("float32")}


def _run(factory, x):
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run(x=x)
    return gm.get_output(0).numpy()


def _reference(x, params):
    """:func:`_net` in numpy (float64): conv 3x3 pad 1 + bias, relu, 2x2 max pool."""
    y = conv2d_nchw_python(x.astype("float64"), params["w"].astype("float64"), 1, 1)
    y = np.maximum(y + params["b"].astype("float64")[:, None, None], 0)
    return pool2d_ref(y, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max")


def _build(mod, params, opt_level=3, **kwargs):
    with tvm.transform.PassContext(opt_level=opt_level, **kwargs):
        return relay.build(mod, target="llvm", params=params)


def test_second_build_is_a_hit_with_the_same_results(tmp_cache_dir, rng):
    mod, params = _net(), _params(rng)
    x = rng.standard_normal((1, 3, 9, 7)).astype("float32")
    hits = build_cache.stats["hits"]
    first = _build(mod, params)
    assert build_cache.stats["hits"] == hits
    second = _build(mod, params)
    assert build_cache.stats["hits"] == hits + 1
    assert second.get_graph_json() == first.get_graph_json()
    assert sorted(second.get_params()) == sorted(first.get_params())
    np.testing.assert_allclose(_run(second, x), _reference(x, params), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(_run(second, x), _run(first, x))
    # the fused module is still there, made again when asked for
    assert "nn.contrib_conv2d_NCHWc(" in second.ir_mod.astext()
    assert list(tmp_cache_dir.glob("front_*.params"))


@pytest.mark.parametrize("change", ["param value", "graph attribute", "opt_level",
                                    "disabled pass", "tuned config"])
def test_what_changes_the_result_misses(tmp_cache_dir, rng, change):
    mod, params = _net(), _params(rng)
    x = rng.standard_normal((1, 3, 9, 7)).astype("float32")
    _build(mod, params)
    hits = build_cache.stats["hits"]
    kwargs = {}
    if change == "param value":
        params = dict(params, b=params["b"] + 1)
    elif change == "graph attribute":  # padding 1 -> 0 is another network
        xv = relay.var("x", shape=(1, 3, 9, 7))
        wv, bv = relay.var("w", shape=(5, 3, 3, 3)), relay.var("b", shape=(5,))
        y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(xv, wv, padding=(0, 0)), bv))
        pool = relay.nn.max_pool2d(y, (2, 2), (2, 2))
        mod = tvm.IRModule.from_expr(relay.Function([xv, wv, bv], pool))
    elif change == "opt_level":
        kwargs["opt_level"] = 2
    elif change == "disabled pass":
        kwargs["disabled_pass"] = ["AlterOpLayout"]
    if change == "tuned config":
        tasks = autotvm.task.extract_from_program(mod["main"], target="llvm", params=params,
                                                  ops=(relay.op.get("nn.conv2d"),))
        task = tasks[0]
        cfg = task.config_space.get(len(task.config_space) - 1)
        inp = autotvm.MeasureInput(task.target, task, cfg)
        res = autotvm.MeasureResult([1e-3], 0, 0.1, 0.0)
        with autotvm.apply_history_best([(inp, res)]):
            factory = _build(mod, params)
    else:
        factory = _build(mod, params, **kwargs)
    assert build_cache.stats["hits"] == hits
    out = _run(factory, x)
    if change == "graph attribute":
        assert out.shape == (1, 5, 3, 2)
    else:
        np.testing.assert_allclose(out, _reference(x, params), rtol=1e-4, atol=1e-4)


def test_a_hit_gives_the_fallback_warnings_again(tmp_cache_dir, rng, monkeypatch, caplog):
    mod, params = _net(c=2, h=13, w=11, oc=7), _params(rng, c=2, oc=7)
    hits = build_cache.stats["hits"]
    warned, memory = [], []
    for _ in range(2):  # the build, then a hit in a "new process" (a fresh fallback context)
        monkeypatch.setattr(DispatchContext, "current", FallbackContext())
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="autotvm"):
            _build(mod, params)
        warned.append([r.getMessage() for r in caplog.records
                       if "Cannot find config" in r.getMessage()])
        cfgs = DispatchContext.current.memory  # the packed workload shares the plain one's
        memory.append((list(cfgs), len({id(c) for c in cfgs.values()})))
    assert build_cache.stats["hits"] == hits + 1
    # the same warnings (the conv's workload, not the packed one AlterOpLayout configures)
    assert warned[1] == warned[0] and len(warned[0]) == 1 and "conv2d_NCHWc.x86" in warned[0][0]
    assert memory[1] == memory[0] and len(memory[0][0]) == 2 and memory[0][1] == 1


def test_not_cached_with_instruments_or_user_strategies(tmp_cache_dir, rng, monkeypatch):
    mod, params = _net(), _params(rng)
    inst = tvm.ir.instrument.PassTimingInstrument()
    with tvm.transform.PassContext(opt_level=3, instruments=[inst]):
        assert build_cache.network_key(mod["main"], params, tvm.target.Target("llvm")) is None
    with tvm.transform.PassContext(opt_level=3):
        assert build_cache.network_key(mod["main"], params, tvm.target.Target("llvm"))
        monkeypatch.setattr(relay.op.registry, "_generation", relay.op.registry.generation() + 1)
        assert build_cache.network_key(mod["main"], params, tvm.target.Target("llvm")) is None


def test_a_new_process_builds_from_the_cache(tmp_cache_dir, rng, tmp_path):
    params = _params(rng)
    script = tmp_path / "build.py"
    script.write_text(
        "import numpy as np, tvmlite as tvm\n"
        "from tvmlite import relay\n"
        "from tvmlite.relay import build_cache\n"
        "import sys\n"
        "sys.path.insert(0, %r)\n"
        "from test_relay_build_cache import _net\n"
        "p = dict(np.load(%r))\n"
        "with tvm.transform.PassContext(opt_level=3):\n"
        "    relay.build(_net(), target='llvm', params=p)\n"
        "print(build_cache.stats['hits'])\n" % (str(Path(__file__).parent),
                                                 str(tmp_path / "p.npz")))
    np.savez(tmp_path / "p.npz", **params)
    env = dict(os.environ, TVMLITE_CACHE_DIR=str(tmp_cache_dir),
               PYTHONPATH=str(Path(tvm.__file__).parents[1]))
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    assert [r.stdout.strip() for r in runs] == ["0", "1"], runs[1].stderr[-2000:]


def test_constant_only_functions_are_not_cached(tmp_cache_dir):
    # FoldConstant builds one of these per network: caching it would store the weights again
    func = relay.Function([], relay.add(relay.const(np.ones(3, "float32")), relay.const(2.0)))
    with tvm.transform.PassContext(opt_level=3):
        assert build_cache.network_key(func, {}, tvm.target.Target("llvm")) is None
        factory = relay.build(tvm.IRModule.from_expr(func), "llvm")
    assert not list(tmp_cache_dir.glob("front_*.params"))
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run()
    np.testing.assert_array_equal(gm.get_output(0).numpy(), np.full(3, 3.0, "float32"))
