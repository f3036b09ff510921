"""ConvertLayout: NCHW networks converted to NHWC and NHWC networks to NCHW compute the same
numbers as the original (and numpy), with one ``layout_transform`` at each boundary of a
converted chain (constants' transforms folded), and AlterOpLayout still packs afterwards."""
import numpy as np
import pytest
from relay_helpers import build_run, kernel_names
from test_relay_conv2d_nhwc import NHWC_TO_NCHW, nhwc_network

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.relay.build_module import bind_params_by_name
from tvmlite.topi.testing import conv2d_nchw_python


def _convert(func, params, desired, fold=True):
    mod = tvm.IRModule.from_expr(func)
    if params:
        mod["main"] = bind_params_by_name(mod["main"], params)
    passes = [relay.transform.ConvertLayout(desired)]
    if fold:
        passes.append(relay.transform.FoldConstant())
    with tvm.transform.PassContext(opt_level=3):
        return tvm.transform.Sequential(passes)(mod)


def _ops(mod):
    names = []
    relay.analysis.post_order_visit(mod["main"], lambda n: names.append(n.op.name) if isinstance(
        n, relay.Call) and hasattr(n.op, "name") else None)
    return names


def _run(mod, inputs, disabled=()):
    (out,), factory = build_run(mod["main"], inputs, disabled_pass=disabled)
    return out, factory


def nchw_chain(rng, c=6, h=11, w=9):
    """conv+bias+relu -> conv * per-channel scale + residual -> pad -> max pool -> conv
    (grouped) + clip -> depthwise -> concat -> avg pool -> spatial mean -> flatten -> dense."""
    p = {"w1": rng.standard_normal((8, c, 3, 3)).astype("float32") * 0.3,
         "b1": rng.standard_normal(8).astype("float32"),
         "w2": rng.standard_normal((8, 8, 3, 3)).astype("float32") * 0.3,
         "s": rng.standard_normal((8, 1, 1)).astype("float32"),
         "w3": rng.standard_normal((8, 4, 1, 1)).astype("float32") * 0.3,
         "wd": rng.standard_normal((8, 1, 3, 3)).astype("float32") * 0.3,
         "wf": rng.standard_normal((5, 16)).astype("float32")}
    x = relay.var("x", shape=(1, c, h, w))
    v = {k: relay.const(a) for k, a in p.items()}
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, v["w1"], padding=(1, 1)), v["b1"]))
    z = relay.add(relay.multiply(relay.nn.conv2d(y, v["w2"], padding=(1, 1)), v["s"]), y)
    z = relay.nn.pad(z, ((0, 0), (0, 0), (1, 0), (0, 1)))
    z = relay.nn.max_pool2d(z, (2, 2), (2, 2))
    g = relay.clip(relay.nn.conv2d(z, v["w3"], groups=2), 0.0, 6.0)
    d = relay.nn.conv2d(g, v["wd"], padding=(1, 1), groups=8)
    cat = relay.concatenate([g, d], axis=1)
    cat = relay.nn.avg_pool2d(cat, (3, 3), (1, 1), padding=(1, 1))
    m = relay.mean(cat, axis=[2, 3])
    out = relay.nn.dense(m, v["wf"])
    return relay.Function([x], out), p


def _nchw_chain_ref(p, xv):
    y = np.maximum(conv2d_nchw_python(xv, p["w1"], 1, 1) + p["b1"][:, None, None], 0)
    z = conv2d_nchw_python(y, p["w2"], 1, 1) * p["s"] + y
    z = np.pad(z, ((0, 0), (0, 0), (1, 0), (0, 1)))
    n, c, h, w = z.shape
    z = z[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    g = np.clip(conv2d_nchw_python(z, p["w3"], 1, 0, groups=2), 0, 6)
    d = conv2d_nchw_python(g, p["wd"], 1, 1, groups=8)
    cat = np.concatenate([g, d], axis=1)
    pad = np.pad(cat, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ones = np.pad(np.ones_like(cat), ((0, 0), (0, 0), (1, 1), (1, 1)))
    h, w = cat.shape[2:]
    s = sum(pad[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3))
    cnt = sum(ones[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3))
    return (s / cnt).mean(axis=(2, 3)) @ p["wf"].T


def test_nchw_to_nhwc_chain(rng):
    func, p = nchw_chain(rng)
    mod = _convert(func, None, {"nn.conv2d": ["NHWC", "default"]})
    ops = _ops(mod)
    convs = [n for n in ops if n == "nn.conv2d"]
    assert len(convs) == 4
    text = mod["main"].astext()
    assert text.count('data_layout="NHWC"') == 4 and 'kernel_layout="HWOI"' in text
    assert ', layout="NHWC"' in text  # the pools follow
    # one transform in (the input), one out (before the spatial mean's 2-D result needs
    # none: NC either way); the weights' transforms are folded
    assert ops.count("layout_transform") == 1, text
    xv = rng.standard_normal((1, 6, 11, 9)).astype("float32")
    got, _ = _run(mod, {"x": xv})
    want, _ = _run(tvm.IRModule.from_expr(func), {"x": xv})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got, _nchw_chain_ref(p, xv), rtol=1e-4, atol=1e-4)


def test_nhwc_to_nchw_network_then_alter_op_layout(rng):
    func, p, ref = nhwc_network(rng)
    mod = _convert(func, p, {"nn.conv2d": ["NCHW", "default"]})
    ops = _ops(mod)
    text = mod["main"].astext()
    assert 'data_layout="NHWC"' not in text and ', layout="NHWC"' not in text
    # in: the input; out: before batch_flatten (global pool result back to NHWC)
    assert ops.count("layout_transform") == 2, text
    xv = rng.standard_normal((1, 13, 11, 5)).astype("float32")
    got, factory = _run(mod, {"x": xv})
    np.testing.assert_allclose(got, ref(xv), rtol=1e-4, atol=1e-4)
    # AlterOpLayout (opt_level 3, llvm) packs the now-NCHW convolutions
    assert any("contrib_conv2d_NCHWc" in k for k in kernel_names(factory))
    plain, _ = _run(mod, {"x": xv}, disabled=["AlterOpLayout"])
    np.testing.assert_allclose(got, plain, rtol=1e-4, atol=1e-4)


def test_round_trip_cancels(rng):
    func, p = nchw_chain(rng)
    mod = _convert(func, None, {"nn.conv2d": ["NHWC", "default"]})
    back = _convert(mod["main"], None, {"nn.conv2d": ["NCHW", "default"],
                                        "nn.max_pool2d": ["NCHW"], "nn.avg_pool2d": ["NCHW"]})
    text = back["main"].astext()
    assert 'NHWC"' not in text.replace('src_layout="NHWC"', ""), text
    xv = rng.standard_normal((1, 6, 11, 9)).astype("float32")
    got, _ = _run(back, {"x": xv})
    np.testing.assert_allclose(got, _nchw_chain_ref(p, xv), rtol=1e-4, atol=1e-4)


def test_minimal_transforms_for_a_plain_chain(rng):
    x = relay.var("x", shape=(1, 4, 7, 5))
    y = x
    for k in range(5):
        w = relay.const(rng.standard_normal((4, 4, 3, 3)).astype("float32") * 0.3)
        y = relay.nn.relu(relay.nn.conv2d(y, w, padding=(1, 1)))
        if k == 2:
            y = relay.nn.max_pool2d(y, (2, 2), (1, 1))
    func = relay.Function([x], y)
    mod = _convert(func, None, {"nn.conv2d": ["NHWC"]})
    assert _ops(mod).count("layout_transform") == 2  # in and out only
    xv = rng.standard_normal((1, 4, 7, 5)).astype("float32")
    np.testing.assert_allclose(_run(mod, {"x": xv})[0],
                               _run(tvm.IRModule.from_expr(func), {"x": xv})[0], rtol=1e-4,
                               atol=1e-5)


def test_bn_and_sum_keepdims_and_other_consumers(rng):
    x = relay.var("x", shape=(2, 3, 6, 5))
    w = relay.const(rng.standard_normal((4, 3, 3, 3)).astype("float32"))
    vecs = [relay.const(rng.uniform(0.5, 1.5, 4).astype("float32")) for _ in range(4)]
    y = relay.nn.batch_norm(relay.nn.conv2d(x, w, padding=(1, 1)), *vecs)[0]
    s = relay.sum(y, axis=[1], keepdims=True)  # channels: stays NHWC, axis 3
    t = relay.transpose(y, (0, 2, 3, 1))  # a layout-sensitive consumer: gets NCHW back
    func = relay.Function([x], relay.Tuple([s, t]))
    mod = _convert(func, None, {"nn.conv2d": ["NHWC", "default"]})
    text = mod["main"].astext()
    assert "axis=3" in text and "axis=[3]" in text, text
    xv = rng.standard_normal((2, 3, 6, 5)).astype("float32")
    mod0 = tvm.IRModule.from_expr(func)
    got = build_run(mod["main"], {"x": xv})[0]
    want = build_run(mod0["main"], {"x": xv})[0]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[0], want[1].sum(axis=3, keepdims=True).transpose(
        NHWC_TO_NCHW), rtol=1e-4, atol=1e-4)


def test_pool_desired_layout_and_errors(rng):
    x = relay.var("x", shape=(1, 3, 8, 8))
    func = relay.Function([x], relay.nn.global_avg_pool2d(relay.nn.max_pool2d(x, (2, 2))))
    mod = _convert(func, None, {"nn.max_pool2d": ["NHWC"]})
    assert ', layout="NHWC"' in mod["main"].astext()
    xv = rng.standard_normal((1, 3, 8, 8)).astype("float32")
    np.testing.assert_allclose(_run(mod, {"x": xv})[0],
                               _run(tvm.IRModule.from_expr(func), {"x": xv})[0], rtol=1e-6)
    with pytest.raises(TVMError, match="nn.conv2d data layout"):
        relay.transform.ConvertLayout({"nn.conv2d": ["NCHW16c", "default"]})
    # an operator without a layout conversion is ignored, as classic does
    relay.transform.ConvertLayout({"nn.dense": ["NC"]})


def test_large_chain_no_recursion():
    x = relay.var("x", shape=(1, 2, 3, 3))
    w = relay.const(np.full((2, 2, 1, 1), 0.5, "float32"))
    y = relay.nn.conv2d(x, w)
    for _ in range(100000):
        y = relay.nn.relu(y)
    mod = _convert(relay.Function([x], y), None, {"nn.conv2d": ["NHWC", "default"]},
                   fold=False)
    assert mod["main"].body.op.name == "layout_transform"



def _same_numbers(func, desired, inputs, rtol=1e-5):
    """ConvertLayout(desired) of ``func``: its output equals the unconverted function's (both
    built at opt_level 3); the converted module is returned."""
    mod = _convert(func, None, desired, fold=False)
    (ref,), _ = build_run(func, inputs)
    out, _ = _run(mod, inputs)
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=rtol)
    return mod


def _attrs_of(mod, op_name):
    found = []
    relay.analysis.post_order_visit(mod["main"], lambda n: found.append(n.attrs) if isinstance(
        n, relay.Call) and getattr(n.op, "name", None) == op_name else None)
    return found


@pytest.mark.parametrize("src,want,kernel", [("NHWC", "NCHW", "default"),
                                             ("NCHW", "NHWC", "default"),
                                             ("NHWC", "NCHW", "OIHW")])
def test_conv2d_transpose_converted(rng, src, want, kernel):
    """nn.conv2d_transpose in the wanted data layout (default kernel: IOHW for NCHW, HWIO
    for NHWC, as classic), its relu following; odd sizes, the same numbers."""
    cin, cout, h, w = 3, 5, 7, 6
    dshape = (1, cin, h, w) if src == "NCHW" else (1, h, w, cin)
    klay = "IOHW" if src == "NCHW" else "HWIO"
    kshape = {"IOHW": (cin, cout, 3, 3), "HWIO": (3, 3, cin, cout)}[klay]
    x, wt = relay.var("x", shape=dshape), relay.var("w", shape=kshape)
    y = relay.nn.relu(relay.nn.conv2d_transpose(x, wt, strides=(2, 2), padding=(1, 1),
                                                channels=cout, kernel_size=(3, 3),
                                                data_layout=src, kernel_layout=klay))
    func = relay.Function([x, wt], y)
    inputs = {"x": rng.standard_normal(dshape).astype("float32"),
              "w": rng.standard_normal(kshape).astype("float32")}
    mod = _same_numbers(func, {"nn.conv2d_transpose": [want, kernel]}, inputs)
    (attrs,) = _attrs_of(mod, "nn.conv2d_transpose")
    default = {"NCHW": "IOHW", "NHWC": "HWIO"}[want]
    assert attrs.data_layout == want
    assert attrs.kernel_layout == (default if kernel == "default" else kernel)
    assert _ops(mod).count("layout_transform") == 3  # data, kernel, result


def test_deformable_conv2d_converted(rng):
    """nn.deformable_conv2d NHWC -> NCHW: data and offset transformed, kernel HWIO -> OIHW."""
    h, w, cin, cout = 7, 6, 3, 4
    x = relay.var("x", shape=(1, h, w, cin))
    off = relay.var("off", shape=(1, h - 2, w - 2, 18))
    wt = relay.var("w", shape=(3, 3, cin, cout))
    y = relay.nn.deformable_conv2d(x, off, wt, kernel_size=(3, 3), channels=cout,
                                   data_layout="NHWC", kernel_layout="HWIO")
    func = relay.Function([x, off, wt], relay.add(y, relay.const(0.5)))
    inputs = {"x": rng.standard_normal((1, h, w, cin)).astype("float32"),
              "off": rng.standard_normal((1, h - 2, w - 2, 18)).astype("float32"),
              "w": rng.standard_normal((3, 3, cin, cout)).astype("float32")}
    mod = _same_numbers(func, {"nn.deformable_conv2d": ["NCHW", "default"]}, inputs)
    (attrs,) = _attrs_of(mod, "nn.deformable_conv2d")
    assert (attrs.data_layout, attrs.kernel_layout) == ("NCHW", "OIHW")


def _qconv(x, wt, layout, klay, cout):
    return relay.qnn.op.conv2d(x, wt, relay.const(1), relay.const(2), relay.const(0.5),
                               relay.const(0.25), kernel_size=(3, 3), channels=cout,
                               padding=(1, 1), data_layout=layout, kernel_layout=klay)


def test_qnn_conv2d_requantize_concat_add_converted(rng):
    """qnn.conv2d NHWC -> NCHW; qnn.requantize's axis, qnn.add and qnn.concatenate (its
    axis) follow the new layout; the integers equal the unconverted program's."""
    h, w, cin, cout = 5, 7, 3, 4
    x = relay.var("x", shape=(1, h, w, cin), dtype="int8")
    wt = relay.var("w", shape=(3, 3, cin, cout), dtype="int8")
    y = _qconv(x, wt, "NHWC", "HWIO", cout)
    one, zero = relay.const(1.0), relay.const(0)
    y = relay.qnn.op.requantize(y, relay.const(0.125), zero, one, zero, out_dtype="int8")
    s = relay.qnn.op.add(y, y, one, zero, one, zero, relay.const(2.0), zero)
    cat = relay.qnn.op.concatenate([y, s], [one, relay.const(2.0)], [zero, zero], one, zero,
                                   axis=3)
    func = relay.Function([x, wt], cat)
    inputs = {"x": rng.integers(-20, 20, (1, h, w, cin)).astype("int8"),
              "w": rng.integers(-5, 5, (3, 3, cin, cout)).astype("int8")}
    mod = _same_numbers(func, {"qnn.conv2d": ["NCHW", "default"]}, inputs, rtol=0)
    (conv,) = _attrs_of(mod, "qnn.conv2d")
    assert (conv.data_layout, conv.kernel_layout) == ("NCHW", "OIHW")
    assert _attrs_of(mod, "qnn.requantize")[0].axis == 1
    assert _attrs_of(mod, "qnn.concatenate")[0].axis == 1
    assert _ops(mod).count("layout_transform") == 3  # data, kernel, result


@pytest.mark.parametrize("op", ["roi_align", "roi_pool"])
def test_roi_ops_converted(rng, op):
    """vision.roi_align / roi_pool take the wanted layout; the result stays in it until the
    function's end."""
    x = relay.var("x", shape=(1, 4, 13, 11))
    wt = relay.var("w", shape=(6, 4, 3, 3))
    rois = relay.var("rois", shape=(5, 5))
    y = relay.nn.conv2d(x, wt, padding=(1, 1), channels=6, kernel_size=(3, 3))
    kw = {"sample_ratio": 2} if op == "roi_align" else {}
    y = getattr(relay.vision, op)(y, rois, pooled_size=(3, 2), spatial_scale=0.5,
                                  layout="NCHW", **kw)
    func = relay.Function([x, wt, rois], y)
    boxes = np.sort(rng.uniform(0, 20, (5, 2, 2)), axis=1).transpose(0, 2, 1).reshape(5, 4)
    inputs = {"x": rng.standard_normal((1, 4, 13, 11)).astype("float32"),
              "w": rng.standard_normal((6, 4, 3, 3)).astype("float32"),
              "rois": np.concatenate([np.zeros((5, 1)), boxes], 1).astype("float32")}
    mod = _same_numbers(func, {"nn.conv2d": ["NHWC", "default"],
                               f"vision.{op}": ["NHWC", "default"]}, inputs, rtol=1e-4)
    assert _attrs_of(mod, f"vision.{op}")[0].layout == "NHWC"
    assert _ops(mod)[-1] == "layout_transform"
    with pytest.raises(TVMError, match=f"vision.{op} data layout"):
        relay.transform.ConvertLayout({f"vision.{op}": ["HWNC"]})


def test_qnn_add_with_per_channel_scales_keeps_its_layout(rng):
    """A qnn.add whose scale is per channel (``lhs_axis``) reads its operands in their
    original layout: the numbers stay right."""
    h, w, cin, cout = 5, 4, 3, 4
    x = relay.var("x", shape=(1, h, w, cin), dtype="int8")
    wt = relay.var("w", shape=(3, 3, cin, cout), dtype="int8")
    one, zero = relay.const(1.0), relay.const(0)
    y = relay.qnn.op.requantize(_qconv(x, wt, "NHWC", "HWIO", cout), relay.const(0.125), zero,
                                one, zero, out_dtype="int8")
    scales = relay.const(rng.uniform(0.5, 2.0, cout).astype("float32"))
    s = relay.qnn.op.add(y, y, scales, zero, one, zero, relay.const(2.0), zero, lhs_axis=3)
    func = relay.Function([x, wt], s)
    inputs = {"x": rng.integers(-20, 20, (1, h, w, cin)).astype("int8"),
              "w": rng.integers(-5, 5, (3, 3, cin, cout)).astype("int8")}
    mod = _same_numbers(func, {"qnn.conv2d": ["NCHW", "default"]}, inputs, rtol=0)
    assert _attrs_of(mod, "qnn.add")[0].lhs_axis == 3


def test_converted_calls_keep_their_spans():
    """The rewritten convolution and the ops after it keep their source spans (classic)."""
    def spanned(call, name):
        return relay.Call(call.op, call.args, call.attrs, call.type_args,
                          relay.Span(relay.SourceName(name), 0, 0, 0, 0))

    x = relay.var("x", shape=(1, 5, 6, 3))
    w = relay.var("w", shape=(3, 3, 3, 4))
    y = spanned(relay.nn.conv2d(x, w, channels=4, kernel_size=(3, 3), data_layout="NHWC",
                                kernel_layout="HWIO"), "SpanConv")
    y = spanned(relay.nn.relu(y), "SpanRelu")
    y = spanned(relay.sum(y, axis=(3,), keepdims=True), "SpanSum")
    mod = _convert(relay.Function([x, w], y), None, {"nn.conv2d": ["NCHW", "default"]},
                   fold=False)
    spans = {n.op.name: n.span.source_name.name for n in relay.expr.post_order(mod["main"].body)
             if isinstance(n, relay.Call) and n.span is not None}
    assert spans == {"nn.conv2d": "SpanConv", "nn.relu": "SpanRelu", "sum": "SpanSum"}
    assert _attrs_of(mod, "nn.conv2d")[0].data_layout == "NCHW"


def test_slice_like_of_two_converted_values(rng):
    """slice_like of two values converted alike stays converted, its axes following (NHWC
    H, W -> NCHW 2, 3); with an unconverted shape source it reads the original layout."""
    x = relay.var("x", shape=(1, 9, 8, 3))
    w1, w2 = relay.var("w1", shape=(3, 3, 3, 4)), relay.var("w2", shape=(5, 5, 3, 4))
    a = relay.nn.conv2d(x, w1, channels=4, kernel_size=(3, 3), data_layout="NHWC",
                        kernel_layout="HWIO")
    b = relay.nn.conv2d(x, w2, channels=4, kernel_size=(5, 5), data_layout="NHWC",
                        kernel_layout="HWIO")
    inputs = {"x": rng.standard_normal((1, 9, 8, 3)).astype("float32"),
              "w1": rng.standard_normal((3, 3, 3, 4)).astype("float32"),
              "w2": rng.standard_normal((5, 5, 3, 4)).astype("float32")}
    func = relay.Function([x, w1, w2], relay.nn.relu(relay.slice_like(a, b, axes=[1, 2])))
    mod = _same_numbers(func, {"nn.conv2d": ["NCHW", "default"]}, inputs)
    assert [int(v) for v in _attrs_of(mod, "slice_like")[0].axes] == [2, 3]
    assert _ops(mod)[-1] == "layout_transform"  # after the relu
    z = relay.var("z", shape=(1, 5, 4, 4))
    func = relay.Function([x, w1, z], relay.slice_like(a, z, axes=[1, 2]))
    inputs = {"x": inputs["x"], "w1": inputs["w1"],
              "z": np.zeros((1, 5, 4, 4), "float32")}
    mod = _same_numbers(func, {"nn.conv2d": ["NCHW", "default"]}, inputs)
    assert [int(v) for v in _attrs_of(mod, "slice_like")[0].axes] == [1, 2]
