"""AutoTVM records (classic JSON lines) and dispatch contexts."""
import json
import time

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm, te
from tvmlite.autotvm import MeasureInput, MeasureResult, record
from tvmlite.autotvm.dispatch import DispatchContext, FallbackContext


@autotvm.template("test_record/scale")
def scale(n):
    cfg = autotvm.get_config()
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    cfg.define_split("tile", B.op.axis[0], num_outputs=2)
    cfg.define_knob("vec", [False, True])
    xo, xi = cfg["tile"].apply(s, B, B.op.axis[0])
    if cfg["vec"].val:
        s[B].vectorize(xi)
    return s, [A, B]


def _task(n=64):
    return autotvm.task.create("test_record/scale", args=(n,), target="llvm")


def _pair(task, index, cost, error_no=0):
    inp = MeasureInput(task.target, task, task.config_space.get(index))
    costs = (cost,) if error_no == 0 else ("it failed",)
    return inp, MeasureResult(costs, error_no, 0.5, time.time())


def test_encode_is_classic_json_and_round_trips():
    task = _task()
    inp, res = _pair(task, 9, 1.5e-6)
    line = record.encode(inp, res)
    d = json.loads(line)
    assert d["input"] == ["llvm", "test_record/scale", [64], {}]
    assert d["config"]["index"] == 9
    tile = task.config_space.get(9)["tile"].size[-1]
    assert d["config"]["entity"] == [["tile", "sp", [-1, tile]], ["vec", "ot", True]]
    assert d["result"][:2] == [[1.5e-6], 0]
    assert d["version"] == 0.2 and "tvm_version" in d
    inp2, res2 = record.decode(line)
    assert inp2.task.name == task.name and inp2.task.args == (64,)
    assert inp2.task.workload == task.workload
    assert inp2.config.index == 9
    assert inp2.config["tile"] == inp.config["tile"] and inp2.config["vec"].val is True
    assert res2.costs == (1.5e-6,) and res2.error_no == 0
    assert record.encode(inp2, res2) == line
    # a failed trial is written with the classic 1e9 cost
    _, bad = _pair(task, 3, 0, error_no=4)
    assert json.loads(record.encode(inp, bad))["result"][:2] == [[1e9], 4]


def test_decode_rejects_garbage(tmp_path):
    with pytest.raises(record.RecordError):
        record.decode("{not json")
    assert record.decode("   \n") is None
    p = tmp_path / "bad.log"
    p.write_text('{"input": 3}\n')
    with pytest.raises(record.RecordError, match="bad.log:1"):
        list(record.load_from_file(str(p)))
    with pytest.raises(record.RecordError, match="does not exist"):
        list(record.load_from_file(str(tmp_path / "missing.log")))


def _build_and_check(n=64):
    with tvm.target.Target("llvm"):
        s, args = scale(n)
        f = tvm.build(s, args, "llvm")
    a = np.random.rand(n).astype("float32")
    b = tvm.nd.array(np.zeros(n, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2, rtol=1e-6)
    return s


def test_apply_history_best_takes_best_valid_record(tmp_path):
    task = _task()
    log = tmp_path / "scale.log"
    # the fastest record failed; the best valid one is index 5
    recs = [_pair(task, 2, 3e-6), _pair(task, 5, 1e-6), _pair(task, 7, 1e-9, error_no=4),
            _pair(task, 8, 2e-6)]
    record.save_to_file(str(log), recs)
    with autotvm.apply_history_best(str(log)) as ctx:
        assert DispatchContext.current is ctx
        with tvm.target.Target("llvm"):
            cfg = ctx.query(tvm.target.Target("llvm"), task.workload)
            assert cfg.index == 5
        _build_and_check()
    assert not isinstance(DispatchContext.current, autotvm.ApplyHistoryBest)
    # records can be given as (input, result) pairs too
    with autotvm.apply_history_best(recs) as ctx:
        assert ctx.query(tvm.target.Target("llvm"), task.workload).index == 5
    # or as an open log file, alone or in a list (classic accepts file-like objects)
    with open(log) as fh:
        assert autotvm.apply_history_best(fh).query(
            tvm.target.Target("llvm"), task.workload).index == 5
    with open(log) as fh:
        assert autotvm.apply_history_best([fh]).query(
            tvm.target.Target("llvm"), task.workload).index == 5
    # pick_best keeps one line per workload
    best = tmp_path / "best.log"
    record.pick_best(str(log), str(best))
    lines = list(record.load_from_file(str(best)))
    assert len(lines) == 1 and lines[0][0].config.index == 5


def test_history_without_the_workload_falls_back_with_warning(tmp_path, caplog):
    task = _task(64)
    log = tmp_path / "scale.log"
    record.save_to_file(str(log), [_pair(task, 5, 1e-6)])
    with autotvm.apply_history_best(str(log)):
        with tvm.target.Target("llvm"):
            scale(48)  # another workload: no record
    assert any("Cannot find config for target=llvm, workload=('test_record/scale', 48)"
               in r.getMessage() for r in caplog.records)


def test_nested_contexts_and_apply_config():
    task = _task()
    cfg = task.config_space.get(11)
    with autotvm.ApplyConfig(cfg) as ctx:
        with tvm.target.Target("llvm"):
            s, args = scale(64)  # any workload gets the config
    assert ctx.workload == task.workload
    text = str(tvm.lower(s, args))
    inner = cfg["tile"].size[-1]
    assert cfg["vec"].val and f"for i_outer in range({64 // inner}):" in text
    assert isinstance(DispatchContext.current, FallbackContext)
    # the innermost context that knows the workload answers
    best = autotvm.ApplyHistoryBest([_pair(task, 3, 1e-6)])
    with best:
        with autotvm.ApplyHistoryBest([]):
            assert DispatchContext.current.query(task.target, task.workload).index == 3


def test_a_log_written_by_classic_tvm_loads_and_applies(tmp_path, caplog):
    def line(index, tile, vec, cost):
        return json.dumps({
            "input": ["llvm -keys=cpu -link-params=0 -mcpu=core-avx2", "test_record/scale",
                      [64], {}],
            "config": {"index": index, "code_hash": None,
                       "entity": [["tile", "sp", [-1, tile]], ["vec", "ot", vec]]},
            "result": [[cost], 0, 0.3, 1600000000.5], "version": 0.2,
            "tvm_version": "0.8.dev0"})

    p = tmp_path / "classic.log"
    p.write_text("# tuned with classic TVM\n"
                 + '{"i": ["llvm", "x", [], {}, [], {}], "r": [[1.0], 0, 0, 0], "v": 0.1}\n'
                 + line(3, 8, True, 2e-6) + "\n" + line(1, 2, False, 9e-6) + "\n")
    recs = list(record.load_from_file(str(p)))
    assert len(recs) == 2
    inp, res = recs[0]
    assert str(inp.target) == "llvm -keys=cpu -link-params=0 -mcpu=core-avx2"
    assert inp.task.workload == ("test_record/scale", 64)
    assert inp.config["tile"].size == [-1, 8] and res.costs == (2e-6,)
    assert "version 0.1 is no longer supported" in caplog.text
    ctx = autotvm.apply_history_best(str(p))
    cfg = ctx.query(tvm.target.Target("llvm"), ("test_record/scale", 64))
    assert cfg["tile"].size == [-1, 8] and cfg["vec"].val is True
    with ctx:
        _build_and_check(64)


def test_pickle_protocol_round_trips_and_reads_plain_data_only():
    import base64
    import pickle

    task = _task()
    inp, res = _pair(task, 6, 2.5e-6)
    row = record.encode(inp, res, protocol="pickle")
    assert "\n" not in row
    inp2, res2 = record.decode(row, protocol="pickle")
    assert inp2.config.index == 6 and inp2.task.workload == task.workload
    assert res2.costs == res.costs and res2.timestamp == res.timestamp
    assert record.encode(inp2, res2) == record.encode(inp, res)
    evil = base64.b64encode(pickle.dumps(np.float32(1))).decode()
    with pytest.raises(record.RecordError, match="plain data"):
        record.decode(evil, protocol="pickle")
    with pytest.raises(record.RecordError, match="protocol"):
        record.encode(inp, res, protocol="xml")


def test_apply_history_best_takes_nested_iterables(tmp_path):
    task = _task()
    one, two = tmp_path / "one.log", tmp_path / "two.log"
    batch1 = [_pair(task, 2, 3e-6), _pair(task, 4, 2e-6)]
    batch2 = [_pair(task, 5, 1e-6), _pair(task, 8, 4e-6)]
    record.save_to_file(str(one), batch1)
    record.save_to_file(str(two), batch2)
    llvm = tvm.target.Target("llvm")
    for recs in ([one, two], zip([one, two]), zip([iter(batch1), iter(batch2)])):
        ctx = autotvm.apply_history_best(recs)
        assert ctx.query(llvm, task.workload).index == 5
    with autotvm.apply_history_best(zip([one, two])):
        _build_and_check()
