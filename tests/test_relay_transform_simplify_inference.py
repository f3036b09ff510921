"""SimplifyInference: batch norm folded into a conv's weight and bias (opt_level 3), or a
multiply-add; results equal the unsimplified network's (opt_level 2 keeps nn.batch_norm)."""
import numpy as np
from relay_helpers import build_run, kernel_names

import tvmlite as tvm
from tvmlite import relay


def _bn_params(rng, c):
    return [relay.const(v.astype("float32")) for v in (
        rng.uniform(0.5, 1.5, c), rng.standard_normal(c), rng.standard_normal(c) * 0.1,
        rng.uniform(0.5, 1.5, c))]


def _conv_bn_net(rng):
    x = relay.var("x", shape=(1, 3, 9, 11))
    w = relay.const(rng.standard_normal((5, 3, 3, 3)).astype("float32"))
    b = relay.const(rng.standard_normal(5).astype("float32"))
    y = relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), b)
    y = relay.nn.relu(relay.nn.batch_norm(y, *_bn_params(rng, 5), epsilon=1e-3)[0])
    # a BN on a 2-D tensor (axis 1, no conv under it): a multiply-add
    z = relay.nn.batch_flatten(relay.nn.global_avg_pool2d(y))
    z = relay.nn.batch_norm(z, *_bn_params(rng, 5), axis=1)[0]
    return relay.Function([x], z)


def test_bn_folds_into_conv_and_matches(rng):
    xa = rng.standard_normal((1, 3, 9, 11)).astype("float32")
    (got,), f3 = build_run(_conv_bn_net(np.random.default_rng(7)), {"x": xa}, opt_level=3,
                           disabled_pass=["AlterOpLayout"])
    (ref,), f2 = build_run(_conv_bn_net(np.random.default_rng(7)), {"x": xa}, opt_level=2)
    assert any("batch_norm" in k for k in kernel_names(f2))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    names = kernel_names(f3)
    assert not any("batch_norm" in k for k in names), names
    assert names[0] == "fused_nn_conv2d_nn_bias_add_nn_relu"


def test_pass_alone_and_disabled(rng):
    func = _conv_bn_net(rng)
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(func))
    with tvm.transform.PassContext(opt_level=3):
        out = relay.transform.SimplifyInference()(mod)
    text = out["main"].astext()
    assert "nn.batch_norm" not in text and "sqrt" in text
    xa = rng.standard_normal((1, 3, 9, 11)).astype("float32")
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["SimplifyInference"]):
        factory = relay.build(tvm.IRModule.from_expr(func), target="llvm")
    assert any("batch_norm" in k for k in kernel_names(factory))
    (got,), _ = build_run(func, {"x": xa}, opt_level=3)
    from tvmlite.contrib import graph_executor
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run(x=xa)
    np.testing.assert_allclose(got, gm.get_output(0).numpy(), rtol=1e-5, atol=1e-5)
