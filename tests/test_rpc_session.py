"""RPC sessions on loopback: book §1.4 (seed 001), files, remote arrays and functions, timing,
authentication, keys and LocalSession. Servers run in this process on 127.0.0.1, port 0."""
import logging
import os
import subprocess
import sys
import time

import d2ltvm
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import rpc, te
from tvmlite.rpc import server as rpc_server

HOST = "127.0.0.1"


@pytest.fixture
def server(tmp_path):
    srv = rpc.Server(HOST, port=0, work_dir=str(tmp_path / "sessions"), silent=True)
    os.makedirs(srv.work_dir)
    yield srv
    srv.terminate()


@pytest.fixture(scope="module")
def vector_add_tar(tmp_path_factory):
    """Book §1.4.2: vector addition built for the remote target and exported."""
    n = 100
    args = d2ltvm.vector_add(n)
    s = te.create_schedule(args[-1].op)
    mod = tvm.build(s, args, "llvm -target=x86_64-pc-linux-gnu")
    path = tmp_path_factory.mktemp("lib") / "vector-add.tar"
    mod.export_library(str(path))
    return str(path)


def test_book_1_4_vector_add_on_loopback(server, vector_add_tar):
    remote = rpc.connect(HOST, server.port)
    remote.upload(vector_add_tar)
    remote_mod = remote.load_module("vector-add.tar")
    ctx = remote.cpu()
    a, b, c = d2ltvm.get_abc(100, lambda x: tvm.nd.array(x, ctx=ctx))
    assert repr(c.device).startswith("remote[") and c.shape == (100,) and c.dtype == "float32"
    remote_mod(a, b, c)
    np.testing.assert_equal(a.asnumpy() + b.asnumpy(), c.asnumpy())
    an, bn, _ = d2ltvm.get_abc(100)
    np.testing.assert_array_equal(c.numpy(), an + bn)  # against numpy, not only itself
    remote.close()


def test_remote_arrays_functions_and_errors(server, vector_add_tar, rng):
    with rpc.connect(HOST, server.port) as remote:
        remote.upload(vector_add_tar, "va.tar")
        f = remote.load_module("va.tar")[tvm.runtime.module.ENTRY_NAME]
        dev = remote.device("cpu", 0)
        x = rng.standard_normal(100).astype("float32")
        y = rng.standard_normal(100).astype("float32")
        a, b = tvm.nd.array(x, dev), tvm.nd.array(y, dev)
        c = tvm.nd.empty((100,), "float32", dev)
        f(a, b, c)
        np.testing.assert_array_equal(c.numpy(), x + y)
        c[:] = np.zeros(100, "float32")  # copy into a remote array
        assert not c.numpy().any()
        f(a, b, c)
        np.testing.assert_array_equal(c.numpy(), x + y)
        # the remote module's checks come back as errors naming the cause
        short = tvm.nd.array(np.zeros(7, "float32"), dev)
        with pytest.raises(tvm.TVMError, match=r"shape"):
            f(a, b, short)
        with pytest.raises(tvm.TVMError, match="local NDArray"):
            f(a, b, tvm.nd.array(np.zeros(100, "float32")))
        with pytest.raises(tvm.TVMError, match="no function"):
            remote.load_module("va.tar").get_function("nope")
        with pytest.raises(tvm.TVMError, match="does not exist"):
            remote.load_module("missing.so")
        assert dev.exist
        # the session still works after errors
        f(a, b, c)
        np.testing.assert_array_equal(c.numpy(), x + y)


def test_remote_time_evaluator(server, vector_add_tar):
    with rpc.connect(HOST, server.port) as remote:
        remote.upload(vector_add_tar)
        mod = remote.load_module("vector-add.tar")
        dev = remote.cpu()
        a, b, c = d2ltvm.get_abc(100, lambda x: tvm.nd.array(x, dev))
        res = mod.time_evaluator(mod.entry_name, dev, number=20, repeat=3)(a, b, c)
        assert type(res).__name__ == "BenchmarkResult" and len(res.results) == 3
        assert all(0 < t < 0.1 for t in res.results)
        np.testing.assert_array_equal(c.numpy(), a.numpy() + b.numpy())


def test_upload_download_remove_and_session_cleanup(server, tmp_path):
    root = server.work_dir
    remote = rpc.connect(HOST, server.port)
    payload = os.urandom(5000)
    remote.upload(payload, "blob.bin")
    assert remote.listdir() == ["blob.bin"]
    assert bytes(remote.download("blob.bin")) == payload
    (sess_dir,) = os.listdir(root)
    assert os.listdir(os.path.join(root, sess_dir)) == ["blob.bin"]
    remote.remove("blob.bin")
    assert remote.listdir() == []
    with pytest.raises(tvm.TVMError, match="no file"):
        remote.download("blob.bin")
    remote.upload(payload, "again.bin")
    remote.close()
    for _ in range(200):  # the session's folder goes when the session ends
        if not os.listdir(root):
            break
        time.sleep(0.01)
    assert os.listdir(root) == []


@pytest.mark.parametrize("name", ["../evil.so", "/etc/passwd", "a/b.so", "..", ".hidden",
                                  "x\0y", "", "a\\b"])
def test_upload_names_stay_inside_the_session_folder(server, name, tmp_path):
    with rpc.connect(HOST, server.port) as remote:
        with pytest.raises(tvm.TVMError, match="not allowed|non-empty"):
            remote.upload(b"data", name)
        for op in (remote.download, remote.remove, remote.load_module):
            with pytest.raises(tvm.TVMError, match="not allowed|non-empty"):
                op(name)
        assert remote.listdir() == []
    assert not (tmp_path / "evil.so").exists()


def test_get_function_of_registered_globals(server):
    name = "test_rpc_session.add_scaled"
    tvm.register_func(name, lambda x, y, s: (x + y) * s, override=True)
    with rpc.connect(HOST, server.port) as remote:
        f = remote.get_function(name)
        assert f(2, 3, 1.5) == 7.5
        assert f("a", "b", 2) == "abab"
        with pytest.raises(tvm.TVMError, match="not registered|no global|cannot find|Cannot"):
            remote.get_function("test_rpc_session.does_not_exist")


def test_auth_key_hmac_challenge(tmp_path):
    with rpc.Server(HOST, port=0, auth_key="s3cret", silent=True) as srv:
        with pytest.raises(rpc.RPCError, match="requires an auth key"):
            rpc.connect(HOST, srv.port, auth_key=None)
        with pytest.raises(rpc.RPCError, match="refused|lost|closed"):
            rpc.connect(HOST, srv.port, auth_key="wrong")
        with rpc.connect(HOST, srv.port, auth_key="s3cret") as remote:
            remote.upload(b"ok", "f")
            assert remote.listdir() == ["f"]


def test_device_key_must_match(tmp_path):
    with rpc.Server(HOST, port=0, key="board", silent=True) as srv:
        with pytest.raises(rpc.RPCError, match="does not match"):
            rpc.connect(HOST, srv.port, key="other")
        rpc.connect(HOST, srv.port, key="board").close()
        rpc.connect(HOST, srv.port).close()


def test_connect_errors_name_the_address():
    with rpc.Server(HOST, port=0, silent=True) as srv:
        port = srv.port
    with pytest.raises(rpc.RPCError, match=f"127.0.0.1:{port}"):
        rpc.connect(HOST, port, timeout=5)


def test_non_loopback_bind_warns(monkeypatch, caplog):
    # bind loopback underneath: the warning is about the address asked for
    real = rpc_server.Server._bind
    monkeypatch.setattr(rpc_server.Server, "_bind",
                        staticmethod(lambda host, p, pe: real(HOST, 0, 0)))
    with caplog.at_level(logging.WARNING, logger="RPCServer"):
        srv = rpc_server.Server("0.0.0.0", port=0, silent=True)
        srv.terminate()
    assert any("anyone who can reach" in r.message for r in caplog.records)
    assert rpc_server.is_loopback("127.0.0.1") and not rpc_server.is_loopback("0.0.0.0")


def test_local_session(vector_add_tar):
    sess = rpc.LocalSession()
    sess.upload(vector_add_tar)
    mod = sess.load_module("vector-add.tar")
    dev = sess.cpu()
    a, b, c = d2ltvm.get_abc(100, lambda x: tvm.nd.array(x, dev))
    mod(a, b, c)
    np.testing.assert_array_equal(c.numpy(), a.numpy() + b.numpy())
    assert sess.listdir() == ["vector-add.tar"]
    with pytest.raises(tvm.TVMError, match="not allowed"):
        sess.upload(b"x", "../x")
    sess.remove("vector-add.tar")
    assert sess.listdir() == []
    sess.close()


def test_rpc_server_command_line_and_alias(vector_add_tar):
    """``python -m tvmlite tvm.exec.rpc_server`` style start, on a free loopback port."""
    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tvmlite", "-m", "tvm.exec.rpc_server", "--port", "0",
         "--silent"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert "listening on 127.0.0.1:" in line, proc.stderr.read() if proc.poll() else line
        port = int(line.rsplit(":", 1)[1])
        with rpc.connect(HOST, port) as remote:
            remote.upload(vector_add_tar)
            mod = remote.load_module("vector-add.tar")
            a, b, c = d2ltvm.get_abc(100, lambda x: tvm.nd.array(x, remote.cpu()))
            mod(a, b, c)
            np.testing.assert_array_equal(c.numpy(), a.numpy() + b.numpy())
    finally:
        proc.terminate()
        assert proc.wait(20) == 0


def test_isolated_session_survives_a_crashing_module(tmp_path, rng):
    n = 64
    A = te.placeholder((n,), name="A")
    # a data-dependent index far out of bounds (beyond the static bounds check): SIGSEGV
    B = te.compute((n,), lambda i: A[i + (1 << 30) + (A[i] * 0.0).astype("int32")], name="B")
    lib = tmp_path / "crash.so"
    tvm.build(te.create_schedule(B.op), [A, B]).export_library(str(lib))
    work = tmp_path / "sessions"
    work.mkdir()
    with rpc.Server(HOST, port=0, isolate=True, work_dir=str(work), silent=True) as srv:
        remote = rpc.connect(HOST, srv.port)
        remote.upload(str(lib))
        f = remote.load_module("crash.so")
        dev = remote.cpu()
        a, b = tvm.nd.array(np.zeros(n, "float32"), dev), tvm.nd.empty((n,), "float32", dev)
        with pytest.raises(rpc.RPCError, match="connection lost"):
            f(a, b)
        with pytest.raises(rpc.RPCError, match="closed"):
            remote.listdir()
        # the server goes on; the dead session's folder is gone
        with rpc.connect(HOST, srv.port) as again:
            x = rng.standard_normal(9).astype("float32")
            np.testing.assert_array_equal(tvm.nd.array(x, again.cpu()).numpy(), x)
        deadline = time.time() + 10
        while os.listdir(work) and time.time() < deadline:
            time.sleep(0.02)
        assert os.listdir(work) == []


def test_dropped_remote_objects_are_freed_on_the_server(server):
    with rpc.connect(HOST, server.port) as remote:
        dev = remote.cpu()
        keep = tvm.nd.array(np.arange(4, dtype="int32"), dev)
        for i in range(300):  # each temporary is dropped at once
            assert tvm.nd.array(np.full(3, i, dtype="int64"), dev).numpy()[0] == i
        (sess,) = server.sessions
        assert len(sess.objects) <= 1 + 64  # `keep` and at most one batch not yet freed
        np.testing.assert_array_equal(keep.numpy(), np.arange(4))  # replies still in step


def test_classic_cross_compilation_tutorial_local_path(tmp_path):
    """classic ``cross_compilation_and_rpc``, its ``local_demo`` path."""
    n = tvm.runtime.convert(1024)
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    func = tvm.build(s, [A, B], target="llvm", name="add_one")
    temp = tvm.contrib.utils.tempdir()
    path = temp.relpath("lib.tar")
    func.export_library(path)
    remote = rpc.LocalSession()
    remote.upload(path)
    func = remote.load_module("lib.tar")
    dev = remote.cpu()
    a = tvm.nd.array(np.random.uniform(size=1024).astype(A.dtype), dev)
    b = tvm.nd.array(np.zeros(1024, dtype=A.dtype), dev)
    func(a, b)
    np.testing.assert_equal(b.numpy(), a.numpy() + 1)
    time_f = func.time_evaluator(func.entry_name, dev, number=10)
    cost = time_f(a, b).mean
    assert 0 < cost < 0.01


@pytest.mark.parametrize("isolate", [False, True])
def test_session_timeout_ends_the_session_on_the_server(isolate, rng):
    with rpc.Server(HOST, port=0, isolate=isolate, silent=True) as srv:
        t0 = time.time()
        remote = rpc.connect(HOST, srv.port, session_timeout=4.0)
        x = rng.standard_normal(5).astype("float32")
        a = tvm.nd.array(x, remote.cpu())  # (an isolated session's process starts first)
        np.testing.assert_array_equal(a.numpy(), x)
        time.sleep(max(0.0, 4.5 - (time.time() - t0)))
        with pytest.raises(rpc.RPCError, match="lost|closed"):
            a.numpy()
        with rpc.connect(HOST, srv.port, session_timeout=30) as again:  # the server goes on
            np.testing.assert_array_equal(tvm.nd.array(x, again.cpu()).numpy(), x)


def test_copyto_between_local_and_remote(server, rng):
    with rpc.connect(HOST, server.port) as remote:
        x = rng.standard_normal((4, 3)).astype("float32")
        ra = tvm.nd.array(x, remote.cpu())
        local = ra.copyto(tvm.cpu())
        assert isinstance(local, tvm.nd.NDArray) and local.device == tvm.cpu()
        np.testing.assert_array_equal(local.numpy(), x)
        rb = tvm.nd.empty((4, 3), "float32", remote.cpu())
        ra.copyto(rb)
        np.testing.assert_array_equal(rb.numpy(), x)
        with pytest.raises(ValueError, match="shape"):
            ra.copyto(tvm.nd.empty((3, 4), "float32", remote.cpu()))
