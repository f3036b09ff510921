"""``relay.build`` for cuda, run by the graph executor on the emulated GPU (checking mode:
a race or an out-of-bounds access fails) against the llvm build of the same network."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor
from tvmlite.error import TVMError


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


def _small_net():
    """conv + batch_norm + relu + max_pool + dense + softmax, odd sizes."""
    data = relay.var("data", shape=(1, 3, 11, 13))
    w = relay.var("w", shape=(5, 3, 3, 3))
    gamma, beta = relay.var("gamma", shape=(5,)), relay.var("beta", shape=(5,))
    mean, var = relay.var("mean", shape=(5,)), relay.var("var", shape=(5,))
    fc = relay.var("fc", shape=(7, 5 * 6 * 7))
    y = relay.nn.conv2d(data, w, padding=(1, 1), channels=5, kernel_size=(3, 3))
    y = relay.nn.batch_norm(y, gamma, beta, mean, var)[0]
    y = relay.nn.relu(y)
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2), ceil_mode=True)
    y = relay.nn.softmax(relay.nn.dense(relay.nn.batch_flatten(y), fc))
    func = relay.Function(relay.analysis.free_vars(y), y)
    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(5, 3, 3, 3)), "gamma": rng.uniform(0.5, 1.5, 5),
              "beta": rng.normal(size=5), "mean": rng.normal(size=5),
              "var": rng.uniform(0.5, 1.5, 5), "fc": rng.normal(size=(7, 210)) * 0.1}
    params = {k: tvm.nd.array(np.asarray(v, "float32")) for k, v in params.items()}
    return tvm.IRModule.from_expr(func), params


def _run(mod, params, target, dev, data):
    with tvm.transform.PassContext(opt_level=3):
        lib = relay.build(mod, target, params=params)
    m = graph_executor.GraphModule(lib["default"](dev))
    m.set_input("data", data)
    m.run()
    return lib, m.get_output(0).numpy()


def test_small_network_cuda_matches_llvm():
    mod, params = _small_net()
    data = np.random.uniform(-1, 1, (1, 3, 11, 13)).astype("float32")
    _, ref = _run(mod, params, "llvm", tvm.cpu(), data)
    lib, out = _run(mod, params, tvm.target.cuda(), tvm.cuda(), data)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    src = lib.get_lib().imported_modules[0].get_source()
    assert "__global__" in src and "blockIdx.x" in src


def test_resnet_tiny_cuda_matches_llvm_and_exports(tmp_path):
    mod, params = relay.testing.resnet.get_workload(num_layers=8, batch_size=1,
                                                    image_shape=(3, 16, 16), num_classes=10)
    data = np.random.uniform(-1, 1, (1, 3, 16, 16)).astype("float32")
    _, ref = _run(mod, params, "llvm", tvm.cpu(), data)
    lib, out = _run(mod, params, "cuda", tvm.cuda(0), data)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    # the quick-start tutorial's round trip: export, load back, run with the input by name
    path = str(tmp_path / "deploy_lib.tar")
    lib.export_library(path)
    loaded = tvm.runtime.load_module(path)
    m = graph_executor.GraphModule(loaded["default"](tvm.cuda()))
    m.run(data=tvm.nd.array(data))
    np.testing.assert_allclose(m.get_output(0).numpy(), out, rtol=1e-6, atol=1e-7)


def test_op_without_gpu_strategy_is_named(monkeypatch):
    monkeypatch.delitem(relay.op.get("nn.relu").strategies, "gpu")
    x = relay.var("x", shape=(3, 5))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))
    with pytest.raises(TVMError, match="operator nn.relu has no GPU strategy"):
        relay.build(mod, "cuda")


def test_other_gpu_targets_are_refused():
    x = relay.var("x", shape=(3, 5))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))
    with pytest.raises(TVMError, match="target 'opencl' is not supported"):
        relay.build(mod, "opencl")
