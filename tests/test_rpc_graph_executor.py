"""The graph executor over RPC (book §1.4.4): a network built here, its library uploaded to a
loopback server, and ``graph_runtime.create(graph, remote_lib, remote.cpu())`` running it
there, with inputs and params sent from here."""
import os

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, rpc
from tvmlite.contrib import graph_executor, graph_runtime
from tvmlite.error import TVMError
from tvmlite.topi.testing import conv2d_nchw_python

HOST = "127.0.0.1"


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    """conv(3->8, 3x3, pad 1) + bias + relu, then dense to 10: graph, exported lib, params."""
    x = relay.var("data", shape=(1, 3, 9, 7))
    w = relay.var("w", shape=(8, 3, 3, 3))
    b = relay.var("b", shape=(8,))
    d = relay.var("d", shape=(10, 8 * 9 * 7))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    z = relay.nn.dense(relay.nn.batch_flatten(y), d)
    rng = np.random.default_rng(5)
    params = {"w": rng.standard_normal((8, 3, 3, 3)).astype("float32"),
              "b": rng.standard_normal(8).astype("float32"),
              "d": rng.standard_normal((10, 504)).astype("float32")}
    mod = tvm.IRModule.from_expr(relay.Function([x, w, b, d], z))
    with tvm.transform.PassContext(opt_level=3):
        graph, lib, params_out = relay.build(mod, target="llvm", params=params)
    path = str(tmp_path_factory.mktemp("net") / "net.tar")
    lib.export_library(path)
    return graph, path, params_out, params


def _reference(x, p):
    y = np.maximum(conv2d_nchw_python(x, p["w"], 1, 1) + p["b"][None, :, None, None], 0)
    return y.reshape(1, -1) @ p["d"].T


@pytest.fixture
def remote(tmp_path):
    srv = rpc.Server(HOST, port=0, work_dir=str(tmp_path / "sessions"), silent=True)
    os.makedirs(srv.work_dir)
    sess = rpc.connect(HOST, srv.port)
    yield sess
    sess.close()
    srv.terminate()


def test_book_1_4_4_network_runs_on_the_remote(network, remote):
    graph, path, params, raw = network
    remote.upload(path)
    rlib = remote.load_module(os.path.basename(path))
    ctx = remote.cpu()
    rt = graph_runtime.create(graph, rlib, ctx)
    assert rt.get_num_outputs() == 1 and rt.get_num_inputs() >= 1
    rt.set_input(**params)
    x = np.random.default_rng(0).standard_normal((1, 3, 9, 7)).astype("float32")
    rt.run(data=tvm.nd.array(x))
    out = rt.get_output(0)
    assert out.shape == (1, 10) and repr(out.device).startswith("remote[")
    np.testing.assert_allclose(out.asnumpy(), _reference(x, raw), rtol=1e-4, atol=1e-4)
    # the same as the local executor, bit for bit (same kernels)
    local = graph_executor.create(graph, tvm.runtime.load_module(path), tvm.cpu())
    local.set_input(**params)
    local.run(data=x)
    np.testing.assert_array_equal(out.numpy(), local.get_output(0).numpy())
    np.testing.assert_array_equal(rt.get_input("data").numpy(), x)
    assert all(t > 0 for t in rt.benchmark(repeat=2, number=2).results)


def test_load_params_and_a_second_input_over_rpc(network, remote):
    graph, path, params, raw = network
    remote.upload(path, "lib.tar")
    rt = graph_executor.create(graph, remote.load_module("lib.tar"), remote.cpu())
    rt.load_params(relay.save_param_dict(params))
    for seed in (1, 2):
        x = np.random.default_rng(seed).standard_normal((1, 3, 9, 7)).astype("float32")
        rt.set_input("data", x)
        rt.run()
        np.testing.assert_allclose(rt.get_output(0).numpy(), _reference(x, raw), rtol=1e-4,
                                   atol=1e-4)


def test_remote_executor_errors_name_the_input(network, remote):
    graph, path, params, _ = network
    remote.upload(path)
    rlib = remote.load_module(os.path.basename(path))
    rt = graph_executor.create(graph, rlib, remote.cpu())
    with pytest.raises(TVMError, match="no input named 'nope'"):
        rt.set_input("nope", np.zeros(3, "float32"))
    with pytest.raises(TVMError, match=r"input 'data' expects shape \(1, 3, 9, 7\)"):
        rt.set_input("data", np.zeros((1, 3, 9, 8), "float32"))
    with pytest.raises(TVMError, match="index 3 out of range"):
        rt.get_output(3)
    with pytest.raises(TVMError, match="device must be one of that session"):
        graph_executor.create(graph, rlib, tvm.cpu())
    # the session still serves after the errors
    rt.set_input(**params)
    rt.run(data=np.zeros((1, 3, 9, 7), "float32"))
    assert rt.get_output(0).numpy().shape == (1, 10)
