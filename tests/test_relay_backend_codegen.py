"""relay.backend's classic build steps: ``relay.optimize``, ``GraphExecutorCodegen(None,
target).codegen(mod, mod["main"])`` and ``relay.backend._backend.build(lowered, target)``
give a graph the graph executor runs like ``relay.build``'s (results against numpy)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor
from tvmlite.error import TVMError
from tvmlite.relay.backend import graph_executor_codegen

rng = np.random.default_rng(2)


def test_codegen_then_backend_build_runs():
    x = relay.var("x", shape=(5, 9))
    w = relay.const(rng.standard_normal((3, 9)).astype("float32"))
    f = relay.Function([x], relay.nn.relu(relay.nn.dense(x, w)) + relay.const(0.5))
    target, host = tvm.target.Target.canon_target_and_host("llvm")
    assert host is None and target.kind.name == "llvm"
    mod, _ = relay.optimize(tvm.IRModule.from_expr(f), target)
    graph_json, lowered, params = graph_executor_codegen.GraphExecutorCodegen(
        None, target).codegen(mod, mod["main"])
    lib = relay.backend._backend.build(lowered, target)
    gm = graph_executor.create(graph_json, lib, tvm.cpu())
    gm.set_input(**params)
    xn = rng.standard_normal((5, 9)).astype("float32")
    gm.set_input("x", xn)
    gm.run()
    want = np.maximum(xn @ w.data.numpy().T, 0) + 0.5
    np.testing.assert_allclose(gm.get_output(0).numpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(TVMError, match="must be a relay Function"):
        graph_executor_codegen.GraphExecutorCodegen(None, target).codegen(mod, x)


def test_canon_target_and_host():
    t, h = tvm.target.Target.canon_target_and_host("llvm", "llvm")
    assert str(h) == "llvm" and t.host is not None
    assert tvm.target.Target.canon_target_and_host(None) == (None, None)
    with pytest.raises(TVMError, match="without a target"):
        tvm.target.Target.canon_target_and_host(None, "llvm")
