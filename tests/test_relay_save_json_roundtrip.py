"""``tvm.ir.save_json``/``load_json`` of relay expressions (operators by name, attributes,
constants of any rank) and pickling of NDArrays: what classic's ir_nodes tests round-trip."""
import pickle

import numpy as np

import tvmlite as tvm
from tvmlite import relay


def test_relay_expressions_round_trip(rng):
    x = relay.var("x", shape=(1, 3, 6, 6))
    w = relay.const(rng.standard_normal((4, 3, 3, 3)).astype("float32"))
    y = relay.nn.conv2d(x, w, strides=(2, 2), padding=(1, 1), channels=4, kernel_size=(3, 3))
    y = relay.add(y, relay.const(np.int64(10)).astype("float32"))
    f = relay.Function([x], relay.Let(relay.var("t"), y, relay.nn.relu(y)))
    back = tvm.ir.load_json(tvm.ir.save_json(f))
    assert tvm.ir.structural_equal(back, f, map_free_vars=True)
    conv = [n for n in relay.expr.post_order(back.body)
            if isinstance(n, relay.Call) and getattr(n.op, "name", "") == "nn.conv2d"][0]
    assert conv.op is relay.op.get("nn.conv2d")  # the registry's operator, by name
    assert tuple(conv.attrs.strides) == (2, 2) and conv.attrs.channels == 4
    np.testing.assert_array_equal(conv.args[1].data.numpy(), w.data.numpy())


def test_ndarray_pickle(rng):
    for arr in (rng.standard_normal((3, 4)).astype("float32"), np.array(7, "int64"),
                rng.integers(0, 9, (4, 6)).astype("int32")[:, ::2]):
        nd = tvm.nd.array(arr)
        back = pickle.loads(pickle.dumps(nd))
        assert back.dtype == nd.dtype and back.shape == nd.shape and back.device == nd.device
        np.testing.assert_array_equal(back.numpy(), arr)
