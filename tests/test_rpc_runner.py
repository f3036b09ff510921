"""``autotvm.RPCRunner`` over a loopback tracker: trials spread over the servers of a key, a
wrong candidate is caught, and a device that dies costs only its trial."""
import time

import numpy as np
import pytest

from tvmlite import autotvm, rpc, te
from tvmlite.autotvm import MeasureErrorNo
from tvmlite.rpc import runner as rpc_runner

HOST = "127.0.0.1"


@autotvm.template("test_rpc_runner/scaled_add")
def scaled_add(n):
    cfg = autotvm.get_config()
    cfg.define_split("tile", n, num_outputs=2)
    cfg.define_knob("wrong", [0, 1])
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    bias = 2.0 if cfg["wrong"].val else 0.0
    C = te.compute((n,), lambda i: A[i] * 3.0 + B[i] + bias, name="C")
    s = te.create_schedule(C.op)
    cfg["tile"].apply(s, C, C.op.axis[0])
    return s, [A, B, C]


@pytest.fixture
def pool():
    tracker = rpc.Tracker(HOST, port=0, silent=True)
    servers = [rpc.Server(HOST, port=0, key="loop", tracker_addr=(HOST, tracker.port),
                          silent=True) for _ in range(2)]
    deadline = time.time() + 10
    while rpc.connect_tracker(HOST, tracker.port).summary()["queue"].get(
            "loop", [0, 0])[1] < 2 and time.time() < deadline:
        time.sleep(0.02)
    yield tracker, servers
    for s in servers:
        s.terminate()
    tracker.terminate()


def _tune(tracker, n_trial, **runner_kwargs):
    task = autotvm.task.create("test_rpc_runner/scaled_add", args=(301,), target="llvm")
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(n_parallel=2),
        runner=autotvm.RPCRunner("loop", HOST, tracker.port, number=3, repeat=2, timeout=20,
                                 **runner_kwargs))
    got = []
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=n_trial, measure_option=option,
               callbacks=[lambda t, i, r: got.extend(zip(i, r))])
    return task, got


def test_rpc_runner_measures_over_the_tracker(pool):
    tracker, servers = pool
    task, got = _tune(tracker, 8, check_correctness=True)
    assert len(got) == 8
    for inp, res in got:
        if inp.config["wrong"].val:
            assert res.error_no == MeasureErrorNo.WRONG_ANSWER, res
        else:
            assert res.error_no == MeasureErrorNo.NO_ERROR, res
            assert len(res.costs) == 2 and all(0 < c < 0.01 for c in res.costs)
    assert {r.error_no for _, r in got} == {0, int(MeasureErrorNo.WRONG_ANSWER)}
    # both servers are free again afterwards
    deadline = time.time() + 10
    while time.time() < deadline and rpc.connect_tracker(HOST, tracker.port).summary()[
            "queue"]["loop"][:2] != [2, 2]:
        time.sleep(0.02)
    assert rpc.connect_tracker(HOST, tracker.port).summary()["queue"]["loop"][:2] == [2, 2]


def test_a_device_dying_costs_only_its_trial(pool, monkeypatch):
    tracker, servers = pool
    real = rpc_runner.RPCRunner._measure
    calls = []

    def measure(self, sess, br, ref):
        calls.append(1)
        if len(calls) == 3:  # this trial's device dies in the middle of it
            port = sess._sock.getpeername()[1]
            victim = next(s for s in servers if s.port == port)
            victim.terminate()
            servers.remove(victim)
            time.sleep(0.1)
        return real(self, sess, br, ref)

    monkeypatch.setattr(rpc_runner.RPCRunner, "_measure", measure)
    _, got = _tune(tracker, 8)
    assert len(got) == 8
    errors = [r for _, r in got if r.error_no != 0]
    assert len(errors) == 1, got  # the trial on the dead device, no other
    assert all(r.error_no == MeasureErrorNo.RUNTIME_DEVICE for r in errors)
    ok = [r for _, r in got if r.error_no == 0]
    assert len(ok) == 7 and all(np.isfinite(r.costs).all() for r in ok)


def test_rpc_runner_argument_checks():
    with pytest.raises(ValueError, match="number and repeat"):
        autotvm.RPCRunner("k", HOST, 1, number=0)
    with pytest.raises(ValueError, match="cache_flush"):
        autotvm.RPCRunner("k", HOST, 1, enable_cpu_cache_flush=True)


@autotvm.template("test_rpc_runner/modes")
def modes(n):
    cfg = autotvm.get_config()
    cfg.define_knob("mode", ["ok", "spin", "segfault", "ok2"])
    mode = cfg["mode"].val
    A = te.placeholder((n,), name="A")
    if mode == "spin":
        k = te.reduce_axis((0, 1 << 30), name="k")
        B = te.compute((n,), lambda i: te.sum(A[i] * 1.0001, axis=k), name="B")
    elif mode == "segfault":  # a data-dependent index beyond the static bounds check
        B = te.compute((n,), lambda i: A[i + (1 << 30) + (A[i] * 0.0).astype("int32")],
                       name="B")
    else:
        B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    return te.create_schedule(B.op), [A, B]


def test_isolated_servers_turn_hangs_and_crashes_into_trial_errors():
    with rpc.Tracker(HOST, port=0, silent=True) as tracker:
        servers = [rpc.Server(HOST, port=0, key="iso", tracker_addr=(HOST, tracker.port),
                              isolate=True, silent=True) for _ in range(2)]
        try:
            deadline = time.time() + 10
            while rpc.connect_tracker(HOST, tracker.port).summary()["queue"].get(
                    "iso", [0, 0])[1] < 2 and time.time() < deadline:
                time.sleep(0.02)
            task = autotvm.task.create("test_rpc_runner/modes", args=(257,), target="llvm")
            option = autotvm.measure_option(
                builder=autotvm.LocalBuilder(n_parallel=2),
                runner=autotvm.RPCRunner("iso", HOST, tracker.port, number=2, repeat=1,
                                         timeout=6))
            got = {}
            autotvm.tuner.GridSearchTuner(task).tune(
                n_trial=4, measure_option=option,
                callbacks=[lambda t, i, r: got.update((x.config["mode"].val, y)
                                                      for x, y in zip(i, r))])
            assert {k: r.error_no for k, r in got.items()} == {
                "ok": 0, "ok2": 0, "spin": MeasureErrorNo.RUN_TIMEOUT,
                "segfault": MeasureErrorNo.RUNTIME_DEVICE}, got
            # both devices come back: the hung session's process was stopped
            deadline = time.time() + 15
            while rpc.connect_tracker(HOST, tracker.port).summary()["queue"]["iso"][1] < 2 \
                    and time.time() < deadline:
                time.sleep(0.05)
            assert rpc.connect_tracker(HOST, tracker.port).summary()["queue"]["iso"][1] == 2
        finally:
            for s in servers:
                s.terminate()


def test_classic_measure_paths_request_and_check_remote(pool, monkeypatch):
    tracker, _ = pool
    from tvmlite.autotvm.measure import measure_methods
    assert autotvm.measure.RPCRunner is measure_methods.RPCRunner is autotvm.RPCRunner
    sess = autotvm.measure.request_remote("loop", HOST, tracker.port, timeout=30)
    a = np.arange(5, dtype="float32")
    assert (sess.array(a, sess.cpu()).numpy() == a).all()
    sess.close()
    assert autotvm.measure.check_remote("llvm", "loop", HOST, tracker.port, timeout=10)
    assert not autotvm.measure.check_remote("llvm", "no-such-key", HOST, tracker.port,
                                            timeout=0.5)
    monkeypatch.setenv("TVM_TRACKER_HOST", HOST)
    monkeypatch.setenv("TVM_TRACKER_PORT", str(tracker.port))
    autotvm.measure.request_remote("loop").close()
    monkeypatch.delenv("TVM_TRACKER_HOST")
    with pytest.raises(Exception, match="TVM_TRACKER_HOST"):
        autotvm.measure.request_remote("loop")
