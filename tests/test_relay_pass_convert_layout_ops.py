"""ConvertLayout through the ops whose attributes follow the converted layout (classic's
rules): a lower-rank broadcast operand, bias_add made an add by CanonicalizeOps, argmax,
layer/instance norm, l2_normalize, squeeze, split (as slices), topk, transpose, strided_slice. Each
network converted NHWC -> NCHW (or back) is built and compared with the original on random
inputs, and the op is checked to run in the converted layout."""
import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay import transform
from tvmlite.relay.expr import post_order
from tvmlite.relay.op.registry import Op


def _convert(func, want="NCHW"):
    mod = tvm.IRModule.from_expr(func)
    seq = tvm.transform.Sequential([transform.ConvertLayout({"nn.conv2d": [want, "default"]})])
    with tvm.transform.PassContext(opt_level=3):
        return seq(mod)["main"]


def _calls(func, name):
    return [n for n in post_order(func.body)
            if isinstance(n, relay.Call) and isinstance(n.op, Op) and n.op.name == name]


def _conv_nhwc(rng, c=4, o=6, hw=(5, 7)):
    x = relay.var("x", shape=(1,) + hw + (c,))
    w = relay.const(rng.standard_normal((3, 3, c, o)).astype("float32"))
    y = relay.nn.conv2d(x, w, padding=(1, 1), data_layout="NHWC", kernel_layout="HWIO")
    return x, y


def _check(rng, func, converted, xshape):
    xv = rng.standard_normal(xshape).astype("float32")
    outs_a, _ = build_run(func, {"x": xv}, disabled_pass=["AlterOpLayout"])
    outs_b, _ = build_run(converted, {"x": xv}, disabled_pass=["AlterOpLayout"])
    assert len(outs_a) == len(outs_b)
    for a, b in zip(outs_a, outs_b):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-4)


def test_bias_add_and_lower_rank_operands(rng):
    x, y = _conv_nhwc(rng)
    b = relay.const(rng.standard_normal((6,)).astype("float32"))
    s = relay.const(rng.standard_normal((7, 6)).astype("float32"))  # (W, C)
    y = relay.multiply(relay.nn.bias_add(y, b, axis=3), s)
    func = relay.Function([x], relay.nn.relu(y))
    conv = _convert(func)
    assert not _calls(conv, "nn.bias_add")  # CanonicalizeOps ran first
    # bias (C,) -> (1,1,1,C) NHWC -> NCHW; scale (W,C) -> (1,1,W,C) NHWC -> NCHW
    assert len(_calls(conv, "expand_dims")) == 2
    assert len(_calls(conv, "layout_transform")) == 5  # x, w, two operands, the result
    _check(rng, func, conv, (1, 5, 7, 4))


def test_reductions_and_norms_follow(rng):
    x, y = _conv_nhwc(rng)
    gamma = relay.const(rng.uniform(0.5, 1.5, (6,)).astype("float32"))
    beta = relay.const(rng.standard_normal((6,)).astype("float32"))
    ln = relay.nn.layer_norm(y, gamma, beta, axis=3)
    inorm = relay.nn.instance_norm(ln, gamma, beta, axis=3)
    l2 = relay.nn.l2_normalize(inorm, eps=1e-3, axis=[2, 3])
    am = relay.argmax(l2, axis=[1, 2])  # over H and W: (N, C) left in both layouts
    func = relay.Function([x], relay.Tuple([l2, am]))
    conv = _convert(func)
    assert _calls(conv, "nn.layer_norm")[0].attrs.axis == 1
    assert _calls(conv, "nn.instance_norm")[0].attrs.axis == 1
    assert tuple(_calls(conv, "nn.l2_normalize")[0].attrs.axis) == (3, 1)
    assert tuple(_calls(conv, "argmax")[0].attrs.axis) == (2, 3)
    _check(rng, func, conv, (1, 5, 7, 4))


@pytest.mark.parametrize("axis", [[1], None])
def test_squeeze(rng, axis):
    x, y = _conv_nhwc(rng, hw=(1, 5))
    func = relay.Function([x], relay.squeeze(relay.nn.relu(y), axis=axis))
    conv = _convert(func)
    sq = _calls(conv, "squeeze")[0]
    assert tuple(sq.attrs.axis) == ((2,) if axis else (0, 2))
    _check(rng, func, conv, (1, 1, 5, 4))


def test_split_topk_transpose_strided_slice(rng):
    x, y = _conv_nhwc(rng, o=6)
    parts = relay.split(y, indices_or_sections=(2, 5), axis=-1).astuple()
    top = relay.topk(y, k=2, axis=2)
    tr = relay.transpose(y, axes=[0, 3, 1, 2])  # NHWC -> NCHW by hand
    sl = relay.strided_slice(y, begin=[0, 1], end=[1, -1, 6], strides=[1, 1, 2, 1])
    sl2 = relay.strided_slice(y, begin=[0, 2], end=[1, 5], axes=[0, 3])
    func = relay.Function([x], relay.Tuple([
        relay.TupleGetItem(parts, 0), relay.TupleGetItem(parts, 2), top[0], top[1], tr,
        sl, sl2]))
    conv = _convert(func)
    # (tvmlite's split is strided_slices on one axis each: their axes follow)
    assert _calls(conv, "topk")[0].attrs.axis == 3
    assert tuple(_calls(conv, "transpose")[0].attrs.axes) == (0, 1, 2, 3)
    slices = _calls(conv, "strided_slice")
    assert sorted(tuple(c.attrs.axes) for c in slices if c.attrs.axes is not None) == \
        [(0, 1), (1,), (1,), (1,)]
    s1, s2 = sorted(slices, key=lambda c: c.attrs.axes is not None)[:2]
    assert tuple(s1.attrs.begin) == (0, 0, 1, 0) and tuple(s1.attrs.end) == (1, 6, -1, 6)
    assert tuple(s1.attrs.strides) == (1, 1, 1, 2)
    _check(rng, func, conv, (1, 5, 7, 4))


def _resnetish(rng, c=3):
    x = relay.var("x", shape=(1, c, 12, 10))
    w1 = relay.const(rng.standard_normal((8, c, 3, 3)).astype("float32"))
    w2 = relay.const(rng.standard_normal((8, 8, 3, 3)).astype("float32"))
    w3 = relay.const(rng.standard_normal((8, 8, 1, 1)).astype("float32"))
    y = relay.nn.relu(relay.nn.conv2d(x, w1, padding=(1, 1)))
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2))
    a = relay.nn.relu(relay.nn.conv2d(y, w2, padding=(1, 1)))
    b = relay.nn.relu(relay.nn.conv2d(y, w3))
    return relay.Function([x], relay.nn.global_max_pool2d(relay.add(a, b)))


@pytest.mark.parametrize("c", [3, 4])
def test_packed_nchwc_conversion(rng, c):
    func = _resnetish(rng, c)
    mod = tvm.IRModule.from_expr(func)
    seq = tvm.transform.Sequential([transform.ConvertLayout(
        {"nn.conv2d": ["NCHW4c", "OIHW4i4o"]})])
    with tvm.transform.PassContext(opt_level=3):
        conv = seq(mod)["main"]
    packed = _calls(conv, "nn.contrib_conv2d_NCHWc")
    # the first convolution reads the input variable: packed only if 4 divides its channels
    assert len(packed) == (3 if c == 4 else 2)
    assert all(p.attrs.data_layout == "NCHW4c" for p in packed)
    assert [p.attrs.layout for p in _calls(conv, "nn.global_max_pool2d")] == ["NCHW4c"]
    _check(rng, func, conv, (1, c, 12, 10))


def test_layout_config_skips_layers_and_other_data_layouts(rng):
    func = _resnetish(rng, 4)
    mod = tvm.IRModule.from_expr(func)
    with transform.LayoutConfig(skip_layers=[0, 2]), tvm.transform.PassContext(opt_level=3):
        conv = transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]})(mod)["main"]
    layouts = [c.attrs.data_layout for c in _calls(conv, "nn.conv2d")]
    assert sorted(layouts) == ["NCHW", "NCHW", "NHWC"]
    _check(rng, func, conv, (1, 4, 12, 10))
    # HWNC (default kernel HWOI) is typed and builds (the NCHW convolution between layout
    # transforms)
    with tvm.transform.PassContext(opt_level=3):
        hwnc = transform.ConvertLayout({"nn.conv2d": ["HWNC", "default"]})(mod)["main"]
    assert {c.attrs.kernel_layout for c in _calls(hwnc, "nn.conv2d")} == {"HWOI"}
    _check(rng, func, hwnc, (1, 4, 12, 10))
    for bad in (["NCHW4c", "default"], ["NCHW4c", "OIHW4x"], ["NCDW", "default"],
                ["CHWN", "default"]):
        with pytest.raises(tvm.TVMError, match="ConvertLayout"):
            transform.ConvertLayout({"nn.conv2d": bad})


def test_packed_values_through_broadcasts_and_back_for_other_ops(rng):
    # a bias of lower rank is expanded and packed; bias_add, concatenate, a reduction read
    # the packed value back in NCHW
    x = relay.var("x", shape=(1, 8, 6, 6))
    w = relay.const(rng.standard_normal((8, 8, 3, 3)).astype("float32"))
    b = relay.const(rng.standard_normal((8, 1, 1)).astype("float32"))
    b1 = relay.const(rng.standard_normal((8,)).astype("float32"))
    y = relay.nn.relu(relay.add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    z = relay.nn.bias_add(y, b1)
    s = relay.sum(y, axis=[1])
    c = relay.concatenate([y, z], axis=1)
    func = relay.Function([x], relay.Tuple([c, s]))
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=3):
        conv = transform.ConvertLayout({"nn.conv2d": ["NCHW4c", "OIHW4i4o"]})(mod)["main"]
    assert _calls(conv, "nn.contrib_conv2d_NCHWc")
    assert _calls(conv, "nn.bias_add")[0].attrs.axis == 1  # on the NCHW value
    _check(rng, func, conv, (1, 8, 6, 6))


def test_operands_of_ones_broadcast_as_they_are(rng):
    x, y = _conv_nhwc(rng)
    m1 = relay.const(rng.standard_normal((1,)).astype("float32"))
    m2 = relay.const(rng.standard_normal((1, 1)).astype("float32"))
    func = relay.Function([x], relay.multiply(relay.multiply(m1, relay.nn.relu(y)), m2))
    conv = _convert(func)
    assert not _calls(conv, "expand_dims")
    assert len(_calls(conv, "layout_transform")) == 3  # x, w, the result
    _check(rng, func, conv, (1, 5, 7, 4))


def test_single_channel_operands_of_packed_values(rng):
    x = relay.var("x", shape=(1, 8, 5, 6))
    w = relay.const(rng.standard_normal((8, 8, 1, 1)).astype("float32"))
    z3 = relay.const(rng.standard_normal((1, 5, 6)).astype("float32"))
    z4 = relay.const(rng.standard_normal((1, 1, 5, 6)).astype("float32"))
    y = relay.multiply(relay.add(relay.nn.conv2d(x, w), z3), z4)
    func = relay.Function([x], y)
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=3):
        conv = transform.ConvertLayout({"nn.conv2d": ["NCHW4c", "OIHW4i4o"]})(mod)["main"]
    dsts = sorted(t.attrs.dst_layout for t in _calls(conv, "layout_transform"))
    assert dsts == ["NCHW", "NCHW1c", "NCHW1c", "NCHW4c", "OIHW4i4o"]
    _check(rng, func, conv, (1, 8, 5, 6))


@pytest.mark.parametrize("extra", [4, 3])
def test_concatenate_of_packed_values(rng, extra):
    x = relay.var("x", shape=(1, 8, 5, 6))
    w1 = relay.const(rng.standard_normal((8, 8, 3, 3)).astype("float32"))
    w2 = relay.const(rng.standard_normal((4, 8, 1, 1)).astype("float32"))
    e = relay.const(rng.standard_normal((1, extra, 5, 6)).astype("float32"))
    c = relay.concatenate([relay.nn.conv2d(x, w1, padding=(1, 1)), relay.nn.conv2d(x, w2), e],
                          axis=1)
    func = relay.Function([x], relay.nn.relu(c))
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=3):
        conv = transform.ConvertLayout({"nn.conv2d": ["NCHW4c", "OIHW4i4o"]})(mod)["main"]
    cat = _calls(conv, "concatenate")[0]
    # packed when the block divides every field's channels, else in NCHW
    assert len(cat.checked_type.shape) == (5 if extra == 4 else 4)
    _check(rng, func, conv, (1, 8, 5, 6))


def test_reduction_of_a_packed_value_keeping_dims(rng):
    x = relay.var("x", shape=(1, 8, 5, 6))
    w = relay.const(rng.standard_normal((8, 8, 3, 3)).astype("float32"))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    s1 = relay.sum(y, axis=[1], keepdims=True)       # over C: packed by 1
    s2 = relay.max(y, axis=[2, 3], keepdims=True)    # over H, W: still packed by 4
    func = relay.Function([x], relay.Tuple([relay.multiply(s1, relay.const(2.0)), s2]))
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=3):
        conv = transform.ConvertLayout({"nn.conv2d": ["NCHW4c", "OIHW4i4o"]})(mod)["main"]
    assert tuple(_calls(conv, "sum")[0].attrs.axis) == (1, 4)
    assert tuple(_calls(conv, "max")[0].attrs.axis) == (2, 3)
    srcs = sorted(t.attrs.src_layout for t in _calls(conv, "layout_transform"))
    assert srcs == ["NCHW", "NCHW1c", "NCHW4c", "OIHW"]
    _check(rng, func, conv, (1, 8, 5, 6))
