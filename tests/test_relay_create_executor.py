"""relay.create_executor (classic's evaluate-a-function API) over relay.build and the graph
executor: results vs numpy, positional/named inputs, params, tuple results, errors."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.topi.testing import conv2d_nchw_python


def _net():
    x = relay.var("x", shape=(1, 3, 7, 9))
    w = relay.var("w", shape=(5, 3, 3, 3))
    b = relay.var("b", shape=(5,))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    return relay.Function([x, w, b], y)


def _ref(x, w, b):
    return np.maximum(conv2d_nchw_python(x, w, 1, 1) + b[None, :, None, None], 0)


@pytest.mark.parametrize("kind", ["graph", "debug", "vm"])
def test_evaluate_matches_numpy(kind, rng):
    x = rng.standard_normal((1, 3, 7, 9)).astype("float32")
    w = rng.standard_normal((5, 3, 3, 3)).astype("float32")
    b = rng.standard_normal(5).astype("float32")
    mod = tvm.IRModule.from_expr(_net())
    f = relay.create_executor(kind, mod=mod, device=tvm.cpu(0), target="llvm").evaluate()
    np.testing.assert_allclose(f(x, w, b).numpy(), _ref(x, w, b), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(f(x, b=b, w=tvm.nd.array(w)).numpy(), _ref(x, w, b),
                               rtol=1e-4, atol=1e-4)


def test_params_and_tuple_results_and_an_explicit_function(rng):
    a = relay.var("a", shape=(4, 5))
    c = relay.var("c", shape=(4, 5))
    func = relay.Function([a, c], relay.Tuple([a + c, relay.exp(a) * c]))
    av = rng.standard_normal((4, 5)).astype("float32")
    cv = rng.standard_normal((4, 5)).astype("float32")
    ex = relay.create_executor("graph", mod=tvm.IRModule(), target="llvm", params={"c": cv})
    s, p = ex.evaluate(func)(av)
    np.testing.assert_allclose(s.numpy(), av + cv, rtol=1e-6)
    np.testing.assert_allclose(p.numpy(), np.exp(av) * cv, rtol=1e-5)


def test_errors_name_the_problem(rng):
    mod = tvm.IRModule.from_expr(_net())
    with pytest.raises(tvm.TVMError, match="unknown executor kind 'fast'"):
        relay.create_executor("fast", mod=mod)
    f = relay.create_executor("graph", mod=mod).evaluate()
    with pytest.raises(tvm.TVMError, match=r"inputs \['b'\] were not given"):
        f(np.zeros((1, 3, 7, 9), "float32"), np.zeros((5, 3, 3, 3), "float32"))
    with pytest.raises(tvm.TVMError, match="takes 3 inputs"):
        f(*[np.zeros(1, "float32")] * 4)
    with pytest.raises(tvm.TVMError, match="expects shape"):
        f(np.zeros((1, 3, 7, 8), "float32"), np.zeros((5, 3, 3, 3), "float32"),
          np.zeros(5, "float32"))


def test_an_input_named_like_a_constant_param_keeps_its_value():
    # relay.build names constants p0, p1 ...: an input called p0 must stay an input
    rng = np.random.default_rng(3)
    x = relay.var("p0", shape=(3,))
    y = relay.var("p1", shape=(3,))
    c, d = rng.random(3).astype("float32"), rng.random(3).astype("float32")
    f = relay.Function([x, y], x * relay.const(c) + y * relay.const(d))
    run = relay.create_executor("graph", mod=tvm.IRModule.from_expr(f)).evaluate()
    a, b = rng.random(3).astype("float32"), rng.random(3).astype("float32")
    np.testing.assert_allclose(run(a, b).numpy(), a * c + b * d, rtol=1e-6)
