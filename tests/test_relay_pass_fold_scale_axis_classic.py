"""FoldScaleAxis as classic relay does it: forward through relu/add into conv2d (NCHW, NHWC,
depthwise) and dense, backward through relu/add/bias_add from conv2d and dense, refusals
(negative scale through relu, a value used twice, a non-constant scale through relu); every
network built before and after the pass and compared, on random inputs."""
import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay import transform
from tvmlite.relay.expr import post_order
from tvmlite.relay.op.registry import Op


def _ops(func):
    return [n.op.name for n in post_order(func.body)
            if isinstance(n, relay.Call) and isinstance(n.op, Op)]


def _fold(func, which):
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=3):
        mod = transform.InferType()(mod)
        mod = which()(mod)
        return transform.FoldConstant()(mod)["main"]


def _same_outputs(before, after, inputs):
    (want,), _ = build_run(before, inputs, disabled_pass=["FoldScaleAxis"])
    (got,), _ = build_run(after, inputs, disabled_pass=["FoldScaleAxis"])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_forward_through_relu_and_add_into_conv(rng, layout):
    c, o = 3, 5
    dshape = (1, c, 7, 6) if layout == "NCHW" else (1, 7, 6, c)
    kernel = "OIHW" if layout == "NCHW" else "HWIO"
    wshape = (o, c, 3, 3) if layout == "NCHW" else (3, 3, c, o)
    cshape = (c, 1, 1) if layout == "NCHW" else (c,)
    x = relay.var("x", shape=dshape)
    scale = relay.const(rng.uniform(0.5, 1.5, cshape).astype("float32"))
    bias = relay.const(rng.standard_normal(cshape).astype("float32"))
    w = relay.const(rng.standard_normal(wshape).astype("float32"))
    y = relay.add(relay.nn.relu(relay.multiply(x, scale)), bias)
    y = relay.nn.conv2d(y, w, padding=(1, 1), data_layout=layout, kernel_layout=kernel)
    func = relay.Function([x], y)
    folded = _fold(func, transform.ForwardFoldScaleAxis)
    assert _ops(folded) == ["nn.relu", "add", "nn.conv2d"]  # the scale is gone
    _same_outputs(func, folded, {"x": rng.standard_normal(dshape).astype("float32")})


def test_forward_depthwise_two_consumers_and_dense(rng):
    c = 4
    x = relay.var("x", shape=(1, c, 6, 5))
    scale = relay.const(rng.uniform(0.5, 1.5, (c, 1, 1)).astype("float32"))
    w = relay.const(rng.standard_normal((c, 1, 3, 3)).astype("float32"))
    y = relay.nn.relu(relay.multiply(scale, x))
    a = relay.nn.conv2d(y, w, padding=(1, 1), groups=c, channels=c, kernel_size=(3, 3))
    b = relay.nn.conv2d(y, w, padding=(1, 1), groups=c, channels=c, kernel_size=(3, 3))
    func = relay.Function([x], relay.add(a, relay.exp(b)))
    folded = _fold(func, transform.ForwardFoldScaleAxis)
    assert "multiply" not in _ops(folded)
    _same_outputs(func, folded, {"x": rng.standard_normal((1, c, 6, 5)).astype("float32")})

    d = relay.var("d", shape=(3, 6))
    s = relay.const(rng.uniform(-1, 1, (6,)).astype("float32"))  # no relu: any sign
    wd = relay.const(rng.standard_normal((4, 6)).astype("float32"))
    dense = relay.Function([d], relay.nn.dense(relay.multiply(d, s), wd))
    folded = _fold(dense, transform.ForwardFoldScaleAxis)
    assert _ops(folded) == ["nn.dense"]
    _same_outputs(dense, folded, {"d": rng.standard_normal((3, 6)).astype("float32")})


def test_forward_refusals(rng):
    x = relay.var("x", shape=(1, 3, 5, 5))
    w = relay.const(rng.standard_normal((2, 3, 3, 3)).astype("float32"))
    neg = relay.const(-rng.uniform(0.5, 1, (3, 1, 1)).astype("float32"))
    through_relu = relay.Function([x], relay.nn.conv2d(relay.nn.relu(relay.multiply(x, neg)),
                                                       w))
    s = relay.var("s", shape=(3, 1, 1))
    var_scale = relay.Function([x, s], relay.nn.conv2d(
        relay.nn.relu(relay.multiply(x, s)), w))
    pos = relay.const(rng.uniform(0.5, 1, (3, 1, 1)).astype("float32"))
    m = relay.multiply(x, pos)
    other_use = relay.Function([x], relay.add(relay.sum(relay.nn.conv2d(m, w)),
                                              relay.sum(relay.exp(m))))
    for func in (through_relu, var_scale, other_use):
        folded = _fold(func, transform.ForwardFoldScaleAxis)
        assert "multiply" in _ops(folded)
        inputs = {"x": rng.standard_normal((1, 3, 5, 5)).astype("float32")}
        if len(func.params) == 2:
            inputs["s"] = rng.standard_normal((3, 1, 1)).astype("float32")
        _same_outputs(func, folded, inputs)


def test_backward_through_bias_relu_add_into_convs(rng):
    x = relay.var("x", shape=(1, 3, 6, 6))
    w1 = relay.const(rng.standard_normal((4, 3, 3, 3)).astype("float32"))
    w2 = relay.const(rng.standard_normal((4, 3, 1, 1)).astype("float32"))
    b = relay.const(rng.standard_normal((4,)).astype("float32"))
    s = relay.const(rng.uniform(0.5, 1.5, (4, 1, 1)).astype("float32"))
    y1 = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w1, padding=(1, 1)), b))
    y2 = relay.nn.conv2d(x, w2)
    func = relay.Function([x], relay.multiply(relay.add(y1, y2), s))
    folded = _fold(func, transform.BackwardFoldScaleAxis)
    assert "multiply" not in _ops(folded)
    _same_outputs(func, folded, {"x": rng.standard_normal((1, 3, 6, 6)).astype("float32")})


def test_backward_dense_and_refusals(rng):
    d = relay.var("d", shape=(3, 6))
    wd = relay.const(rng.standard_normal((5, 6)).astype("float32"))
    s = relay.const(rng.uniform(-1, 1, (5,)).astype("float32"))
    func = relay.Function([d], relay.multiply(relay.nn.dense(d, wd), s))
    folded = _fold(func, transform.BackwardFoldScaleAxis)
    assert _ops(folded) == ["nn.dense"]
    _same_outputs(func, folded, {"d": rng.standard_normal((3, 6)).astype("float32")})

    x = relay.var("x", shape=(1, 3, 5, 5))
    w = relay.const(rng.standard_normal((4, 3, 3, 3)).astype("float32"))
    neg = relay.const(-rng.uniform(0.5, 1, (4, 1, 1)).astype("float32"))
    conv = relay.nn.conv2d(x, w)
    through_relu = relay.Function([x], relay.multiply(relay.nn.relu(conv), neg))
    twice = relay.Function([x], relay.add(relay.multiply(conv, neg), conv))
    for func in (through_relu, twice):
        folded = _fold(func, transform.BackwardFoldScaleAxis)
        assert "multiply" in _ops(folded)
        _same_outputs(func, folded, {"x": rng.standard_normal((1, 3, 5, 5)).astype("float32")})
