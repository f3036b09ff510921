"""relay in NHWC: ``nn.conv2d`` with NHWC data and a kernel in any order of OIHW (plain,
grouped, depthwise), pooling / global / adaptive pooling / upsampling with
``layout="NHWC"``, ``bias_add(axis=3)``; built for llvm and compared with numpy at odd sizes,
strides and padding. Unsupported layouts are type errors naming the op and the layout."""
import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.topi.testing import adaptive_pool, conv2d_nchw_python, dilate_python, pool2d_ref

NCHW_TO_NHWC = (0, 2, 3, 1)
NHWC_TO_NCHW = (0, 3, 1, 2)


def ref_conv(x_nhwc, w, kernel_layout, stride, padding, dilation=(1, 1), groups=1):
    """numpy NHWC convolution: the NCHW reference on transposed operands."""
    w_oihw = w.transpose([kernel_layout.index(c) for c in "OIHW"])
    if dilation != (1, 1):
        w_oihw = dilate_python(w_oihw, (1, 1) + tuple(dilation))
    out = conv2d_nchw_python(x_nhwc.transpose(NHWC_TO_NCHW), w_oihw, stride, padding, groups)
    return out.transpose(NCHW_TO_NHWC)


def _weight_shape(kernel_layout, o, i, kh, kw):
    dims = dict(zip("OIHW", (o, i, kh, kw)))
    return tuple(dims[c] for c in kernel_layout)


@pytest.mark.parametrize("kernel_layout,groups,c,o,stride,padding,dilation", [
    ("HWIO", 1, 5, 7, (1, 1), (1, 1), (1, 1)),
    ("HWIO", 1, 3, 4, (2, 3), (2, 0, 1, 1), (1, 1)),
    ("OHWI", 1, 4, 6, (2, 2), (1, 1), (2, 1)),
    ("OIHW", 1, 3, 5, (1, 2), (0, 0), (1, 1)),
    ("HWIO", 2, 6, 4, (1, 1), (1, 1), (1, 1)),      # grouped
    ("OHWI", 3, 6, 9, (2, 1), (1, 0), (1, 1)),      # grouped
    ("HWOI", 6, 6, 6, (1, 1), (1, 1), (1, 1)),      # depthwise
    ("HWOI", 5, 5, 10, (2, 2), (1, 2, 0, 1), (1, 1)),  # depthwise, multiplier 2
    ("HWIO", 4, 4, 4, (1, 2), (2, 2), (2, 2)),      # depthwise, dilated
])
def test_conv2d_nhwc(rng, kernel_layout, groups, c, o, stride, padding, dilation):
    kh, kw = 3, 2
    xs = (2, 11, 9, c)
    x = relay.var("x", shape=xs)
    w = relay.var("w", shape=_weight_shape(kernel_layout, o, c // groups, kh, kw))
    y = relay.nn.conv2d(x, w, strides=stride, padding=padding, dilation=dilation,
                        groups=groups, data_layout="NHWC", kernel_layout=kernel_layout)
    xv = rng.standard_normal(xs).astype("float32")
    wv = rng.standard_normal(_weight_shape(kernel_layout, o, c // groups, kh, kw)).astype(
        "float32")
    (out,), _ = build_run(relay.Function([x, w], y), {"x": xv, "w": wv})
    ref = ref_conv(xv, wv, kernel_layout, stride, padding, dilation, groups)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_conv2d_nhwc_type_and_default_kernel_layout():
    x = relay.var("x", shape=(1, 10, 8, 3))
    w = relay.var("w", shape=(3, 3, 3, 16))
    y = relay.nn.conv2d(x, w, strides=(2, 2), padding=(1, 1), data_layout="NHWC",
                        kernel_layout="")
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([x, w], y)))
    assert tuple(mod["main"].body.checked_type.shape) == (1, 5, 4, 16)
    assert mod["main"].body.attrs.kernel_layout == "HWIO"


@pytest.mark.parametrize("attrs,needle", [
    ({"data_layout": "NCHW8c", "kernel_layout": "OIHW"}, "NCHW8c"),
    ({"data_layout": "HWCN", "kernel_layout": "HWIO"}, "HWCN"),
    ({"data_layout": "NHWC", "kernel_layout": "HWIOX"}, "HWIOX"),
])
def test_conv2d_unsupported_layouts(attrs, needle):
    # (another out_layout is typed as classic, and refused by the build:
    # tests/test_relay_conv2d_general_layout_type.py)
    x = relay.var("x", shape=(1, 8, 8, 4))
    w = relay.var("w", shape=(3, 3, 4, 4))
    f = relay.Function([x, w], relay.nn.conv2d(x, w, **attrs))
    with pytest.raises(TVMError, match=f"nn.conv2d: .*{needle}"):
        relay.transform.InferType()(tvm.IRModule.from_expr(f))


def test_pool_unsupported_layout():
    x = relay.var("x", shape=(1, 8, 8, 4))
    f = relay.Function([x], relay.nn.max_pool2d(x, (2, 2), layout="NHCX"))
    with pytest.raises(TVMError, match="nn.max_pool2d: layout 'NHCX'"):
        relay.transform.InferType()(tvm.IRModule.from_expr(f))


def _nhwc_vs_nchw(rng, make, shape=(2, 9, 11, 5)):
    """``make(x, layout)`` built in NHWC equals its NCHW build (numpy-checked elsewhere) on
    the transposed input."""
    xv = rng.standard_normal(shape).astype("float32")
    x = relay.var("x", shape=shape)
    (got,), _ = build_run(relay.Function([x], make(x, "NHWC")), {"x": xv})
    xc = relay.var("x", shape=tuple(shape[i] for i in NHWC_TO_NCHW))
    (want,), _ = build_run(relay.Function([xc], make(xc, "NCHW")),
                           {"x": xv.transpose(NHWC_TO_NCHW)})
    np.testing.assert_allclose(got, want.transpose(NCHW_TO_NHWC), rtol=1e-5, atol=1e-6)
    return got, xv


@pytest.mark.parametrize("kind,pool,strides,padding,ceil", [
    ("max", (3, 3), (2, 2), (1, 1), False),
    ("avg", (3, 2), (2, 1), (1, 0, 2, 1), False),
    ("avg", (2, 2), (2, 2), (0, 0), True),
    ("max", (2, 3), (3, 2), (1, 1, 0, 2), True),
])
def test_pool2d_nhwc(rng, kind, pool, strides, padding, ceil):
    fn = getattr(relay.nn, f"{kind}_pool2d")
    got, xv = _nhwc_vs_nchw(rng, lambda x, layout: fn(
        x, pool, strides, padding=padding, layout=layout, ceil_mode=ceil))
    p4 = padding * 2 if len(padding) == 2 else padding
    ref = pool2d_ref(xv.transpose(NHWC_TO_NCHW), pool, strides, (1, 1), p4, kind, ceil,
                     count_include_pad=False)
    np.testing.assert_allclose(got, ref.transpose(NCHW_TO_NHWC), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["global_avg_pool2d", "global_max_pool2d"])
def test_global_pool_nhwc(rng, op):
    got, xv = _nhwc_vs_nchw(rng, lambda x, layout: getattr(relay.nn, op)(x, layout=layout))
    reduce = np.mean if "avg" in op else np.max
    np.testing.assert_allclose(got, reduce(xv, axis=(1, 2), keepdims=True), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("kind", ["avg", "max"])
def test_adaptive_pool_nhwc(rng, kind):
    fn = getattr(relay.nn, f"adaptive_{kind}_pool2d")
    got, xv = _nhwc_vs_nchw(rng, lambda x, layout: fn(x, (4, 3), layout=layout))
    ref = adaptive_pool(xv.transpose(NHWC_TO_NCHW), (4, 3), kind)
    np.testing.assert_allclose(got, ref.transpose(NCHW_TO_NHWC), rtol=1e-5, atol=1e-6)


def test_upsampling_nhwc(rng):
    got, xv = _nhwc_vs_nchw(rng, lambda x, layout: relay.nn.upsampling(x, 2, 3, layout=layout),
                            shape=(1, 4, 3, 5))
    np.testing.assert_array_equal(got, xv.repeat(2, axis=1).repeat(3, axis=2))


def nhwc_network(rng, n=1, h=13, w=11, c=5):
    """conv+bias+relu, max pool, depthwise, 1x1 conv, concat, residual add, global pool and
    dense, all NHWC: (relay function, params, numpy reference function of the input)."""
    p = {"w1": rng.standard_normal((3, 3, c, 8)).astype("float32") * 0.3,
         "b1": rng.standard_normal(8).astype("float32"),
         "wd": rng.standard_normal((3, 3, 8, 1)).astype("float32") * 0.3,
         "w2": rng.standard_normal((1, 1, 8, 8)).astype("float32") * 0.3,
         "wg": rng.standard_normal((3, 3, 4, 16)).astype("float32") * 0.2,
         "wf": rng.standard_normal((10, 16)).astype("float32") * 0.3}
    x = relay.var("x", shape=(n, h, w, c))
    v = {k: relay.var(k, shape=a.shape) for k, a in p.items()}
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(
        x, v["w1"], strides=(1, 1), padding=(1, 1), data_layout="NHWC",
        kernel_layout="HWIO"), v["b1"], axis=3))
    y = relay.nn.max_pool2d(y, (3, 3), (2, 2), padding=(1, 1), layout="NHWC")
    d = relay.nn.relu(relay.nn.conv2d(y, v["wd"], padding=(1, 1), groups=8, data_layout="NHWC",
                                      kernel_layout="HWOI"))
    e = relay.nn.conv2d(y, v["w2"], data_layout="NHWC", kernel_layout="HWIO")
    cat = relay.concatenate([d, e], axis=3)  # 16 channels
    g = relay.nn.conv2d(cat, v["wg"], strides=(2, 2), padding=(1, 1), groups=4,
                        data_layout="NHWC", kernel_layout="HWIO")
    g = relay.nn.relu(relay.add(g, relay.nn.avg_pool2d(cat, (3, 3), (2, 2), padding=(1, 1),
                                                      layout="NHWC")))
    pooled = relay.nn.batch_flatten(relay.nn.global_avg_pool2d(g, layout="NHWC"))
    out = relay.nn.dense(pooled, v["wf"])
    func = relay.Function([x] + list(v.values()), out)

    def ref(xv):
        r = np.maximum(ref_conv(xv, p["w1"], "HWIO", 1, 1) + p["b1"], 0)
        r = pool2d_ref(r.transpose(NHWC_TO_NCHW), (3, 3), (2, 2), (1, 1), (1, 1, 1, 1),
                       "max").transpose(NCHW_TO_NHWC)
        dd = np.maximum(ref_conv(r, p["wd"], "HWOI", 1, 1, groups=8), 0)
        ee = ref_conv(r, p["w2"], "HWIO", 1, 0)
        cc = np.concatenate([dd, ee], axis=3)
        gg = ref_conv(cc, p["wg"], "HWIO", 2, 1, groups=4)
        ap = pool2d_ref(cc.transpose(NHWC_TO_NCHW), (3, 3), (2, 2), (1, 1), (1, 1, 1, 1),
                        "avg", count_include_pad=False).transpose(NCHW_TO_NHWC)
        gg = np.maximum(gg + ap, 0)
        return gg.mean(axis=(1, 2)) @ p["wf"].T
    return func, p, ref


@pytest.mark.parametrize("opt_level", [0, 3])
def test_nhwc_network(rng, opt_level):
    func, p, ref = nhwc_network(rng, n=2)
    xv = rng.standard_normal((2, 13, 11, 5)).astype("float32")
    (out,), _ = build_run(func, {"x": xv}, params=p, opt_level=opt_level)
    np.testing.assert_allclose(out, ref(xv), rtol=1e-4, atol=1e-4)
