"""AutoTVM measurement: parallel builds in worker processes, native timing, and isolation of
candidates that raise, crash, hang or compute a wrong result."""
import os
import time

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm, te
from tvmlite.autotvm import MeasureErrorNo

MODES = ["ok", "raise", "crash_build", "hang_build", "segfault", "spin", "wrong", "ok2",
         "raise_error", "bad_c"]


@autotvm.template("test_measure/modes")
def modes(n):
    cfg = autotvm.get_config()
    cfg.define_knob("mode", MODES)
    mode = cfg["mode"].val
    A = te.placeholder((n,), name="A")
    if mode == "raise":
        raise ValueError("the template refuses this config")
    if mode == "raise_error":  # classic: an error noted on the config fails the candidate
        cfg.raise_error("too large factor for unrolling")
    if mode == "crash_build":
        os.abort()
    if mode == "hang_build":
        time.sleep(600)
    if mode == "segfault":
        # a data-dependent index (A holds small values): beyond the static bounds check
        B = te.compute((n,), lambda i: A[i + (1 << 30) + (A[i] * 0.0).astype("int32")],
                       name="B")
    elif mode == "spin":
        k = te.reduce_axis((0, 1 << 30), name="k")
        B = te.compute((n,), lambda i: te.sum(A[i] * 1.0001, axis=k), name="B")
    elif mode == "bad_c":  # lowers, but the C compiler cannot build it
        B = te.compute((n,), lambda i: tvm.tir.call_extern("float32", "no such fn(", A[i]),
                       name="B")
    elif mode == "wrong":
        B = te.compute((n,), lambda i: A[i] + 2.0, name="B")
    else:
        B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    if mode == "ok2":
        xo, xi = s[B].split(B.op.axis[0], factor=16)
        s[B].vectorize(xi)
    return s, [A, B]


def test_every_failure_gets_its_error_and_tuning_goes_on(tmp_path):
    task = autotvm.task.create("test_measure/modes", args=(1024,), target="llvm")
    assert len(task.config_space) == len(MODES)
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(timeout=4, n_parallel=2),
        runner=autotvm.LocalRunner(number=2, repeat=2, timeout=4, check_correctness=True))
    got = {}

    def collect(tuner, inputs, results):
        for inp, res in zip(inputs, results):
            got[inp.config["mode"].val] = res

    log = tmp_path / "modes.log"
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=len(MODES), measure_option=option,
               callbacks=[collect, autotvm.callback.log_to_file(str(log))])
    assert set(got) == set(MODES)
    err = {m: r.error_no for m, r in got.items()}
    assert err == {"ok": MeasureErrorNo.NO_ERROR, "ok2": MeasureErrorNo.NO_ERROR,
                   "raise": MeasureErrorNo.INSTANTIATION_ERROR,
                   "crash_build": MeasureErrorNo.COMPILE_HOST,
                   "hang_build": MeasureErrorNo.BUILD_TIMEOUT,
                   "segfault": MeasureErrorNo.RUNTIME_DEVICE,
                   "spin": MeasureErrorNo.RUN_TIMEOUT,
                   "wrong": MeasureErrorNo.WRONG_ANSWER,
                   "raise_error": MeasureErrorNo.INSTANTIATION_ERROR,
                   "bad_c": MeasureErrorNo.COMPILE_HOST}
    assert "too large factor for unrolling" in got["raise_error"].costs[0]
    assert "refuses this config" in got["raise"].costs[0]
    assert "SIGABRT" in got["crash_build"].costs[0]
    assert "SIGSEGV" in got["segfault"].costs[0]
    assert "timeout" in got["spin"].costs[0]
    assert "differs from the reference" in got["wrong"].costs[0]
    for m in ("ok", "ok2"):
        assert len(got[m].costs) == 2 and all(0 < c < 1e-3 for c in got[m].costs)
    # one record per trial, the failed ones with the classic 1e9 cost
    recs = list(autotvm.record.load_from_file(str(log)))
    assert len(recs) == len(MODES)
    assert all(r.costs == (1e9,) for _, r in recs if r.error_no != 0)
    assert tuner.best_config["mode"].val in ("ok", "ok2")
    # the best valid record is applied; the result is right
    with autotvm.apply_history_best(str(log)):
        with tvm.target.Target("llvm"):
            s, args = modes(1024)
    f = tvm.build(s, args, "llvm")
    a = np.random.rand(1024).astype("float32")
    b = tvm.nd.array(np.zeros(1024, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1, rtol=1e-6)


def test_measure_option_checks_its_arguments():
    with pytest.raises(TypeError):
        autotvm.measure_option(builder=3)
    with pytest.raises(ValueError):
        autotvm.LocalRunner(number=0)
    with pytest.raises(ValueError):
        autotvm.LocalBuilder(timeout=0)
    opt = autotvm.measure_option()
    assert isinstance(opt["builder"], autotvm.LocalBuilder)
    assert isinstance(opt["runner"], autotvm.LocalRunner)


def test_min_repeat_ms_and_cache_flush_are_honoured():
    task = autotvm.task.create("test_measure/modes", args=(4096,), target="llvm")
    ok = task.config_space.get(MODES.index("ok"))
    inp = autotvm.MeasureInput(task.target, task, ok)
    for flush in (False, True):
        runner = autotvm.LocalRunner(number=1, repeat=3, min_repeat_ms=20,
                                     enable_cpu_cache_flush=flush)
        mb = autotvm.create_measure_batch(task, autotvm.measure_option(
            builder=autotvm.LocalBuilder(n_parallel=1), runner=runner))
        t0 = time.perf_counter()
        (res,) = mb([inp])
        assert res.error_no == 0, res
        assert len(res.costs) == 3
        # three measurements of at least 20 ms each
        assert time.perf_counter() - t0 >= 0.06


def test_local_builder_accepts_the_classic_arguments():
    from tvmlite import autotvm

    b = autotvm.LocalBuilder(timeout=5, n_parallel=1, build_kwargs=None, build_func="default",
                             do_fork=True, runtime=None)
    assert b.timeout == 5
    with pytest.raises(ValueError, match="build_kwargs"):
        autotvm.LocalBuilder(build_kwargs={"binds": {}})
    with pytest.raises(ValueError, match="runtime"):
        autotvm.LocalBuilder(runtime=object())


def test_runner_hands_each_measurement_to_a_set_executor():
    from tvmlite.autotvm.executor import Executor, InlineExecutor

    class Counting(Executor):
        def __init__(self):
            self.kwargs = []
            self.inline = InlineExecutor()

        def submit(self, func, *args, **kwargs):
            self.kwargs.append(kwargs)
            return self.inline.submit(func, *args, **kwargs)

    task = autotvm.task.create("test_measure/modes", args=(37,), target="llvm")
    space = task.config_space
    runner = autotvm.LocalRunner(number=1, repeat=1, timeout=4, check_correctness=True)
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=4), runner=runner)
    runner.executor = Counting()
    runner.ref_input = [np.random.rand(37).astype("float32")]
    batch = autotvm.create_measure_batch(task, option)
    configs = [space.get(MODES.index(m)) for m in ("ok", "wrong", "raise")]
    results = batch([autotvm.MeasureInput(task.target, task, c) for c in configs])
    assert [r.error_no for r in results] == [0, MeasureErrorNo.WRONG_ANSWER,
                                             MeasureErrorNo.INSTANTIATION_ERROR]
    assert len(runner.executor.kwargs) == 3
    assert all(k["ref_input"] is runner.ref_input for k in runner.executor.kwargs)
    # without an executor to take them, given inputs are refused rather than ignored
    runner.executor = None
    with pytest.raises(tvm.TVMError, match="does not implement .*ref_input"):
        batch([autotvm.MeasureInput(task.target, task, configs[0])])


@autotvm.template("test_measure/compiler_hangs")
def compiler_hangs(n, pid_file):
    """A build that starts a long child process (as a C compiler on a huge kernel) and waits."""
    import subprocess
    import sys
    cfg = autotvm.get_config()
    cfg.define_knob("x", [0])
    if isinstance(cfg, autotvm.space.ConfigEntity):  # building a candidate, not defining
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(pid_file, "w") as f:
            f.write(str(child.pid))
        child.wait()
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    return te.create_schedule(B.op), [A, B]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


def test_a_build_timeout_kills_the_compiler_it_started(tmp_path):
    pid_file = tmp_path / "child.pid"
    task = autotvm.task.create("test_measure/compiler_hangs", args=(64, str(pid_file)),
                               target="llvm")
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=2, n_parallel=1),
                                    runner=autotvm.LocalRunner(number=1, repeat=1))
    got = []
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=1, measure_option=option,
               callbacks=[lambda t, i, r: got.extend(r)])
    assert got[0].error_no == MeasureErrorNo.BUILD_TIMEOUT
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), "the timed-out build's child process still runs"
