"""Graphs of real size: a chain of 100,000 operators and a 24-layer encoder go through every
relay visitor, pass, the printer, relay.build and the graph executor without recursion."""
import sys
import time
import warnings

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor

N_CHAIN = 100_000


def _chain(n):
    x = relay.var("x", shape=(5,))
    y = x
    for i in range(n):
        y = relay.add(y, relay.const(1.0)) if i % 2 == 0 else relay.nn.relu(y)
    return relay.Function([x], y)


def test_chain_of_100000_ops_through_passes_printer_build_and_executor():
    assert sys.getrecursionlimit() < N_CHAIN  # a recursive walk would fail
    mod = tvm.IRModule.from_expr(_chain(N_CHAIN))
    mod = relay.transform.InferType()(mod)
    assert mod["main"].checked_type.ret_type == relay.TensorType((5,), "float32")
    text = mod.astext()
    assert text.count("add(") == N_CHAIN // 2 and text.count("nn.relu(") == N_CHAIN // 2
    for p in (relay.transform.FoldConstant(), relay.transform.DeadCodeElimination(),
              relay.transform.SimplifyInference(), relay.transform.FuseOps()):
        p(mod)
    assert [v.name_hint for v in relay.analysis.free_vars(mod["main"].body)] == ["x"]
    assert len(relay.analysis.all_vars(mod["main"])) == 1
    start = time.perf_counter()
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(mod, "llvm")
    print(f"relay.build of {N_CHAIN} ops: {N_CHAIN / (time.perf_counter() - start):.0f} ops/s")
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    x = np.random.default_rng(0).uniform(-3, 3, 5).astype("float32")
    gm.run(x=x)
    # add 1 then relu, 50,000 times: max(x + 1, 0) + 49,999
    np.testing.assert_allclose(gm.get_output(0).numpy(), np.maximum(x + 1, 0) + N_CHAIN // 2
                               - 1, rtol=1e-6)


def test_24_layer_encoder_from_onnx_vs_onnxruntime(tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from models import onnx_models
    path = str(tmp_path / "encoder.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # onnx.helper's writer: the same file with or without torch installed
        onnx_models.export("bert_encoder", path, small=True, backend="onnx")
    feeds = onnx_models.random_inputs("bert_encoder", small=True, seed=2)
    (want,) = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)
    mod, params = relay.frontend.from_onnx(path)
    mod = relay.transform.InferType()(mod)
    assert mod.astext().count("nn.layer_norm(") == 48
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(mod, target="llvm", params=params)
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run(**feeds)
    got = gm.get_output(0).numpy()
    assert got.shape == want.shape
    assert np.abs(got - want).max() / np.abs(want).max() <= 1e-4
