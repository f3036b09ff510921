"""AutoTVM tuners on a synthetic space (measured by a formula instead of a kernel), early
stopping, resumption from a log, and the xgboost requirement."""
import sys
import time

import pytest
from programs import conv1d_auto_tune  # noqa: F401  (registers seed 000's template)

from tvmlite import autotvm
from tvmlite.autotvm.measure import Builder, BuildResult, MeasureResult, Runner

DIMS = (8, 8, 4)
BEST = (5, 2, 1)


@autotvm.template("test_tuner/bowl")
def bowl():
    cfg = autotvm.get_config()
    cfg.define_knob("a", list(range(DIMS[0])))
    cfg.define_knob("b", list(range(DIMS[1])))
    cfg.define_knob("c", list(range(DIMS[2])))
    cfg.add_flop(1e6)
    return None, []


def _cost(cfg) -> float:
    a, b, c = cfg["a"].val, cfg["b"].val, cfg["c"].val
    return 1e-3 * (1 + (a - BEST[0]) ** 2 + 0.5 * (b - BEST[1]) ** 2 + 2 * (c - BEST[2]) ** 2)


class SynthBuilder(Builder):
    def build(self, measure_inputs):
        return [BuildResult(None, None, None, 0.0) for _ in measure_inputs]


class SynthRunner(Runner):
    def __init__(self):
        super().__init__(timeout=1)
        self.measured = []

    def run(self, measure_inputs, build_results):
        self.measured += [inp.config.index for inp in measure_inputs]
        return [MeasureResult((_cost(inp.config),), 0, 0.0, time.time())
                for inp in measure_inputs]


def _option(n_parallel=4):
    return autotvm.measure_option(builder=SynthBuilder(n_parallel=n_parallel),
                                  runner=SynthRunner())


def _task():
    task = autotvm.task.create("test_tuner/bowl", args=(), target="llvm")
    assert len(task.config_space) == 256
    return task


def _best_knobs(tuner):
    c = tuner.best_config
    return c["a"].val, c["b"].val, c["c"].val


def _make(name, task):
    if name == "random":
        return autotvm.tuner.RandomTuner(task, seed=0), 256
    if name == "grid":
        return autotvm.tuner.GridSearchTuner(task), 256
    if name == "ga":
        return autotvm.tuner.GATuner(task, pop_size=16, elite_num=2, seed=0), 120
    pytest.importorskip("xgboost", reason="XGBTuner needs xgboost (pip install xgboost-cpu)")
    return autotvm.tuner.XGBTuner(task, feature_type="knob", plan_size=16, seed=0), 64


@pytest.mark.parametrize("name", ["random", "grid", "ga", "xgb"])
def test_tuner_finds_the_optimum(name):
    task = _task()
    tuner, n_trial = _make(name, task)
    option = _option()
    tuner.tune(n_trial=n_trial, measure_option=option)
    measured = option["runner"].measured
    assert len(measured) == len(set(measured)) <= n_trial  # nothing measured twice
    assert _best_knobs(tuner) == BEST
    assert tuner.best_flops == pytest.approx(1e6 / 1e-3)


def test_grid_search_order_and_range():
    task = _task()
    tuner = autotvm.tuner.GridSearchTuner(task, range_idx=(10, 19))
    option = _option(n_parallel=3)
    tuner.tune(n_trial=100, measure_option=option)
    assert option["runner"].measured == list(range(10, 20))
    with pytest.raises(ValueError):
        autotvm.tuner.GridSearchTuner(task, range_idx=(0, 256))


def test_early_stopping():
    task = _task()
    tuner = autotvm.tuner.GridSearchTuner(task)
    option = _option(n_parallel=1)
    # grid order reaches a=5 at trial 5, (5, 0, 0); the next ones are worse, and as in
    # classic AutoTVM it stops once the trial count reaches best trial + early_stopping
    tuner.tune(n_trial=256, measure_option=option, early_stopping=3)
    assert option["runner"].measured == list(range(8))
    assert tuner.best_iter == 5


def test_resume_from_log_skips_measured_configs(tmp_path):
    task = _task()
    log = str(tmp_path / "bowl.log")
    opt1 = _option()
    t1 = autotvm.tuner.RandomTuner(task, seed=1)
    t1.tune(n_trial=20, measure_option=opt1, callbacks=[autotvm.callback.log_to_file(log)])
    opt2 = _option()
    t2 = autotvm.tuner.RandomTuner(task, seed=1)  # the same order: all would repeat
    t2.tune(n_trial=20, measure_option=opt2, callbacks=[autotvm.callback.log_to_file(log)])
    first, second = opt1["runner"].measured, opt2["runner"].measured
    assert len(second) == 20 and not set(first) & set(second)
    assert t2.stats["resumed"] == 20
    recs = list(autotvm.record.load_from_file(log))
    assert len(recs) == 40 and len({r[0].config.index for r in recs}) == 40
    # the resumed best counts: t2's best is at least as good as t1's
    assert t2.best_flops >= t1.best_flops


def test_progress_bar_prints_like_the_seed(capsys):
    task = _task()
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=8, measure_option=_option(),
               callbacks=[autotvm.callback.progress_bar(8)])
    out = capsys.readouterr().out
    last = out.split("\r")[-1]
    import re
    assert re.fullmatch(r" Current/Best: +\d+\.\d\d/ +\d+\.\d\d GFLOPS \| Progress: \(8/8\) \| "
                        r"\d+\.\d\d s Done\.\n", last), repr(last)
    # one line per batch of 4 (classic: " Done." ends the last line, which is not repeated)
    assert out.count("Progress: (8/8)") == 1 and out.count("\r") == 2
    assert f"/{tuner.best_flops / 1e9:7.2f} GFLOPS" in last


def test_progress_bar_best_counts_records_resumed_from_the_log(tmp_path, capsys):
    task = _task()
    log = str(tmp_path / "bowl.log")
    t1 = autotvm.tuner.GridSearchTuner(task, range_idx=(0, 63))
    t1.tune(n_trial=64, measure_option=_option(), callbacks=[autotvm.callback.log_to_file(log)])
    capsys.readouterr()
    t2 = autotvm.tuner.GridSearchTuner(task, range_idx=(128, 135))
    t2.tune(n_trial=8, measure_option=_option(),
            callbacks=[autotvm.callback.log_to_file(log), autotvm.callback.progress_bar(8)])
    last = capsys.readouterr().out.split("\r")[-1]
    assert t2.best_flops == t1.best_flops  # the grid's first quarter holds the better configs
    assert f"/{t1.best_flops / 1e9:7.2f} GFLOPS" in last


def test_xgb_tuner_names_the_package_when_xgboost_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "xgboost", None)
    with pytest.raises(autotvm.tuner.xgboost_tuner.TVMError, match="pip install xgboost-cpu"):
        autotvm.tuner.XGBTuner(_task())


@autotvm.template("test_tuner/big_bowl")
def big_bowl():
    cfg = autotvm.get_config()
    cfg.define_knob("a", list(range(16)))
    cfg.define_knob("b", list(range(16)))
    cfg.define_knob("c", list(range(8)))
    cfg.add_flop(1e6)
    return None, []


def test_xgb_simulated_annealing_on_a_larger_space():
    pytest.importorskip("xgboost", reason="XGBTuner needs xgboost (pip install xgboost-cpu)")
    from tvmlite.autotvm.tuner.xgboost_tuner import SimulatedAnnealingOptimizer

    task = autotvm.task.create("test_tuner/big_bowl", args=(), target="llvm")
    assert len(task.config_space) == 2048
    sa = SimulatedAnnealingOptimizer(task.config_space, n_iter=40, parallel_size=32,
                                     exhaustive_limit=0, seed=0)
    tuner = autotvm.tuner.XGBTuner(task, feature_type="knob", plan_size=16, optimizer=sa,
                                   seed=0)
    option = _option()
    tuner.tune(n_trial=120, measure_option=option)
    measured = option["runner"].measured
    assert len(measured) == len(set(measured)) == 120
    # a random search of 120 of 2048 configs rarely gets this close to the optimum
    assert tuner.best_flops >= 1e6 / (1e-3 * 2.5)
    assert tuner.stats["trains"] >= 10


def test_loop_nest_features_have_a_fixed_length_and_tell_configs_apart():
    import tvmlite as tvm
    from tvmlite.autotvm.feature import FEATURE_LEN, loop_nest_features

    task = autotvm.task.create("tutorial/conv1d_auto_tune", args=(4096, 128), target="llvm")
    feats = []
    for idx in (0, 1, 29, 83):
        with task.target:
            s, args = task.instantiate(task.config_space.get(idx))
        feats.append(loop_nest_features(tvm.lower(s, args)))
    assert all(len(f) == FEATURE_LEN for f in feats)
    assert len({tuple(f) for f in feats}) == 4


def test_debug_logging_prints_classic_trial_lines_instead_of_the_bar(caplog, capsys):
    import logging

    caplog.set_level(logging.DEBUG, logger="autotvm")
    task = _task()
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=4, measure_option=_option(),
               callbacks=[autotvm.callback.progress_bar(4)])
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("No: ")]
    assert len(lines) == 4
    import re
    assert re.fullmatch(r"No: 1\tGFLOPS: \d+\.\d\d/\d+\.\d\d\tresult: MeasureResult\(costs=.*"
                        r"\t\[\('a', 0\), \('b', 0\), \('c', 0\)\],None,0", lines[0]), lines[0]
    assert "Current/Best" not in capsys.readouterr().out


@autotvm.template("test_tuner/scale2d")
def scale2d(n):
    from tvmlite import te

    cfg = autotvm.get_config()
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    i, j = B.op.axis
    cfg.define_split("ti", i, num_outputs=2)
    cfg.define_split("tj", j, num_outputs=2)
    io, ii = cfg["ti"].apply(s, B, i)
    jo, ji = cfg["tj"].apply(s, B, j)
    s[B].reorder(io, jo, ii, ji)
    return s, [A, B]


def test_xgb_tuner_resumes_from_its_log_with_loop_nest_features(tmp_path):
    pytest.importorskip("xgboost", reason="XGBTuner needs xgboost (pip install xgboost-cpu)")
    task = autotvm.task.create("test_tuner/scale2d", args=(24,), target="llvm")
    log = str(tmp_path / "scale2d.log")
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(n_parallel=2),
                                    runner=autotvm.LocalRunner(number=1, repeat=1))
    t1 = autotvm.tuner.XGBTuner(task, seed=0)
    t1.tune(n_trial=12, measure_option=option, callbacks=[autotvm.callback.log_to_file(log)])
    # run again on the same log (a notebook cell run twice): the model learns the resumed
    # records, which needs loop-nest features from the build workers
    t2 = autotvm.tuner.XGBTuner(task, seed=0)
    t2.tune(n_trial=12, measure_option=option, callbacks=[autotvm.callback.log_to_file(log)])
    assert t2.stats["resumed"] == 12 and t2.stats["trains"] >= 1
    recs = list(autotvm.record.load_from_file(log))
    assert len(recs) == 24 and len({r[0].config.index for r in recs}) == 24
    # records loaded by hand before tune wait for the builder instead of failing
    t3 = autotvm.tuner.XGBTuner(task, seed=0)
    t3.load_history(autotvm.record.load_from_file(log))
    t3.tune(n_trial=4, measure_option=option)
    assert len(t3.visited) == 28


def _filtered_task():
    task = _task()
    task.config_space.multi_filter(filter=lambda e: (e["a"].val + e["b"].val) % 3 != 0)
    return task


@pytest.mark.parametrize("name", ["random", "grid", "ga"])
def test_tuners_measure_only_configs_a_multi_filter_keeps(name):
    task = _filtered_task()
    space = task.config_space
    ok = {i for i in range(256) if space.is_index_valid(i)}
    assert len(space) == len(ok) and space.range_length == 256
    tuner, _ = _make(name, task)
    option = _option()
    tuner.tune(n_trial=len(ok), measure_option=option)
    measured = option["runner"].measured
    assert len(measured) == len(set(measured)) and set(measured) <= ok
    assert set(measured) == ok or name == "ga"
    assert _best_knobs(tuner) == BEST  # the filter keeps the optimum (5 + 2 = 7)
    if name == "ga":
        assert tuner.visited <= ok


def test_index_tuners_walk_the_valid_indices_of_their_range():
    task = _filtered_task()
    space = task.config_space
    ok = [i for i in range(11, 30) if space.is_index_valid(i)]
    tuner = autotvm.tuner.GridSearchTuner(task, range_idx=(11, 29))
    assert (tuner.begin_idx, tuner.end_idx, tuner.range_length) == (11, 30, 19)
    assert tuner.visited_max == len(ok) and tuner.index == ok[0]
    option = _option(n_parallel=3)
    tuner.tune(n_trial=100, measure_option=option)
    assert option["runner"].measured == ok and not tuner.has_next()
    tuner = autotvm.tuner.RandomTuner(task, range_idx=(11, 29), seed=3)
    option = _option()
    tuner.tune(n_trial=100, measure_option=option)
    assert sorted(option["runner"].measured) == ok


def test_xgb_tuner_measures_the_fallback_config_first():
    # the untuned build's config is then among the records: the best is never worse than it,
    # and AlterOpLayout can weigh the untuned blocks against the tuned ones
    pytest.importorskip("xgboost", reason="XGBTuner needs xgboost (pip install xgboost-cpu)")
    from tvmlite import te, topi  # noqa: F401  (registers conv2d_NCHWc.x86)
    from tvmlite.autotvm.space import FallbackConfigEntity
    X, W = te.placeholder((1, 32, 14, 14)), te.placeholder((48, 32, 3, 3))
    args = (X, W, (1, 1), (1, 1, 1, 1), (1, 1), "NCHW", "NCHW", "float32")
    task = autotvm.task.create("conv2d_NCHWc.x86", args=args, target="llvm")

    class Flat(SynthRunner):
        def run(self, measure_inputs, build_results):
            self.measured += [inp.config for inp in measure_inputs]
            return [MeasureResult((1e-3,), 0, 0.0, time.time()) for _ in measure_inputs]

    runner = Flat()
    tuner = autotvm.tuner.XGBTuner(task, feature_type="knob", seed=0)
    tuner.tune(n_trial=3, measure_option=autotvm.measure_option(builder=SynthBuilder(),
                                                                runner=runner))
    fallback = FallbackConfigEntity()
    with task.target:
        task.instantiate(fallback)
    first = runner.measured[0]
    assert first.index != 0 and len(runner.measured) == 3
    for knob in ("tile_ic", "tile_oc", "tile_ow"):
        assert first[knob].size[1:] == fallback[knob].size[1:], knob
    assert first["unroll_kw"] == fallback["unroll_kw"]
