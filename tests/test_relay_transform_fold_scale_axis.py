"""FoldScaleAxis: a constant per-channel scale after / before a conv2d folded into its weight;
opt_level gating; outputs equal before and after."""
import numpy as np
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay.expr import post_order


def _ops(func):
    return sorted(n.op.name for n in post_order(func.body) if isinstance(n, relay.Call))


def _net(rng, where):
    x = relay.var("x", shape=(1, 3, 6, 6))
    w = relay.const(rng.standard_normal((4, 3, 3, 3)).astype("float32"))
    if where == "after":
        s = relay.const(rng.uniform(0.5, 2, (4, 1, 1)).astype("float32"))
        y = relay.multiply(relay.nn.conv2d(x, w, padding=(1, 1)), s)
    else:
        s = relay.const(rng.uniform(0.5, 2, (3, 1, 1)).astype("float32"))
        y = relay.nn.conv2d(relay.multiply(s, x), w, padding=(1, 1))
    return relay.Function([x], relay.nn.relu(y))


def test_scale_folded_into_the_weight(rng):
    xv = rng.standard_normal((1, 3, 6, 6)).astype("float32")
    for where in ("after", "before"):
        func = _net(rng, where)
        mod = tvm.IRModule.from_expr(func)
        assert "multiply" in _ops(relay.transform.FoldScaleAxis()(mod)["main"])  # opt_level 2
        with tvm.transform.PassContext(opt_level=3):
            out = relay.transform.FoldScaleAxis()(mod)["main"]
        assert _ops(out) == ["nn.conv2d", "nn.relu"]
        conv = out.body.args[0]
        assert isinstance(conv.args[0], relay.Var) and isinstance(conv.args[1], relay.Constant)
        (want,), _ = build_run(func, {"x": xv}, disabled_pass=["FoldScaleAxis"])
        (got,), _ = build_run(out, {"x": xv})
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_scale_with_another_use_or_shape_is_kept(rng):
    x = relay.var("x", shape=(1, 3, 6, 6))
    w = relay.const(rng.standard_normal((4, 3, 3, 3)).astype("float32"))
    conv = relay.nn.conv2d(x, w)
    s = relay.const(np.full((4, 1, 1), 2.0, "float32"))
    twice = relay.Function([x], relay.Tuple([relay.multiply(conv, s), conv]))
    full = relay.Function([x], relay.multiply(conv, relay.const(np.ones((4, 4, 4), "float32"))))
    with tvm.transform.PassContext(opt_level=3):
        for func in (twice, full):
            out = relay.transform.BackwardFoldScaleAxis()(tvm.IRModule.from_expr(func))["main"]
            assert "multiply" in _ops(out)
