"""Whole-network export (classic factory): ``relay.build(...).export_library("net.so"/".tar")``
stores the graph JSON and the params inside the library; ``tvm.runtime.load_module`` gives
back a module whose ``lib["default"](dev)`` runs with the params already set, locally and on
an RPC server."""
import json
import os

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, rpc
from tvmlite.contrib import graph_executor
from tvmlite.error import TVMError
from tvmlite.topi.testing import conv2d_nchw_python

HOST = "127.0.0.1"


def _network():
    """conv(3->8, 3x3, pad 1) + bias + relu, then dense to 10, at odd sizes."""
    x = relay.var("data", shape=(1, 3, 9, 7))
    w = relay.var("w", shape=(8, 3, 3, 3))
    b = relay.var("b", shape=(8,))
    d = relay.var("d", shape=(10, 8 * 9 * 7))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    z = relay.nn.dense(relay.nn.batch_flatten(y), d)
    return tvm.IRModule.from_expr(relay.Function([x, w, b, d], z))


def _reference(x, p):
    y = np.maximum(conv2d_nchw_python(x, p["w"], 1, 1) + p["b"][None, :, None, None], 0)
    return y.reshape(1, -1) @ p["d"].T


@pytest.fixture(scope="module")
def built():
    rng = np.random.default_rng(11)
    params = {"w": rng.standard_normal((8, 3, 3, 3)).astype("float32"),
              "b": rng.standard_normal(8).astype("float32"),
              "d": rng.standard_normal((10, 504)).astype("float32")}
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(_network(), target="llvm", params=params)
    return factory, params


@pytest.mark.parametrize("ext", ["so", "tar"])
def test_exported_network_runs_with_its_params(built, tmp_path, ext):
    factory, params = built
    path = str(tmp_path / f"net.{ext}")
    factory.export_library(path)
    lib = tvm.runtime.load_module(path)
    gm = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    for seed in (1, 2):
        x = np.random.default_rng(seed).standard_normal((1, 3, 9, 7)).astype("float32")
        gm.set_input("data", x)
        gm.run()
        np.testing.assert_allclose(gm.get_output(0).numpy(), _reference(x, params),
                                   rtol=1e-4, atol=1e-4)
    # the same graph and params as the factory's
    assert lib["get_graph_json"]() == factory.get_graph_json()
    got = lib["get_graph_params"]()
    assert sorted(got) == sorted(factory.get_params())
    for k, v in factory.get_params().items():
        np.testing.assert_array_equal(got[k].numpy(), v.numpy())
    # the library alone still runs the classic way, kernels and all
    m = graph_executor.create(json.dumps(json.loads(factory.get_graph_json())), lib, tvm.cpu())
    m.set_input(**factory.get_params())
    m.run(data=x)
    np.testing.assert_array_equal(m.get_output(0).numpy(), gm.get_output(0).numpy())
    # exporting the loaded module again keeps the network in it
    again = str(tmp_path / f"again.{ext}")
    lib.export_library(again)
    gm2 = graph_executor.GraphModule(tvm.runtime.load_module(again)["default"](tvm.cpu()))
    gm2.run(data=x)
    np.testing.assert_array_equal(gm2.get_output(0).numpy(), gm.get_output(0).numpy())


def test_factory_functions_by_name(built):
    factory, _ = built
    assert factory["get_graph_json"]() == factory.get_graph_json()
    assert factory["get_graph_params"]() is factory.get_params()
    with pytest.raises(TVMError, match="holds 'default', not 'other'"):
        factory["other"]


def test_plain_library_has_no_network(tmp_path):
    from tvmlite import te
    a = te.placeholder((5,), name="a")
    b = te.compute((5,), lambda i: a[i] + 1.0, name="b")
    lib = tvm.build(te.create_schedule(b.op), [a, b])
    path = str(tmp_path / "k.so")
    lib.export_library(path)
    with pytest.raises(AttributeError, match="no function 'default'"):
        tvm.runtime.load_module(path)["default"]


def test_corrupted_export_is_refused(built, tmp_path):
    factory, _ = built
    path = str(tmp_path / "net.so")
    factory.export_library(path)
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(TVMError, match="corrupted"):
        tvm.runtime.load_module(path)


def test_exported_network_over_rpc(built, tmp_path):
    factory, params = built
    path = str(tmp_path / "net.so")
    factory.export_library(path)
    srv = rpc.Server(HOST, port=0, work_dir=str(tmp_path / "sessions"), silent=True)
    os.makedirs(srv.work_dir)
    remote = rpc.connect(HOST, srv.port)
    try:
        remote.upload(path)
        rlib = remote.load_module("net.so")
        gm = graph_executor.GraphModule(rlib["default"](remote.cpu()))
        x = np.random.default_rng(3).standard_normal((1, 3, 9, 7)).astype("float32")
        gm.set_input("data", x)
        gm.run()
        out = gm.get_output(0)
        assert repr(out.device).startswith("remote[")
        np.testing.assert_allclose(out.numpy(), _reference(x, params), rtol=1e-4, atol=1e-4)
        with pytest.raises(TVMError, match=r"input 'data' expects shape \(1, 3, 9, 7\)"):
            gm.set_input("data", np.zeros((1, 3, 9, 8), "float32"))
    finally:
        remote.close()
        srv.terminate()
