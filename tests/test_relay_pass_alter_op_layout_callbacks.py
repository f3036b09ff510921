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
