"""relay.transform.FoldExplicitPadding: pads folded into convolutions and pools compute the
same numbers; pads that cannot fold stay."""
import numpy as np

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay import transform

RNG = np.random.default_rng(11)


def _fold(f):
    return transform.FoldExplicitPadding()(
        transform.InferType()(tvm.IRModule.from_expr(f)))["main"]


def _ops(e):
    out = []
    relay.analysis.post_order_visit(e, lambda n: out.append(n.op.name)
                                    if isinstance(n, relay.Call) else None)
    return out


def test_conv_and_pools_fold_with_the_same_numbers():
    x = relay.var("x", shape=(1, 3, 9, 7), dtype="float32")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="float32")
    c = relay.nn.conv2d(relay.nn.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1))), w, padding=(1, 1))
    lowest = float(np.finfo("float32").min)
    m = relay.nn.max_pool2d(relay.nn.pad(c, ((0, 0), (0, 0), (1, 1), (1, 0)), lowest),
                            pool_size=(3, 3))
    a = relay.nn.avg_pool2d(relay.nn.pad(m, ((0, 0), (0, 0), (0, 1), (1, 1))),
                            pool_size=(2, 2))
    f = relay.Function([x, w], a)
    new = _fold(f)
    assert "nn.pad" not in _ops(new)
    conv = new.body.args[0].args[0]
    assert tuple(conv.attrs.padding) == (2, 1, 3, 2)
    assert new.body.attrs.count_include_pad
    inputs = {"x": RNG.standard_normal((1, 3, 9, 7)).astype("float32"),
              "w": RNG.standard_normal((4, 3, 3, 3)).astype("float32")}
    want = build_run(f, inputs)[0][0]
    np.testing.assert_allclose(build_run(new, inputs)[0][0], want, rtol=1e-5, atol=1e-5)


def test_unfoldable_pads_stay():
    x = relay.var("x", shape=(1, 2, 6, 6), dtype="float32")
    w = relay.var("w", shape=(2, 2, 3, 3), dtype="float32")
    cases = [
        relay.nn.conv2d(relay.nn.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), 1.0), w),  # value
        relay.nn.conv2d(relay.nn.pad(x, ((0, 0), (1, 0), (1, 1), (1, 1))), relay.var(
            "w3", shape=(2, 3, 3, 3), dtype="float32")),  # pads the channels
        relay.nn.max_pool2d(relay.nn.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), (2, 2)),  # 0
        relay.nn.avg_pool2d(relay.nn.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), 0.0, "edge"),
                            (2, 2)),
        relay.nn.avg_pool2d(relay.nn.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), (2, 2),
                            padding=(1, 1)),  # excluded padding of its own
    ]
    for e in cases:
        f = relay.Function(relay.analysis.free_vars(e), e)
        assert "nn.pad" in _ops(_fold(f))


def test_qnn_conv2d_folds_a_pad_of_its_input_zero_point():
    """A pad by the input zero point becomes qnn.conv2d's padding (classic), the same
    integers; a pad by another value stays."""
    x = relay.var("x", shape=(1, 7, 5, 3), dtype="int8")
    w = relay.var("w", shape=(3, 3, 3, 4), dtype="int8")

    def qconv(pad_value):
        pad = relay.nn.pad(x, [[0, 0], [1, 2], [1, 0], [0, 0]], pad_value=pad_value)
        return relay.Function([x, w], relay.qnn.op.conv2d(
            pad, w, relay.const(3, "int32"), relay.const(1, "int32"), relay.const(0.5),
            relay.const(0.25), kernel_size=(3, 3), channels=4, padding=(1, 1),
            data_layout="NHWC", kernel_layout="HWIO"))

    folded = _fold(qconv(3))
    assert _ops(folded) == ["qnn.conv2d"]
    assert [int(p) for p in folded.body.attrs.padding] == [2, 2, 3, 1]
    xv = RNG.integers(-20, 20, (1, 7, 5, 3)).astype("int8")
    wv = RNG.integers(-5, 5, (3, 3, 3, 4)).astype("int8")
    (ref,), _ = build_run(qconv(3), {"x": xv, "w": wv})
    (out,), _ = build_run(folded, {"x": xv, "w": wv})
    np.testing.assert_array_equal(out, ref)
    assert "nn.pad" in _ops(_fold(qconv(2)))
