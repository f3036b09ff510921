"""AlterOpLayout with Python ``FTVMAlterOpLayout`` callbacks (classic's
``register_alter_op_layout``/``TempOpAttr``): the callback's replacement is used, None keeps
the call, the callbacks replace the built-in x86 rules, the layouts a convolution's callback
chooses are carried on, and another op's replacement of another type is refused. Results are
built and compared with numpy."""
import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay
from tvmlite._classic import UnsupportedError
from tvmlite.relay import transform
from tvmlite.relay.expr import post_order
from tvmlite.relay.op.registry import Op
from tvmlite.relay.testing.temp_op_attr import TempOpAttr
from tvmlite.topi.testing import conv2d_nchw_python


def _net():
    x = relay.var("x", shape=(1, 4, 7, 6))
    w = relay.var("w", shape=(8, 4, 3, 3))
    y = relay.nn.relu(relay.nn.conv2d(x, w, channels=8, kernel_size=(3, 3), padding=(1, 1)))
    return relay.Function([x, w], y)


def _alter(func, target="llvm"):
    with tvm.target.Target(target), tvm.transform.PassContext(opt_level=3):
        return transform.AlterOpLayout()(tvm.IRModule.from_expr(func))["main"]


def _ops(func):
    return [n.op.name for n in post_order(func.body)
            if isinstance(n, relay.Call) and isinstance(n.op, Op)]


def test_callback_replacement_is_used(rng):
    seen = []

    def double_weight(attrs, inputs, tinfos, out_type):
        seen.append(([tuple(t.shape) for t in tinfos], tuple(out_type.shape)))
        data, weight = inputs
        return relay.nn.conv2d(data, relay.multiply(weight, relay.const(2.0)), **attrs)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", double_weight):
        out = _alter(_net())
    assert seen == [([(1, 4, 7, 6), (8, 4, 3, 3)], (1, 8, 7, 6))]
    # the callback stands for the x86 rules: no packed convolution
    assert _ops(out) == ["multiply", "nn.conv2d", "nn.relu"]
    xv = rng.standard_normal((1, 4, 7, 6)).astype("float32")
    wv = rng.standard_normal((8, 4, 3, 3)).astype("float32")
    (got,), _ = build_run(out, {"x": xv, "w": wv}, disabled_pass=["AlterOpLayout"])
    np.testing.assert_allclose(got, np.maximum(conv2d_nchw_python(xv, 2 * wv, 1, 1), 0),
                               rtol=1e-4, atol=1e-4)


def test_none_keeps_the_call_and_no_callback_keeps_x86_rules():
    called = []

    def keep(attrs, inputs, tinfos, out_type):
        called.append(True)

    with TempOpAttr("nn.relu", "FTVMAlterOpLayout", keep):
        out = _alter(_net())
    assert called and tvm.ir.structural_equal(
        out, transform.InferType()(tvm.IRModule.from_expr(_net()))["main"])
    # without callbacks the built-in x86 rules pack the convolution again
    assert "nn.contrib_conv2d_NCHWc" in _ops(_alter(_net()))


def test_a_callback_changing_the_layouts_carries_them_on(rng):
    # the callback asks for NHWC data and an HWIO kernel: the inputs are transformed, relu
    # follows the new layout, the result comes back in NCHW (classic's layout rewriting)
    def nhwc(attrs, inputs, tinfos, out_type):
        data, weight = inputs
        new = dict(attrs)
        new["data_layout"], new["kernel_layout"] = "NHWC", "HWIO"
        return relay.nn.conv2d(data, weight, **new)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", nhwc):
        out = _alter(_net())
    conv = [n for n in post_order(out.body) if isinstance(n, relay.Call)
            and isinstance(n.op, Op) and n.op.name == "nn.conv2d"][0]
    assert (conv.attrs.data_layout, conv.attrs.kernel_layout) == ("NHWC", "HWIO")
    assert _ops(out) == ["layout_transform", "layout_transform", "nn.conv2d", "nn.relu",
                         "layout_transform"]
    xv = rng.standard_normal((1, 4, 7, 6)).astype("float32")
    wv = rng.standard_normal((8, 4, 3, 3)).astype("float32")
    (got,), _ = build_run(out, {"x": xv, "w": wv}, disabled_pass=["AlterOpLayout"])
    np.testing.assert_allclose(got, np.maximum(conv2d_nchw_python(xv, wv, 1, 1), 0),
                               rtol=1e-4, atol=1e-4)


def test_a_replacement_of_another_type_is_refused():
    def transposed(attrs, inputs, tinfos, out_type):
        return relay.transpose(relay.nn.relu(inputs[0]), axes=[0, 1, 3, 2])

    with TempOpAttr("nn.relu", "FTVMAlterOpLayout", transposed):
        with pytest.raises(UnsupportedError, match="changes its result's type"):
            _alter(_net())


def test_temp_op_attr_leaves_the_registry_as_it_was():
    from tvmlite.relay.op import registry
    before = registry.generation()
    with TempOpAttr("nn.relu", "FTVMAlterOpLayout", lambda *args: None):
        assert registry.generation() != before
        assert registry.get("nn.relu").has_attr("FTVMAlterOpLayout")
    assert registry.generation() == before
    assert not registry.get("nn.relu").has_attr("FTVMAlterOpLayout")


def _to_nchw16c(attrs, inputs, tinfos, out_type):
    data, weight = inputs
    return relay.nn.conv2d(data, weight, **dict(attrs, data_layout="NCHW16c",
                                                kernel_layout="OIHW16i16o"))


def _same_as_unaltered(func, callback, inputs):
    """``func`` altered by ``callback``; its numbers equal the unaltered function's."""
    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", callback):
        out = _alter(func)
    (ref,), _ = build_run(func, inputs, disabled_pass=["AlterOpLayout"])
    (got,), _ = build_run(out, inputs, disabled_pass=["AlterOpLayout"])
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    return out


def test_two_convolutions_of_one_value_share_its_transform(rng):
    """Classic: the same value transformed to the same layout once, for both convolutions;
    an ``nn.pad`` of the spatial axes and a global pool stay packed."""
    x = relay.var("x", shape=(1, 32, 9, 7))
    w1, w2 = relay.var("w1", shape=(16, 32, 3, 3)), relay.var("w2", shape=(16, 32, 1, 1))
    y = relay.add(relay.nn.relu(relay.nn.conv2d(x, w1, channels=16, kernel_size=(3, 3),
                                                padding=(1, 1))),
                  relay.nn.conv2d(x, w2, channels=16, kernel_size=(1, 1)))
    y = relay.nn.global_max_pool2d(relay.nn.pad(y, ((0, 0), (0, 0), (1, 2), (0, 1))))
    inputs = {"x": rng.standard_normal((1, 32, 9, 7)).astype("float32"),
              "w1": rng.standard_normal((16, 32, 3, 3)).astype("float32"),
              "w2": rng.standard_normal((16, 32, 1, 1)).astype("float32")}
    out = _same_as_unaltered(relay.Function([x, w1, w2], y), _to_nchw16c, inputs)
    # x once (not once per convolution), each kernel, the result
    assert _ops(out).count("layout_transform") == 4
    of_x = [n for n in post_order(out.body) if isinstance(n, relay.Call)
            and getattr(n.op, "name", "") == "layout_transform" and n.args[0] is out.params[0]]
    assert len(of_x) == 1
    pad = [n for n in post_order(out.body) if isinstance(n, relay.Call)
           and getattr(n.op, "name", "") == "nn.pad"][0]
    assert [tuple(int(v) for v in p) for p in pad.attrs.pad_width] == \
        [(0, 0), (0, 0), (1, 2), (0, 1), (0, 0)]


def test_a_pad_of_the_channels_reads_the_original_layout(rng):
    x = relay.var("x", shape=(1, 16, 5, 5))
    w = relay.var("w", shape=(16, 16, 3, 3))
    y = relay.nn.pad(relay.nn.conv2d(x, w, channels=16, kernel_size=(3, 3)),
                     ((0, 0), (1, 1), (0, 0), (0, 0)))
    inputs = {"x": rng.standard_normal((1, 16, 5, 5)).astype("float32"),
              "w": rng.standard_normal((16, 16, 3, 3)).astype("float32")}
    out = _same_as_unaltered(relay.Function([x, w], y), _to_nchw16c, inputs)
    assert _ops(out)[-2:] == ["layout_transform", "nn.pad"]


def test_strided_slice_with_axes_in_whole_blocks(rng):
    """A strided_slice of the channels of an NCHW4c value: in blocks when the bounds are
    multiples of the block (classic), else in the original layout; the same numbers."""
    def nchw4c(attrs, inputs, tinfos, out_type):
        data, weight = inputs
        return relay.nn.conv2d(data, weight, **dict(attrs, data_layout="NCHW4c",
                                                    kernel_layout="OIHW4i4o"))

    for begin, end, packed in ((4, 12, True), (3, 12, False)):
        x = relay.var("x", shape=(1, 8, 6, 5))
        w = relay.var("w", shape=(16, 8, 3, 3))
        y = relay.nn.conv2d(x, w, channels=16, kernel_size=(3, 3), padding=(1, 1))
        y = relay.strided_slice(y, begin=[0, begin], end=[1, end], strides=[1, 1], axes=[0, 1])
        inputs = {"x": rng.standard_normal((1, 8, 6, 5)).astype("float32"),
                  "w": rng.standard_normal((16, 8, 3, 3)).astype("float32")}
        out = _same_as_unaltered(relay.Function([x, w], y), nchw4c, inputs)
        sl = [n for n in post_order(out.body) if isinstance(n, relay.Call)
              and getattr(n.op, "name", "") == "strided_slice"][0]
        if packed:
            assert [int(v) for v in sl.attrs.begin] == [0, 1]
            assert [int(v) for v in sl.attrs.end] == [1, 3]
        else:
            assert [int(v) for v in sl.attrs.begin] == [0, begin]
            assert _ops(out)[-1] == "strided_slice"


def test_broadcast_on_a_reblocked_value(rng):
    """NCHW4c data re-blocked to NCHW2c by the callback: a bias of whole blocks is
    re-blocked alike, the add stays in NCHW2c (classic)."""
    def reblock(attrs, inputs, tinfos, out_type):
        data, weight = inputs
        return relay.nn.conv2d(data, weight, **dict(attrs, data_layout="NCHW2c",
                                                    kernel_layout="OIHW2i2o"))
    x = relay.var("x", shape=(1, 2, 7, 6, 4))
    w = relay.var("w", shape=(1, 2, 3, 3, 4, 4))
    b = relay.var("b", shape=(1, 1, 1, 1, 4))
    y = relay.add(relay.nn.conv2d(x, w, channels=4, kernel_size=(3, 3), data_layout="NCHW4c",
                                  kernel_layout="OIHW4i4o"), b)
    inputs = {"x": rng.standard_normal((1, 2, 7, 6, 4)).astype("float32"),
              "w": rng.standard_normal((1, 2, 3, 3, 4, 4)).astype("float32"),
              "b": rng.standard_normal((1, 1, 1, 1, 4)).astype("float32")}
    out = _same_as_unaltered(relay.Function([x, w, b], y), reblock, inputs)
    assert _ops(out) == ["layout_transform", "layout_transform", "nn.conv2d",
                         "layout_transform", "add", "layout_transform"]
