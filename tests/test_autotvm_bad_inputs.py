"""AutoTVM rejects bad arguments with messages naming them; unreadable log lines are
refused by ``load_from_file`` (naming file:line) and skipped with a warning where a tuning
run or ApplyHistoryBest reads a log."""
import json
import logging

import pytest

from tvmlite import autotvm, te
from tvmlite.autotvm import record

GOOD = json.dumps({
    "input": ["llvm -keys=cpu", "test_bad_inputs/add", [16], {}],
    "config": {"index": 0, "code_hash": None, "entity": [["tile", "sp", [-1, 4]]]},
    "result": [[0.001], 0, 0.5, 1700000000.0], "version": 0.2, "tvm_version": "0.8.0"})


@autotvm.template("test_bad_inputs/add")
def add(n):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    cfg.define_split("tile", B.op.axis[0], num_outputs=2)
    cfg["tile"].apply(s, B, B.op.axis[0])
    return s, [A, B]


def _mutated(path, value):
    d = json.loads(GOOD)
    node = d
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return json.dumps(d)


@pytest.mark.parametrize("path, value", [
    (("result", 1), "bad"), (("result", 1), -3), (("result", 1), 1.5),
    (("result", 0), ["x"]), (("result", 0), "fast"), (("result", 0), []),
    (("result", 0), [None]), (("result", 2), "slow"), (("result", 3), None),
    (("config", "index"), 1e400), (("config", "entity"), "x"), (("input",), [1, 2]),
    (("input", 0), 7), (("input", 1), None), (("result",), {}),
])
def test_decode_refuses_malformed_fields(path, value):
    with pytest.raises(record.RecordError, match="not an AutoTVM record"):
        record.decode(_mutated(path, value))


def test_good_record_decodes():
    inp, res = record.decode(GOOD)
    assert res.costs == (0.001,) and res.error_no == 0


def test_load_from_file_names_the_line_or_skips_it_with_a_warning(tmp_path, caplog):
    p = tmp_path / "tune.log"
    p.write_text(GOOD + "\n" + GOOD[:40] + "\n" + _mutated(("result", 1), "bad") + "\n"
                 + GOOD + "\n")
    with pytest.raises(record.RecordError, match="tune.log:2"):
        list(record.load_from_file(str(p)))
    with caplog.at_level(logging.WARNING, logger="autotvm"):
        recs = list(record.load_from_file(str(p), skip_invalid=True))
    assert len(recs) == 2
    assert "tune.log:2" in caplog.text and "tune.log:3" in caplog.text
    # ApplyHistoryBest reads a log cut short by a crash
    with caplog.at_level(logging.WARNING, logger="autotvm"):
        best = autotvm.apply_history_best(str(p))
    assert len(best.best_by_targetkey) == 1


@pytest.mark.parametrize("kwargs, exc, what", [
    ({"n_trial": "3"}, TypeError, "n_trial"), ({"n_trial": 2.5}, TypeError, "n_trial"),
    ({"n_trial": -1}, ValueError, "n_trial"), ({"n_trial": True}, TypeError, "n_trial"),
    ({"n_trial": 2, "early_stopping": "x"}, TypeError, "early_stopping"),
    ({"n_trial": 2, "measure_option": None}, TypeError, "measure_option"),
    ({"n_trial": 2, "callbacks": print}, TypeError, "callbacks"),
    ({"n_trial": 2, "callbacks": ["x"]}, TypeError, "callbacks"),
])
def test_tune_rejects_bad_arguments_naming_them(kwargs, exc, what):
    task = autotvm.task.create("test_bad_inputs/add", args=(16,), target="llvm")
    tuner = autotvm.tuner.RandomTuner(task)
    kwargs.setdefault("measure_option", autotvm.measure_option(
        builder=autotvm.LocalBuilder(n_parallel=1), runner=autotvm.LocalRunner(number=1)))
    with pytest.raises(exc, match=what):
        tuner.tune(**kwargs)


@pytest.mark.parametrize("ctor, kwargs, exc, what", [
    ("LocalRunner", {"number": "3"}, TypeError, "number"),
    ("LocalRunner", {"repeat": 0}, ValueError, "repeat"),
    ("LocalRunner", {"timeout": "10"}, TypeError, "timeout"),
    ("LocalRunner", {"timeout": -1}, ValueError, "timeout"),
    ("LocalRunner", {"min_repeat_ms": None}, TypeError, "min_repeat_ms"),
    ("LocalRunner", {"cooldown_interval": float("nan")}, ValueError, "cooldown_interval"),
    ("LocalBuilder", {"n_parallel": "2"}, TypeError, "n_parallel"),
    ("LocalBuilder", {"timeout": "x"}, TypeError, "timeout"),
])
def test_measure_options_reject_bad_arguments(ctor, kwargs, exc, what):
    with pytest.raises(exc, match=what):
        getattr(autotvm, ctor)(**kwargs)


def test_failed_tuning_run_keeps_the_log(tmp_path):
    """A tuning run that dies (bad argument, interrupted) leaves the existing log intact."""
    p = tmp_path / "keep.log"
    p.write_text(GOOD + "\n")
    task = autotvm.task.create("test_bad_inputs/add", args=(16,), target="llvm")
    tuner = autotvm.tuner.RandomTuner(task)
    with pytest.raises(TypeError):
        tuner.tune(n_trial="3", measure_option=autotvm.measure_option(),
                   callbacks=[autotvm.callback.log_to_file(str(p))])
    assert p.read_text() == GOOD + "\n"


def test_log_cut_short_by_a_crash_keeps_new_records_readable(tmp_path):
    p = tmp_path / "cut.log"
    p.write_text(GOOD + "\n" + GOOD[:50])          # the run before died mid-line
    inp, res = record.decode(GOOD)
    autotvm.callback.log_to_file(str(p))(None, [inp], [res])
    recs = list(record.load_from_file(str(p), skip_invalid=True))
    assert len(recs) == 2 and p.read_text().startswith(GOOD + "\n" + GOOD[:50] + "\n")


@pytest.mark.parametrize("tuner", ["RandomTuner", "GridSearchTuner", "GATuner", "XGBTuner"])
@pytest.mark.parametrize("task", [None, "fuzz/add", 3, {}])
def test_tuners_reject_what_is_not_a_task(tuner, task):
    with pytest.raises(TypeError, match="task must be an autotvm Task"):
        getattr(autotvm.tuner, tuner)(task)


def test_decode_of_a_non_string_names_it():
    with pytest.raises(TypeError, match="line of text"):
        record.decode(None)
