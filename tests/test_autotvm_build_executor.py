"""``LocalBuilder(executor=...)``: candidates compiled through an executor (a Dask cluster or a
``concurrent.futures`` pool) measure exactly like locally built ones; a failing, hanging or
lost build costs that trial only."""
import concurrent.futures as cf

import numpy as np
import pytest

from tvmlite import autotvm, te
from tvmlite.autotvm import MeasureErrorNo
from tvmlite.error import TVMError


@autotvm.template("test_build_executor/axpy")
def axpy(n):
    cfg = autotvm.get_config()
    cfg.define_split("tile", n, num_outputs=2)
    cfg.define_knob("mode", [0, 1, 2])  # 1: the template raises, 2: the build hangs
    if cfg["mode"].val == 1:
        raise ValueError("mode 1 is not instantiable")
    if cfg["mode"].val == 2:
        import time
        time.sleep(60)
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] * 2.5 + B[i], name="C")
    s = te.create_schedule(C.op)
    cfg["tile"].apply(s, C, C.op.axis[0])
    return s, [A, B, C]


def _measure(executor, modes=(0,), timeout=10.0):
    task = autotvm.task.create("test_build_executor/axpy", args=(91,), target="llvm")
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(timeout=timeout, n_parallel=1, executor=executor),
        runner=autotvm.LocalRunner(number=2, repeat=1, check_correctness=True))
    batch = autotvm.create_measure_batch(task, option)
    inputs = [autotvm.MeasureInput(task.target, task, task.config_space.get(i))
              for i in range(len(task.config_space))
              if task.config_space.get(i)["mode"].val in modes]
    return inputs, batch(inputs)


def test_thread_pool_executor_builds_match_local_builds():
    local_in, local = _measure(None)
    with cf.ThreadPoolExecutor(2) as ex:
        ex_in, remote = _measure(ex)
    assert [i.config.index for i in local_in] == [i.config.index for i in ex_in]
    assert len(remote) == 4  # 91 = 7 * 13: four tilings
    for lo, re in zip(local, remote):
        assert lo.error_no == re.error_no == MeasureErrorNo.NO_ERROR, (lo, re)
        assert all(c > 0 for c in re.costs)


def test_failing_and_hanging_builds_cost_their_trial_only():
    with cf.ThreadPoolExecutor(2) as ex:
        inputs, res = _measure(ex, modes=(0, 1, 2), timeout=2.0)
    by_mode = {}
    for inp, r in zip(inputs, res):
        by_mode.setdefault(inp.config["mode"].val, []).append(r.error_no)
    assert set(by_mode[0]) == {MeasureErrorNo.NO_ERROR}
    assert set(by_mode[1]) == {MeasureErrorNo.INSTANTIATION_ERROR}
    assert set(by_mode[2]) == {MeasureErrorNo.BUILD_TIMEOUT}


class _BrokenExecutor:
    """Futures that fail like a Dask worker lost mid-build."""

    def submit(self, fn, *args, **kwargs):
        fut = cf.Future()
        fut.set_exception(ConnectionError("worker tcp://10.0.0.7:40000 lost"))
        return fut


def test_a_lost_executor_worker_is_an_error_result():
    inputs, res = _measure(_BrokenExecutor())
    assert len(res) == 4
    for r in res:
        assert r.error_no == MeasureErrorNo.UNKNOWN_ERROR
        assert "worker tcp://10.0.0.7:40000 lost" in r.costs[0]


def test_executor_argument_is_checked():
    with pytest.raises(TVMError, match="executor must be a dask.distributed.Client"):
        autotvm.LocalBuilder(executor=42)


def test_dask_local_cluster_tunes_and_finds_a_correct_best():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        task = autotvm.task.create("test_build_executor/axpy", args=(91,), target="llvm")
        option = autotvm.measure_option(
            builder=autotvm.LocalBuilder(timeout=2, executor=client),
            runner=autotvm.LocalRunner(number=2, repeat=1, check_correctness=True))
        got = []
        tuner = autotvm.tuner.GridSearchTuner(task)
        tuner.tune(n_trial=len(task.config_space), measure_option=option,
                   callbacks=[lambda t, i, r: got.extend(zip(i, r))])
    errors = {inp.config["mode"].val: r.error_no for inp, r in got if r.error_no}
    ok = [(inp, r) for inp, r in got if r.error_no == 0]
    assert len(ok) == 4 and all(inp.config["mode"].val == 0 for inp, _ in ok)
    assert set(errors) <= {1, 2}
    # the best config, applied as a user would, computes the right result
    best = min(ok, key=lambda p: np.mean(p[1].costs))[0].config
    with autotvm.ApplyConfig(best):
        s, args = axpy(91)
    import tvmlite
    f = tvmlite.build(s, args, "llvm")
    a, b = np.random.rand(91).astype("float32"), np.random.rand(91).astype("float32")
    c = tvmlite.nd.array(np.zeros(91, "float32"))
    f(tvmlite.nd.array(a), tvmlite.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a * 2.5 + b, rtol=1e-6)
