"""User ``FInferCorrectLayout`` callbacks in ConvertLayout (classic's layout rewriter: the
callback is asked for the original, then the converted input layouts; inputs are moved to
the layouts it wants, its output keeps the new layout), and ``tvm.tir.layout``. Each network
is built before and after and compared on random inputs."""
import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.relay import transform
from tvmlite.relay.expr import post_order
from tvmlite.relay.op.registry import Op
from tvmlite.relay.testing.temp_op_attr import TempOpAttr
from tvmlite.relay.transform.infer_layout_utils import InferCorrectLayoutOutput


def _net(rng):
    x = relay.var("x", shape=(1, 5, 6, 4))
    w = relay.const(rng.standard_normal((3, 3, 4, 8)).astype("float32"))
    y = relay.nn.conv2d(x, w, padding=(1, 1), data_layout="NHWC", kernel_layout="HWIO")
    y = relay.sigmoid(y)
    return relay.Function([x], relay.nn.batch_flatten(relay.exp(y)))


def _convert(func):
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=3):
        return transform.ConvertLayout({"nn.conv2d": ["NCHW", "default"]})(mod)["main"]


def _transforms(func):
    return [(n.attrs.src_layout, n.attrs.dst_layout) for n in post_order(func.body)
            if isinstance(n, relay.Call) and isinstance(n.op, Op)
            and n.op.name == "layout_transform"]


def _same(rng, a, b):
    xv = rng.standard_normal((1, 5, 6, 4)).astype("float32")
    (want,), _ = build_run(a, {"x": xv}, disabled_pass=["AlterOpLayout"])
    (got,), _ = build_run(b, {"x": xv}, disabled_pass=["AlterOpLayout"])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_callback_follows_the_new_layout(rng):
    calls = []

    def follow(attrs, new_in, old_in, types):
        calls.append((None if new_in is None else [str(x) for x in new_in],
                      [str(x) for x in old_in]))
        ret = new_in[0] if new_in else old_in[0]
        return InferCorrectLayoutOutput([ret], [ret], attrs)

    func = _net(rng)
    with TempOpAttr("sigmoid", "FInferCorrectLayout", follow):
        out = _convert(func)
    # first the original layouts, then the converted ones
    assert calls == [(None, ["NHWC"]), (["NCHW"], ["NHWC"])]
    # sigmoid stays in NCHW; exp has no callback (built-in rule: element-wise)
    assert _transforms(out) == [("NHWC", "NCHW"), ("HWIO", "OIHW"), ("NCHW", "NHWC")]
    _same(rng, func, out)


def test_callback_wanting_the_original_layout(rng):
    def original(attrs, new_in, old_in, types):
        return InferCorrectLayoutOutput([old_in[0]], [old_in[0]], attrs)

    func = _net(rng)
    with TempOpAttr("sigmoid", "FInferCorrectLayout", original):
        out = _convert(func)
    sig = [n for n in post_order(out.body) if isinstance(n, relay.Call)
           and isinstance(n.op, Op) and n.op.name == "sigmoid"][0]
    # its input is moved back before it; nothing after it is converted
    assert sig.args[0].op.name == "layout_transform"
    assert (sig.args[0].attrs.src_layout, sig.args[0].attrs.dst_layout) == ("NCHW", "NHWC")
    assert len(_transforms(out)) == 3
    _same(rng, func, out)


def test_callback_giving_up(rng):
    def undefined(attrs, new_in, old_in, types):
        return InferCorrectLayoutOutput([tvm.tir.layout("")], [tvm.tir.layout("")], attrs)

    func = _net(rng)
    with TempOpAttr("sigmoid", "FInferCorrectLayout", undefined):
        out = _convert(func)
    assert len(_transforms(out)) == 3  # the conv's result goes back before sigmoid
    _same(rng, func, out)


def test_tir_layout():
    lay = tvm.tir.layout("NCHW16c")
    assert str(lay) == "NCHW16c" and len(lay) == 5 and lay[4] == "c"
    assert lay.index_of("C") == 1 and lay.index_of("c") == 4 and lay.index_of("D") == -1
    assert lay.factor_of("C") == 16 and lay.factor_of("H") == -1
    assert "c" in lay and "D" not in lay and lay.ndim_primal == 4
    assert tvm.tir.layout("") is None and tvm.tir.layout("__undef__") is None
    assert tvm.tir.layout("NHWC") == "NHWC"
    for bad in ("NCHW16", "NCHWc", "NCH16W", "NCHWw16c", "NCHWC", "NCHW4d"):
        with pytest.raises(TVMError):
            tvm.tir.layout(bad)
