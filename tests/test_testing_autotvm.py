"""tvm.testing.autotvm helpers, autotvm.database and tir.schedule.testing."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm
from tvmlite.autotvm import database
from tvmlite.autotvm.record import measure_str_key
from tvmlite.script import tir as T
from tvmlite.testing.autotvm import DummyRunner, get_sample_records, get_sample_task
from tvmlite.tir.schedule.testing import verify_trace_roundtrip


def test_sample_task_builds_a_correct_matmul():
    task, target = get_sample_task(24)
    assert task.name == "testing/matmul" and len(task.config_space) > 1
    config = task.config_space.get(len(task.config_space) - 1)
    with target:
        s, args = task.instantiate(config)
    f = tvm.build(s, args, target)
    a, b = np.random.rand(24, 24).astype("float32"), np.random.rand(24, 24).astype("float32")
    c = tvm.nd.empty((24, 24), "float32")
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)


def test_dummy_runner_drives_a_tuner_without_measuring():
    task, _ = get_sample_task(16)
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(), runner=DummyRunner())
    tuner = autotvm.tuner.RandomTuner(task)
    tuner.tune(n_trial=4, measure_option=option)
    assert tuner.best_flops > 1


def test_sample_records_and_dummy_database():
    records = get_sample_records(5)
    assert [r.costs[0] for _, r in records] == [1, 2, 3, 4, 5]
    db = database.DummyDatabase()
    for inp, res in records:
        db.save(inp, res)
    assert db.load(records[0][0]) == records[0][1]
    assert len(db.filter(lambda inp, ress: any(r.costs[0] <= 2 for r in ress))) == 2
    inp, res = records[0]
    later = res._replace(timestamp=res.timestamp + 10)
    db.save(inp, later, extend=True)
    assert db.load(inp) == later and db.load(inp, get_all=True) == [res, later]
    db.flush()
    assert db.load(inp) is None
    assert measure_str_key(inp) != measure_str_key(records[1][0])
    assert measure_str_key(inp, include_config=False) == measure_str_key(
        records[1][0], include_config=False)
    with pytest.raises(tvm.TVMError, match="RedisDatabase"):
        database.RedisDatabase()


@T.prim_func
def _add_one(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (33, 17))
    B = T.match_buffer(b, (33, 17))
    for i, j in T.grid(33, 17):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + 1.0


def test_verify_trace_roundtrip():
    sch = tvm.tir.Schedule(_add_one)
    i, j = sch.get_loops(sch.get_block("B"))
    io, ii = sch.split(i, factors=[None, 4])
    sch.reorder(j, io)
    replayed = verify_trace_roundtrip(sch, _add_one)
    tvm.ir.assert_structural_equal(replayed.mod, sch.mod)


def test_verify_trace_roundtrip_catches_a_diverging_schedule():
    sch = tvm.tir.Schedule(_add_one)
    i, _ = sch.get_loops(sch.get_block("B"))
    sch.split(i, factors=[None, 4])
    sch.trace.insts.pop()  # the trace no longer says how sch.mod came about
    with pytest.raises(ValueError):
        verify_trace_roundtrip(sch, _add_one)
