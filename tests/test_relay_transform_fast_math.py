"""relay.transform.FastMath and the fast_exp / fast_tanh / fast_erf / nn.fast_softmax ops:
the fast program is close to the exact one (and to numpy)."""
import math

import numpy as np

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay import transform


def _func():
    x = relay.var("x", shape=(3, 17), dtype="float32")
    y = relay.exp(relay.tanh(x)) + relay.erf(x)
    return relay.Function([x], relay.nn.softmax(y, axis=1))


def test_fast_math_swaps_ops_and_stays_close():
    mod = transform.FastMath()(transform.InferType()(tvm.IRModule.from_expr(_func())))
    text = mod.astext()
    for name in ("fast_exp", "fast_tanh", "fast_erf", "nn.fast_softmax"):
        assert name in text
    x = np.random.default_rng(5).uniform(-3, 3, (3, 17)).astype("float32")
    exact = build_run(_func(), {"x": x})[0][0]
    fast = build_run(mod["main"], {"x": x})[0][0]
    y = np.exp(np.tanh(x)) + np.vectorize(math.erf)(x)
    ref = np.exp(y - y.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    np.testing.assert_allclose(exact, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fast, ref, rtol=1e-3, atol=1e-5)


def test_relay_build_runs_fast_math_when_required():
    with tvm.transform.PassContext(opt_level=3, required_pass=["FastMath"]):
        mod, _ = relay.optimize(tvm.IRModule.from_expr(_func()), target="llvm")
    assert "fast_exp" in mod.astext()
    with tvm.transform.PassContext(opt_level=3):
        mod, _ = relay.optimize(tvm.IRModule.from_expr(_func()), target="llvm")
    assert "fast_exp" not in mod.astext()
