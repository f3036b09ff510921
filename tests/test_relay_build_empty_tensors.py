"""relay.build of functions with zero-size tensors (classic allows them): the generic computes
under the default schedule, results against numpy; GPU targets refuse them clearly."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor

RNG = np.random.default_rng(5)


def run(func, *arrays):
    lib = relay.build(tvm.IRModule.from_expr(func), "llvm")
    g = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    for i, a in enumerate(arrays):
        g.set_input(i, a)
    g.run()
    return g.get_output(0).numpy()


def test_empty_inputs_and_outputs():
    x, y = relay.var("x", shape=(0, 4)), relay.var("y", shape=(3, 4))
    e, b = np.zeros((0, 4), "float32"), RNG.uniform(-1, 1, (3, 4)).astype("float32")
    np.testing.assert_allclose(run(relay.Function([x, y], relay.concatenate([x, y], 0) + 1.0),
                                   e, b), b + 1)
    np.testing.assert_array_equal(run(relay.Function([x], relay.sum(x, 0) + 2.0), e),
                                  np.full(4, 2, "float32"))
    out = run(relay.Function([x], relay.nn.relu(x) * 2.0), e)
    assert out.shape == (0, 4)
    w = relay.var("w", shape=(5, 4))
    out = run(relay.Function([x, w], relay.nn.dense(x, w)), e, b[:1].repeat(5, 0))
    assert out.shape == (0, 5)
    z = relay.var("z", shape=(4, 0, 3))
    out = run(relay.Function([z], relay.mean(z, 2)), np.zeros((4, 0, 3), "float32"))
    assert out.shape == (4, 0)


def test_empty_tensor_next_to_real_kernels():
    """An empty branch beside a tuned-schedule kernel (dense) keeps that kernel's result."""
    x, w = relay.var("x", shape=(3, 8)), relay.var("w", shape=(6, 8))
    e = relay.var("e", shape=(3, 0))
    out = relay.concatenate([relay.nn.dense(x, w), relay.nn.relu(e)], 1)
    a = RNG.uniform(-1, 1, (3, 8)).astype("float32")
    b = RNG.uniform(-1, 1, (6, 8)).astype("float32")
    got = run(relay.Function([x, w, e], out), a, b, np.zeros((3, 0), "float32"))
    np.testing.assert_allclose(got, a @ b.T, rtol=1e-5, atol=1e-6)


def test_gpu_targets_refuse_them(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    x = relay.var("x", shape=(0, 4))
    with pytest.raises(tvm.TVMError, match="zero-size tensor .*CPU targets only"):
        relay.build(tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(x))), "cuda")
