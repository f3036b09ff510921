"""AlterOpLayout (opt_level 3, x86): NCHW convolutions run as ``nn.contrib_conv2d_NCHWc``
between layout transforms that cancel across element-wise ops; results equal the unaltered
build and numpy."""
import json

import numpy as np

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor
from tvmlite.topi.testing import conv2d_nchw_python


def _run(mod, params, inputs, disabled=()):
    with tvm.transform.PassContext(opt_level=3, disabled_pass=list(disabled)):
        factory = relay.build(mod, target="llvm", params=params)
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run(**inputs)
    ops = [n["attrs"]["func_name"] for n in json.loads(factory.get_graph_json())["nodes"]
           if n["op"] == "tvm_op"]
    return gm.get_output(0).numpy(), ops


def test_chain_stays_packed_and_matches_numpy(rng):
    x = relay.var("x", shape=(1, 16, 9, 7))
    w1 = relay.var("w1", shape=(32, 16, 3, 3))
    b1 = relay.var("b1", shape=(32,))
    w2 = relay.var("w2", shape=(32, 32, 3, 3))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w1, padding=(1, 1)), b1))
    z = relay.nn.relu(relay.add(relay.nn.conv2d(y, w2, padding=(1, 1)), y))
    mod = tvm.IRModule.from_expr(relay.Function([x, w1, b1, w2], z))
    p = {"w1": rng.standard_normal((32, 16, 3, 3)).astype("float32") * 0.2,
         "b1": rng.standard_normal(32).astype("float32"),
         "w2": rng.standard_normal((32, 32, 3, 3)).astype("float32") * 0.2}
    xv = rng.standard_normal((1, 16, 9, 7)).astype("float32")
    got, ops = _run(mod, p, {"x": xv})
    # one pack of the input, two packed convs with their epilogues, one unpack: the
    # transforms between the convs cancelled
    assert sum("layout_transform" in o for o in ops) == 2, ops
    assert sum("contrib_conv2d_NCHWc" in o for o in ops) == 2, ops
    ref_y = np.maximum(conv2d_nchw_python(xv, p["w1"], 1, 1) + p["b1"][None, :, None, None], 0)
    ref = np.maximum(conv2d_nchw_python(ref_y, p["w2"], 1, 1) + ref_y, 0)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    plain, plain_ops = _run(mod, p, {"x": xv}, disabled=["AlterOpLayout"])
    assert not any("layout_transform" in o for o in plain_ops)
    np.testing.assert_allclose(got, plain, rtol=1e-5, atol=1e-5)


def test_pass_alone(rng):
    x = relay.var("x", shape=(1, 8, 5, 5))
    w = relay.var("w", shape=(8, 8, 1, 1))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(
        relay.Function([x, w], relay.nn.relu(relay.nn.conv2d(x, w)))))
    with tvm.target.Target("llvm"):
        with tvm.transform.PassContext(opt_level=3):
            text = relay.transform.AlterOpLayout()(mod)["main"].astext()
        assert "contrib_conv2d_NCHWc" in text and "layout_transform" in text
    with tvm.transform.PassContext(opt_level=3):  # no x86 target: nothing to alter
        assert "contrib_conv2d_NCHWc" not in relay.transform.AlterOpLayout()(mod)[
            "main"].astext()


def test_resnet18_equal_with_and_without(rng):
    # (relay.testing's ResNet has no 8-layer variant: ResNet-18 on small images)
    mod, params = relay.testing.resnet.get_workload(num_layers=18, batch_size=1,
                                                    image_shape=(3, 33, 33))
    xv = rng.standard_normal((1, 3, 33, 33)).astype("float32")
    got, ops = _run(mod, params, {"data": xv})
    ref, _ = _run(mod, params, {"data": xv}, disabled=["AlterOpLayout"])
    assert any("contrib_conv2d_NCHWc" in o for o in ops)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


def _depthwise_block_net(c_in, c, stride, dilation=(1, 1)):
    x = relay.var("x", shape=(1, c_in, 15, 13))
    w1, wd = relay.var("w1", shape=(c, c_in, 1, 1)), relay.var("wd", shape=(c, 1, 3, 3))
    w2 = relay.var("w2", shape=(8, c, 1, 1))
    y = relay.clip(relay.nn.conv2d(x, w1), 0.0, 6.0)
    y = relay.clip(relay.nn.conv2d(y, wd, strides=(stride, stride), padding=(1, 1),
                                   dilation=dilation, groups=c), 0.0, 6.0)
    return tvm.IRModule.from_expr(relay.Function([x, w1, wd, w2], relay.nn.conv2d(y, w2)))


def test_depthwise_conv_stays_packed_between_pointwise_convs(rng):
    for c_in, c, stride, dilation in ((24, 48, 2, (1, 1)), (5, 12, 1, (2, 2))):
        mod = _depthwise_block_net(c_in, c, stride, dilation)
        p = {"w1": rng.standard_normal((c, c_in, 1, 1)).astype("float32"),
             "wd": rng.standard_normal((c, 1, 3, 3)).astype("float32"),
             "w2": rng.standard_normal((8, c, 1, 1)).astype("float32")}
        xv = rng.standard_normal((1, c_in, 15, 13)).astype("float32")
        got, ops = _run(mod, p, {"x": xv})
        assert sum("contrib_depthwise_conv2d_NCHWc" in o for o in ops) == 1, ops
        # the input packed, the output unpacked, nothing between the three convolutions
        assert sum("layout_transform" in o for o in ops) == 2, ops
        r = np.clip(conv2d_nchw_python(xv, p["w1"], 1, 0), 0, 6)
        wd = np.zeros((c, 1, 2 * dilation[0] + 1, 2 * dilation[1] + 1), "float32")
        wd[:, :, ::dilation[0], ::dilation[1]] = p["wd"]
        r = np.clip(conv2d_nchw_python(r, wd, stride, 1, groups=c), 0, 6)
        ref = conv2d_nchw_python(r, p["w2"], 1, 0)
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
        plain, plain_ops = _run(mod, p, {"x": xv}, disabled=["AlterOpLayout"])
        assert not any("NCHWc" in o for o in plain_ops)
        np.testing.assert_allclose(got, plain, rtol=1e-5, atol=1e-5)


def test_dense_with_constant_weight_runs_over_the_weight_packed_at_build(rng):
    for m, k, n in ((7, 33, 48), (5, 19, 1000), (3, 8, 5)):
        x = relay.var("x", shape=(m, k))
        w, b = relay.var("w", shape=(n, k)), relay.var("b", shape=(n,))
        y = relay.nn.relu(relay.nn.bias_add(relay.nn.dense(x, w), b))
        mod = tvm.IRModule.from_expr(relay.Function([x, w, b], y))
        p = {"w": rng.standard_normal((n, k)).astype("float32"),
             "b": rng.standard_normal(n).astype("float32")}
        xv = rng.standard_normal((m, k)).astype("float32")
        got, ops = _run(mod, p, {"x": xv})
        # one kernel: the weight was packed by FoldConstant, the bias and relu fused
        assert ops == ["fused_nn_contrib_dense_pack_nn_bias_add_nn_relu"], ops
        np.testing.assert_allclose(got, np.maximum(xv @ p["w"].T + p["b"], 0), rtol=1e-4,
                                   atol=1e-4)
        plain, plain_ops = _run(mod, p, {"x": xv}, disabled=["AlterOpLayout"])
        assert plain_ops == ["fused_nn_dense_nn_bias_add_nn_relu"], plain_ops
        np.testing.assert_allclose(got, plain, rtol=1e-5, atol=1e-5)
    # a weight that is an input stays as it is
    x, w = relay.var("x", shape=(2, 3)), relay.var("w", shape=(4, 3))
    xv, wv = (rng.standard_normal(s).astype("float32") for s in ((2, 3), (4, 3)))
    got, ops = _run(tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.dense(x, w))), {},
                    {"x": xv, "w": wv})
    assert ops == ["fused_nn_dense"], ops
    np.testing.assert_allclose(got, xv @ wv.T, rtol=1e-5, atol=1e-5)
