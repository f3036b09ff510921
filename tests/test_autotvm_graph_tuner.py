"""autotvm.graph_tuner (DPTuner / PBQPTuner) and autotvm.apply_graph_best: the choice of one
record per convolution over the whole graph, with logged kernel times chosen by hand so the
convolutions' fastest records disagree on their channel blocks; the network built with the
choice against the unoptimized build."""
import logging
import time

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm, relay
from tvmlite.autotvm.graph_tuner import DPTuner, PBQPTuner
from tvmlite.autotvm.measure import MeasureInput, MeasureResult
from tvmlite.contrib import graph_executor
from tvmlite.relay.expr import Call, Function, post_order

TARGET = "llvm"
RNG = np.random.default_rng(3)


def network():
    """conv(16->32) -> relu -> conv(32->32, 3x3) + conv(32->32, 1x1) -> relu (a diamond)."""
    x = relay.var("data", shape=(1, 16, 9, 11))
    w = [relay.var(f"w{i}", shape=s) for i, s in
         enumerate([(32, 16, 3, 3), (32, 32, 3, 3), (32, 32, 1, 1)])]
    y = relay.nn.relu(relay.nn.conv2d(x, w[0], padding=(1, 1)))
    out = relay.nn.relu(relay.nn.conv2d(y, w[1], padding=(1, 1)) + relay.nn.conv2d(y, w[2]))
    mod = tvm.IRModule.from_expr(relay.Function([x] + w, out))
    params = {f"w{i}": (RNG.standard_normal(v.type_annotation.shape) * 0.1).astype("float32")
              for i, v in enumerate(w)}
    return mod, params


def records(mod, params, us):
    """Records of each convolution task: ``us[task index][(ic_bn, oc_bn)]`` microseconds."""
    tasks = [t for t in autotvm.task.extract_from_program(
        mod["main"], target=TARGET, params=params, ops=(relay.op.get("nn.conv2d"),))
        if t.name == "conv2d_NCHWc.x86"]  # the direct convolutions' tasks
    out = []
    for t, want in zip(tasks, us, strict=True):
        found = {}
        for i in range(len(t.config_space)):
            cfg = t.config_space.get(i)
            key = (cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1])
            if key in want and key not in found:
                found[key] = cfg
        assert set(found) == set(want), (t, set(want) - set(found))
        out += [(MeasureInput(tvm.target.Target(TARGET), t, cfg),
                 MeasureResult((want[k] * 1e-6,), 0, 0.1, time.time()))
                for k, cfg in found.items()]
    return tasks, out


def chosen_blocks(recs):
    return [(inp.config["tile_ic"].size[-1], inp.config["tile_oc"].size[-1])
            for inp, _ in recs]


def run(mod, params, data, ctx=None, opt_level=3):
    with tvm.transform.PassContext(opt_level=opt_level):
        if ctx is None:
            lib = relay.build(mod, TARGET, params=params)
        else:
            with ctx:
                lib = relay.build(mod, TARGET, params=params)
    g = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    g.set_input("data", data)
    g.run()
    return g.get_output(0).numpy(), lib


def conv_layouts(ir_mod):
    """(data, out) layouts of the packed convolutions of a built module, in order."""
    out = []
    for n in post_order(ir_mod["main"].body):
        if isinstance(n, Call) and isinstance(n.op, Function):
            for m in post_order(n.op.body):
                if isinstance(m, Call) and getattr(m.op, "name", "") == "nn.contrib_conv2d_NCHWc":
                    out.append((m.attrs.data_layout, m.attrs.out_layout))
    return out


@pytest.mark.parametrize("tuner_class", [DPTuner, PBQPTuner])
def test_agreeing_blocks_beat_the_fastest_kernels(tmp_path, tuner_class):
    mod, params = network()
    # alone, conv0 writes blocks of 8, the others read blocks of 16 (0.2 us faster each);
    # agreeing on 8 saves a transform of 3,168 floats between them
    us = [{(16, 8): 10.0, (16, 16): 10.5},
          {(16, 16): 10.0, (8, 16): 10.2},
          {(16, 16): 5.0, (8, 16): 5.2}]
    _, recs = records(mod, params, us)
    log = tmp_path / "tune.log"
    log.write_text("".join(autotvm.record.encode(*r) + "\n" for r in recs))
    tuner = tuner_class(mod["main"], {"data": (1, 16, 9, 11)}, str(log),
                        [relay.op.get("nn.conv2d")], TARGET, log_file=str(tmp_path / "gt.log"))
    tuner.benchmark_layout_transform(infer_layout=True)  # the model: deterministic
    tuner.run()
    best = tuner.get_optimal_records()
    assert chosen_blocks(best) == [(16, 8), (8, 16), (8, 16)]
    opt = tmp_path / "graph_opt.log"
    tuner.write_opt_sch2record_file(str(opt))
    assert chosen_blocks(autotvm.record.load_from_file(str(opt))) == chosen_blocks(best)

    data = RNG.standard_normal((1, 16, 9, 11)).astype("float32")
    want, _ = run(mod, params, data, opt_level=0)
    got, lib = run(mod, params, data, autotvm.apply_graph_best(str(opt)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert conv_layouts(lib.ir_mod) == [("NCHW16c", "NCHW8c"), ("NCHW8c", "NCHW16c"),
                                         ("NCHW8c", "NCHW16c")]
    # the kernels' fastest records alone (apply_history_best weighs the same model: it
    # agrees here too, and its build computes the same)
    got, _ = run(mod, params, data, autotvm.apply_history_best(str(log)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_graph_best_gives_each_node_its_record(tmp_path):
    """Two nodes of one workload may get different records: the k-th convolution takes the
    k-th record (classic's counter)."""
    x = relay.var("data", shape=(1, 16, 8, 8))
    w1, w2 = relay.var("w1", shape=(16, 16, 1, 1)), relay.var("w2", shape=(16, 16, 1, 1))
    out = relay.nn.conv2d(relay.nn.relu(relay.nn.conv2d(x, w1)), w2)
    mod = tvm.IRModule.from_expr(relay.Function([x, w1, w2], out))
    params = {k: (RNG.standard_normal((16, 16, 1, 1)) * 0.3).astype("float32")
              for k in ("w1", "w2")}
    _, recs = records(mod, params, [{(4, 8): 3.0, (8, 4): 3.0}])
    by_blocks = dict(zip(chosen_blocks(recs), recs))
    opt = tmp_path / "opt.log"
    opt.write_text("".join(autotvm.record.encode(*by_blocks[b]) + "\n"
                           for b in [(4, 8), (8, 4)]))
    data = RNG.standard_normal((1, 16, 8, 8)).astype("float32")
    got, lib = run(mod, params, data, autotvm.apply_graph_best(str(opt)))
    assert conv_layouts(lib.ir_mod) == [("NCHW4c", "NCHW8c"), ("NCHW8c", "NCHW4c")]
    want, _ = run(mod, params, data, opt_level=0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_measured_layout_transforms(tmp_path, caplog):
    mod, params = network()
    us = [{(16, 8): 10.0, (16, 16): 10.5}, {(16, 16): 10.0, (8, 16): 10.2},
          {(16, 16): 5.0}]
    _, recs = records(mod, params, us)
    tuner = DPTuner(mod, {"data": (1, 16, 9, 11)}, recs, ["nn.conv2d"], TARGET,
                    log_file=str(tmp_path / "gt.log"))
    with caplog.at_level(logging.INFO, logger="autotvm"):
        tuner.benchmark_layout_transform(min_exec_num=5)
    assert "the others measured" in caplog.text
    assert "the others measured" in (tmp_path / "gt.log").read_text()
    measured = tuner._measured
    # every transform a choice could need: conv0's output (8 or 16) read in 16 or 8
    assert {(s, d) for (_, s, d) in measured} >= {(8, 16), (16, 8)}
    assert all(t > 0 for t in measured.values())
    tuner.run()
    assert len(tuner.get_optimal_records()) == 3


def test_bad_arguments(tmp_path):
    mod, params = network()
    conv = [relay.op.get("nn.conv2d")]
    with pytest.raises(tvm.TVMError, match="no input 'x'"):
        DPTuner(mod, {"x": (1, 16, 9, 11)}, [], conv, TARGET, log_file=None)
    with pytest.raises(tvm.TVMError, match=r"input 'data' has shape \(1, 16, 9, 11\)"):
        DPTuner(mod, {"data": (1, 16, 8, 8)}, [], conv, TARGET, log_file=None)
    with pytest.raises(tvm.TVMError, match="target_ops must name"):
        DPTuner(mod, {"data": (1, 16, 9, 11)}, [], [relay.op.get("nn.dense")], TARGET,
                log_file=None)
    with pytest.raises(tvm.TVMError, match="llvm or c"):
        DPTuner(mod, {"data": (1, 16, 9, 11)}, [], conv, "cuda", log_file=None)
    tuner = DPTuner(mod, {"data": (1, 16, 9, 11)}, [], conv, TARGET, log_file=None)
    with pytest.raises(tvm.TVMError, match="call run"):
        tuner.get_optimal_records()
    with pytest.raises(tvm.TVMError, match="use_rpc"):
        tuner.benchmark_layout_transform(use_rpc=True, device_key="k")
    tuner.run()  # no records: every convolution keeps its fallback, nothing to write
    assert tuner.get_optimal_records() == []


def test_layout_records_given_and_inferred(tmp_path):
    """``layout_records`` (``layout_transform`` task records) give the time of a transform
    they hold; with ``infer_layout`` the others take the records' mean time per element."""
    from tvmlite import te

    mod, params = network()
    us = [{(16, 8): 10.0, (16, 16): 10.5}, {(16, 16): 10.0, (8, 16): 10.2}, {(16, 16): 5.0}]
    _, recs = records(mod, params, us)
    target = tvm.target.Target(TARGET)

    def ltf(shape, src, dst, seconds):
        task = autotvm.task.create("layout_transform", [te.placeholder(shape), src, dst],
                                   target)
        return MeasureInput(target, task, None), MeasureResult((seconds,), 0, -1, -1)

    given = ltf((1, 4, 9, 11, 8), "NCHW8c", "NCHW16c", 7e-6)  # conv0's 8-block to 16
    other = ltf((1, 64, 16, 16, 8), "NCHW8c", "NCHW512c", 1.9e-5)
    tuner = DPTuner(mod, {"data": (1, 16, 9, 11)}, recs, ["nn.conv2d"], TARGET,
                    log_file=None)
    tuner.benchmark_layout_transform(layout_records=[given, other], infer_layout=True)
    perf = tuner._layout_transform_perf_records
    assert perf[given[0].task.workload][1].costs[0] == 7e-6
    per_element = (7e-6 + 1.9e-5) / (4 * 9 * 11 * 8 + 64 * 16 * 16 * 8)
    for wkl, (_, res) in perf.items():
        if wkl != given[0].task.workload:
            assert res.costs[0] == pytest.approx(np.prod(wkl[1][1]) * per_element)
    assert len(perf) > 1
    tuner.run()
    assert len(tuner.get_optimal_records()) == 3
