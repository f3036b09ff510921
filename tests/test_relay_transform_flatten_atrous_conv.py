"""relay.transform.FlattenAtrousConv: space_to_batch_nd - conv2d - batch_to_space_nd becomes
one dilated conv2d computing the same numbers."""
import numpy as np
import pytest

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay import transform


def _atrous(shape_x, block, kernel, channels=4):
    data = relay.var("data", shape=shape_x, dtype="float32")
    w = relay.var("w", shape=(kernel, kernel, shape_x[3], channels), dtype="float32")
    k = (kernel - 1) * block
    pads = [[k // 2, k - k // 2 + (-shape_x[1]) % block],
            [k // 2, k - k // 2 + (-shape_x[2]) % block]]
    y = relay.nn.space_to_batch_nd(data, block_shape=[block, block], paddings=pads)
    y = relay.nn.conv2d(y, w, kernel_size=(kernel, kernel), channels=channels,
                        data_layout="NHWC", kernel_layout="HWIO")
    crops = [[0, (-shape_x[1]) % block], [0, (-shape_x[2]) % block]]
    y = relay.nn.batch_to_space_nd(y, block_shape=[block, block], crops=crops)
    return relay.Function([data, w], relay.nn.relu(y))


@pytest.mark.parametrize("shape_x,block,kernel", [((1, 8, 8, 3), 2, 3), ((2, 9, 7, 5), 3, 3)])
def test_flatten_matches_numbers(shape_x, block, kernel):
    f = _atrous(shape_x, block, kernel)
    mod = transform.InferType()(tvm.IRModule.from_expr(f))
    new = transform.FlattenAtrousConv()(mod)["main"]
    ops = []
    relay.analysis.post_order_visit(new.body, lambda n: ops.append(n.op.name)
                                    if isinstance(n, relay.Call) else None)
    assert ops == ["nn.conv2d", "nn.relu"]
    conv = new.body.args[0]
    assert tuple(conv.attrs.dilation) == (block, block)
    rng = np.random.default_rng(block)
    inputs = {"data": rng.standard_normal(shape_x).astype("float32"),
              "w": rng.standard_normal((kernel, kernel, shape_x[3], 4)).astype("float32")}
    want = build_run(f, inputs, disabled_pass=["FlattenAtrousConv"])[0][0]
    got, factory = build_run(new, inputs)
    np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-4)
    # relay.build flattens it as well (classic's default pipeline)
    _, built = build_run(f, inputs)
    assert "space_to_batch" not in built.get_graph_json()


def test_nchw_and_interrupted_chains_are_left():
    x = relay.var("x", shape=(1, 8, 8, 4), dtype="float32")
    w = relay.var("w", shape=(3, 3, 4, 4), dtype="float32")
    y = relay.nn.space_to_batch_nd(x, block_shape=[2, 2], paddings=[[2, 2], [2, 2]])
    y = relay.nn.relu(y)  # an op between space_to_batch_nd and the conv
    y = relay.nn.conv2d(y, w, kernel_size=(3, 3), channels=4, data_layout="NHWC",
                        kernel_layout="HWIO")
    y = relay.nn.batch_to_space_nd(y, block_shape=[2, 2], crops=[[0, 0], [0, 0]])
    mod = transform.InferType()(tvm.IRModule.from_expr(relay.Function([x, w], y)))
    out = transform.FlattenAtrousConv()(mod)
    assert tvm.ir.structural_equal(out["main"], mod["main"])
