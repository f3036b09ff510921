"""The RPC tracker on loopback: servers register, clients request by key and queue fairly."""
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import rpc

HOST = "127.0.0.1"


def _wait(cond, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return False


def _free(tracker, key):
    return rpc.connect_tracker(HOST, tracker.port).summary()["queue"].get(key, [0, 0, 0])[1]


@pytest.fixture
def tracker():
    t = rpc.Tracker(HOST, port=0, assign_timeout=1.0, silent=True)
    yield t
    t.terminate()


def test_request_gets_a_registered_server(tracker):
    servers = [rpc.Server(HOST, port=0, key="cpu-a", tracker_addr=(HOST, tracker.port),
                          silent=True) for _ in range(2)]
    try:
        assert _wait(lambda: _free(tracker, "cpu-a") == 2)
        client = rpc.connect_tracker(HOST, tracker.port)
        text = client.text_summary()
        assert "cpu-a\t2\t2\t0" in text and f"{HOST}:{servers[0].port}" in text
        s1 = client.request("cpu-a", session_timeout=20)
        s2 = client.request("cpu-a")
        assert _free(tracker, "cpu-a") == 0
        x = np.arange(11, dtype="float32")
        for s in (s1, s2):
            assert np.array_equal(tvm.nd.array(x, s.cpu()).numpy(), x)
        # a third request waits until a session ends
        got = []
        t = threading.Thread(target=lambda: got.append(client.request("cpu-a", timeout=20)))
        t.start()
        time.sleep(0.3)
        assert not got
        s1.close()
        t.join(20)
        assert got and got[0].listdir() == []
        for s in (s2, got[0]):
            s.close()
        assert _wait(lambda: _free(tracker, "cpu-a") == 2)
    finally:
        for s in servers:
            s.terminate()
    assert _wait(lambda: "cpu-a" not in rpc.connect_tracker(HOST, tracker.port)
                 .summary()["queue"] or _free(tracker, "cpu-a") == 0)


def test_match_key_is_required_and_unclaimed_servers_return(tracker):
    with rpc.Server(HOST, port=0, key="k", tracker_addr=(HOST, tracker.port),
                    silent=True) as srv:
        assert _wait(lambda: _free(tracker, "k") == 1)
        # a direct connection without the tracker's match key is refused
        with pytest.raises(rpc.RPCError, match="does not match"):
            rpc.connect(HOST, srv.port, key="k")
        # a match key handed out and never used goes back after assign_timeout
        host, port, match = rpc.connect_tracker(HOST, tracker.port)._ask(["request", "k", 1],
                                                                        10)
        assert (host, port) == (HOST, srv.port) and _free(tracker, "k") == 0
        assert _wait(lambda: _free(tracker, "k") == 1, 5)
        rpc.connect(HOST, srv.port, key=match).close()  # still valid: the server never gave it
        assert _wait(lambda: _free(tracker, "k") == 1)


def test_priority_then_first_come(tracker):
    with rpc.Server(HOST, port=0, key="q", tracker_addr=(HOST, tracker.port),
                    silent=True):
        assert _wait(lambda: _free(tracker, "q") == 1)
        client = rpc.connect_tracker(HOST, tracker.port)
        holder = client.request("q")
        order = []

        def want(tag, prio):
            s = client.request("q", priority=prio, timeout=30)
            order.append(tag)
            s.close()

        def pending():
            return rpc.connect_tracker(HOST, tracker.port).summary()["queue"]["q"][2]

        threads = []
        for n, (tag, prio) in enumerate([("low1", 1), ("low2", 1), ("high", 5)]):
            threads.append(threading.Thread(target=want, args=(tag, prio)))
            threads[-1].start()
            assert _wait(lambda n=n: pending() == n + 1)  # queued in this order
        holder.close()
        for t in threads:
            t.join(30)
        assert order == ["high", "low1", "low2"]


def test_tracker_and_query_command_lines():
    env = dict(os.environ)
    tr = subprocess.Popen([sys.executable, "-m", "tvmlite.exec.rpc_tracker", "--port", "0",
                           "--silent"], stdout=subprocess.PIPE, text=True, env=env)
    procs = [tr]
    try:
        port = int(tr.stdout.readline().rsplit(":", 1)[1])
        srv = subprocess.Popen([sys.executable, "-m", "tvmlite.exec.rpc_server", "--port", "0",
                                "--key", "cli", "--tracker", f"{HOST}:{port}", "--silent"],
                               stdout=subprocess.PIPE, text=True, env=env)
        procs.append(srv)
        srv.stdout.readline()
        tracker = rpc.connect_tracker(HOST, port)
        assert _wait(lambda: "cli" in tracker.summary()["queue"])
        q = subprocess.run([sys.executable, "-m", "tvmlite.exec.query_rpc_tracker", "--port",
                            str(port)], capture_output=True, text=True, timeout=60, env=env)
        assert q.returncode == 0 and "cli\t1\t1\t0" in q.stdout, q.stdout + q.stderr
        with tracker.request("cli", session_timeout=30) as remote:
            x = np.random.default_rng(3).standard_normal((3, 7)).astype("float64")
            np.testing.assert_array_equal(tvm.nd.array(x, remote.cpu()).numpy(), x)
    finally:
        for p in reversed(procs):
            p.terminate()
            assert p.wait(20) == 0
    q = subprocess.run([sys.executable, "-m", "tvmlite.exec.query_rpc_tracker", "--port",
                        str(port)], capture_output=True, text=True, timeout=60, env=env)
    assert q.returncode == 1 and "cannot connect" in q.stderr
