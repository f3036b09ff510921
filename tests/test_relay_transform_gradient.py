"""relay.transform.gradient: analytic gradients against numpy formulas and (check_grad)
finite differences."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay.testing import check_grad, run_infer_type
from tvmlite.relay.transform import gradient

RNG = np.random.default_rng(9)


def _grads(f, *inputs):
    bwd = run_infer_type(gradient(run_infer_type(f)))
    out, grads = relay.create_executor("debug", target="llvm").evaluate(bwd)(*inputs)
    return out.numpy(), [g.numpy() for g in grads]


def test_broadcast_binary_and_unary_against_numpy():
    x = relay.var("x", shape=(3, 5), dtype="float64")
    y = relay.var("y", shape=(5,), dtype="float64")
    f = relay.Function([x, y], relay.tanh(x) * y / (y + relay.const(3.0, "float64")))
    xd, yd = RNG.standard_normal((3, 5)), RNG.uniform(0.5, 2, 5)
    out, (gx, gy) = _grads(f, xd, yd)
    s = yd / (yd + 3)
    np.testing.assert_allclose(out, np.tanh(xd) * s, rtol=1e-10)
    np.testing.assert_allclose(gx, (1 - np.tanh(xd) ** 2) * s, rtol=1e-10)
    np.testing.assert_allclose(gy, np.tanh(xd).sum(0) * 3 / (yd + 3) ** 2, rtol=1e-10)


def test_shared_value_and_unused_parameter():
    x = relay.var("x", shape=(4,), dtype="float32")
    unused = relay.var("unused", shape=(2,), dtype="float32")
    e = relay.exp(x)
    f = relay.Function([x, unused], e * e + e)
    xd = RNG.standard_normal(4).astype("float32")
    _, (gx, gu) = _grads(f, xd, np.ones(2, "float32"))
    np.testing.assert_allclose(gx, 2 * np.exp(2 * xd) + np.exp(xd), rtol=1e-5)
    np.testing.assert_array_equal(gu, np.zeros(2, "float32"))


@pytest.mark.parametrize("ta,tb", [(False, True), (True, False), (True, True)])
def test_batch_matmul_transposes(ta, tb):
    a_shape = (2, 4, 3) if ta else (2, 3, 4)
    b_shape = (2, 5, 4) if tb else (2, 4, 5)
    a = relay.var("a", shape=a_shape, dtype="float64")
    b = relay.var("b", shape=b_shape, dtype="float64")
    f = relay.Function([a, b], relay.nn.batch_matmul(a, b, transpose_a=ta, transpose_b=tb))
    check_grad(f, scale=1.0, target_devices=[("llvm", tvm.cpu())])


def test_reductions_softmax_dense_with_finite_differences():
    x = relay.var("x", shape=(3, 4), dtype="float64")
    w = relay.var("w", shape=(5, 4), dtype="float64")
    y = relay.nn.log_softmax(relay.nn.dense(x, w))
    f = relay.Function([x, w], relay.mean(y, axis=1) + relay.max(y, axis=1))
    check_grad(f, scale=1.0, target_devices=[("llvm", tvm.cpu())])


def test_unsupported_programs_are_errors():
    x = relay.var("x", shape=(2,), dtype="float32")
    c = relay.var("c", shape=(), dtype="bool")
    with pytest.raises(tvm.TVMError, match="If is not supported"):
        gradient(relay.Function([c, x], relay.If(c, x, x)))
    f = relay.Function([x], relay.argsort(x))
    with pytest.raises(tvm.TVMError, match="argsort has no registered gradient"):
        gradient(f)
    with pytest.raises(tvm.TVMError, match="unknown mode"):
        gradient(relay.Function([x], x), mode="third_order")


@pytest.mark.parametrize("strides,padding,dilation", [((1, 1), (1, 0, 2, 1), (1, 1)),
                                                      ((2, 1), (1, 1, 1, 1), (1, 1))])
def test_conv2d_gradient(strides, padding, dilation):
    x = relay.var("x", shape=(2, 3, 7, 6), dtype="float64")
    w = relay.var("w", shape=(2, 3, 3, 2), dtype="float64")
    f = relay.Function([x, w], relay.nn.conv2d(x, w, strides=strides, padding=padding,
                                               dilation=dilation))
    check_grad(f, scale=1.0, target_devices=[("llvm", tvm.cpu())])
    with pytest.raises(tvm.TVMError, match="groups=1 and dilation 1 only"):
        x4 = relay.var("x4", shape=(1, 4, 5, 5), dtype="float32")
        w4 = relay.var("w4", shape=(4, 2, 3, 3), dtype="float32")
        gradient(relay.Function([x4, w4], relay.nn.conv2d(x4, w4, groups=2)))


def test_cross_entropy_ops_and_gradients():
    p = relay.var("p", shape=(3, 5), dtype="float64")
    t = relay.var("t", shape=(3, 5), dtype="float64")
    pd, td = RNG.uniform(0.2, 1.0, (3, 5)), RNG.uniform(0, 1, (3, 5))
    run = relay.create_executor("debug", target="llvm")
    ce = run.evaluate(relay.Function([p, t], relay.nn.cross_entropy(p, t)))(pd, td).numpy()
    np.testing.assert_allclose(ce, -np.sum(np.log(pd) * td) / 3, rtol=1e-10)
    cl = run.evaluate(relay.Function([p, t], relay.nn.cross_entropy_with_logits(p, t)))(
        pd, td).numpy()
    np.testing.assert_allclose(cl, -np.sum(pd * td) / 3, rtol=1e-10)
    for op in (relay.nn.cross_entropy, relay.nn.cross_entropy_with_logits):
        check_grad(relay.Function([p, t], op(p, t)), inputs=[pd, td], eps=1e-4, rtol=1e-4,
                   target_devices=[("llvm", tvm.cpu())])
    with pytest.raises(tvm.TVMError, match="same"):
        q = relay.var("q", shape=(3, 4), dtype="float64")
        relay.transform.InferType()(tvm.IRModule.from_expr(relay.nn.cross_entropy(p, q)))


def test_lets_and_checkpoints_are_differentiated():
    xs = [relay.var(f"x{i}", shape=(2,), dtype="float64") for i in range(3)]
    v = relay.Var("v")
    body = relay.Let(v, relay.multiply(xs[0], xs[1]),
                     relay.annotation.checkpoint(relay.add(v, relay.multiply(v, xs[2]))))
    f = relay.Function(xs, body)
    data = [RNG.standard_normal(2) for _ in range(3)]
    _, (g0, g1, g2) = _grads(f, *data)
    np.testing.assert_allclose(g0, data[1] * (1 + data[2]), rtol=1e-10)
    np.testing.assert_allclose(g1, data[0] * (1 + data[2]), rtol=1e-10)
    np.testing.assert_allclose(g2, data[0] * data[1], rtol=1e-10)


@pytest.mark.parametrize("begin,end,strides,mode", [((0, 1, 0), (-1, -1, 1), (1, 1, 1), "size"),
                                                    ((1, 0, 1), (2, 3, 4), (1, 2, 2), "end")])
def test_strided_slice_variance_and_global_pool(begin, end, strides, mode):
    x = relay.var("x", shape=(2, 3, 5), dtype="float64")
    f = relay.Function([x], relay.strided_slice(x, begin, end, strides, slice_mode=mode))
    check_grad(f, scale=1.0, target_devices=[("llvm", tvm.cpu())])
    v = relay.Function([x], relay.variance(x, axis=(1,), unbiased=True))
    check_grad(v, scale=1.0, target_devices=[("llvm", tvm.cpu())])
    y = relay.var("y", shape=(1, 2, 3, 3), dtype="float64")
    p = relay.Function([y], relay.nn.global_avg_pool2d(y))
    assert run_infer_type(p).ret_type is not None  # inference fills in the return type
    check_grad(p, scale=1.0, target_devices=[("llvm", tvm.cpu())])
