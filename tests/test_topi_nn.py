"""topi.nn operators built with their topi.generic schedule, compared with topi.testing's
numpy references at odd shapes, strides, paddings, dilations and groups."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(14)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def check(out, inputs, arrays, want, schedule, rtol=1e-4, atol=1e-4):
    """Build ``out`` with ``schedule`` and compare it with ``want``."""
    s = schedule(out)
    f = tvm.build(s, list(inputs) + [out], "llvm")
    dev = tvm.cpu()
    res = tvm.nd.array(np.zeros([int(x) for x in out.shape], out.dtype), dev)
    f(*[tvm.nd.array(a, dev) for a in arrays], res)
    np.testing.assert_allclose(res.numpy(), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("shape,f,k,stride,pad,dil", [
    ((1, 3, 9, 7), 5, 3, 1, 1, 1),
    ((2, 4, 8, 11), 3, 3, 2, (0, 1), 1),
    ((1, 3, 10, 9), 4, 2, (2, 1), (1, 0, 2, 1), 2),
])
def test_conv2d_nchw_and_nhwc(shape, f, k, stride, pad, dil):
    n, c, h, w = shape
    x, wt = _rand(*shape), _rand(f, c, k, k)
    wd = ref.dilate_python(wt, (1, 1, dil, dil))
    want = ref.conv2d_nchw_python(x, wd, stride, pad)
    X, W = te.placeholder(shape, name="X"), te.placeholder((f, c, k, k), name="W")
    Y = topi.nn.conv2d_nchw(X, W, stride, pad, dil)
    assert Y.op.tag == "conv2d_nchw"
    check(Y, [X, W], [x, wt], want, topi.generic.schedule_conv2d_nchw)
    Xh = te.placeholder((n, h, w, c), name="X")
    Wh = te.placeholder((k, k, c, f), name="W")
    Yh = topi.nn.conv2d(Xh, Wh, stride, pad, dil, layout="NHWC")
    assert Yh.op.tag == "conv2d_nhwc" and Yh.op.name == "Conv2dOutput"
    check(Yh, [Xh, Wh], [x.transpose(0, 2, 3, 1), wt.transpose(2, 3, 1, 0)],
          want.transpose(0, 2, 3, 1), topi.generic.schedule_conv2d_nhwc)


@pytest.mark.parametrize("c,f,groups,stride,pad,dil", [(6, 9, 3, 1, 1, 1), (4, 6, 2, 2, 0, 2)])
def test_group_conv2d_nchw(c, f, groups, stride, pad, dil):
    x, wt = _rand(1, c, 9, 8), _rand(f, c // groups, 3, 3)
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(wt.shape, name="W")
    Y = topi.nn.group_conv2d_nchw(X, W, stride, pad, dil, groups)
    assert Y.op.tag == "group_conv2d_nchw"
    want = ref.conv2d_nchw_python(x, ref.dilate_python(wt, (1, 1, dil, dil)), stride, pad,
                                  groups=groups)
    check(Y, [X, W], [x, wt], want, topi.generic.schedule_group_conv2d_nchw)


@pytest.mark.parametrize("mult,stride,pad,dil", [(1, 1, 1, 1), (2, 2, (1, 0), 1),
                                                 (1, 1, 2, 2)])
def test_depthwise_conv2d(mult, stride, pad, dil):
    x, wt = _rand(1, 3, 9, 7), _rand(3, mult, 3, 3)
    wd = ref.dilate_python(wt, (1, 1, dil, dil))
    want = ref.depthwise_conv2d_python_nchw(x, wd, stride, pad)
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(wt.shape, name="W")
    Y = topi.nn.depthwise_conv2d_nchw(X, W, stride, pad, dil)
    check(Y, [X, W], [x, wt], want, topi.generic.schedule_depthwise_conv2d_nchw)
    Xh = te.placeholder((1, 9, 7, 3), name="X")
    Wh = te.placeholder((3, 3, 3, mult), name="W")
    Yh = topi.nn.depthwise_conv2d_nhwc(Xh, Wh, stride, pad, dil)
    assert Yh.op.tag == "depthwise_conv2d_nhwc"
    want_h = ref.depthwise_conv2d_python_nhwc(x.transpose(0, 2, 3, 1),
                                              wd.transpose(2, 3, 0, 1), stride, pad)
    np.testing.assert_allclose(want_h, want.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)
    check(Yh, [Xh, Wh], [x.transpose(0, 2, 3, 1), wt.transpose(2, 3, 0, 1)], want_h,
          topi.generic.schedule_depthwise_conv2d_nhwc)


@pytest.mark.parametrize("ic_bn,oc_bn,stride,pad", [(4, 3, 1, 1), (2, 4, 2, (0, 1))])
def test_conv2d_NCHWc_with_layout_transforms(ic_bn, oc_bn, stride, pad):
    c, f = 8, 12
    x, wt = _rand(1, c, 7, 9), _rand(f, c, 3, 3)
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(wt.shape, name="W")
    Xp = topi.layout_transform(X, "NCHW", f"NCHW{ic_bn}c")
    Wp = topi.layout_transform(W, "OIHW", f"OIHW{ic_bn}i{oc_bn}o")
    assert [int(d) for d in Wp.shape] == [f // oc_bn, c // ic_bn, 3, 3, ic_bn, oc_bn]
    Y = topi.nn.conv2d_NCHWc(Xp, Wp, stride, pad, 1, f"NCHW{ic_bn}c", f"NCHW{oc_bn}c")
    assert Y.op.name == Y.op.tag == "conv2d_NCHWc"
    Yu = topi.layout_transform(Y, f"NCHW{oc_bn}c", "NCHW")
    want = ref.conv2d_nchw_python(x, wt, stride, pad)
    check(Yu, [X, W], [x, wt], want, topi.generic.schedule_injective)


@pytest.mark.parametrize("stride,pad,opad", [(1, 0, (0, 0)), (2, 1, (1, 0)),
                                             ((3, 2), (1, 0, 0, 1), (2, 1))])
def test_conv2d_transpose_nchw(stride, pad, opad):
    x, wt = _rand(1, 3, 5, 4), _rand(3, 2, 3, 3)
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(wt.shape, name="W")
    Y = topi.nn.conv2d_transpose_nchw(X, W, stride, pad, "float32", opad)
    want = ref.conv2d_transpose_nchw_python(x, wt, stride, pad, opad)
    assert tuple(int(d) for d in Y.shape) == want.shape
    check(Y, [X, W], [x, wt], want, topi.generic.schedule_conv2d_transpose_nchw)


def test_dense_and_batch_matmul():
    x, w, b = _rand(5, 13), _rand(7, 13), _rand(7)
    X, W, B = (te.placeholder(a.shape, name=n) for a, n in ((x, "X"), (w, "W"), (b, "B")))
    check(topi.nn.dense(X, W, B), [X, W, B], [x, w, b], x @ w.T + b,
          topi.generic.schedule_dense)
    for ta, tb, sa, sb in [(False, True, (3, 5, 7), (3, 6, 7)), (True, False, (1, 7, 5),
                                                                 (3, 7, 6))]:
        a, bb = _rand(*sa), _rand(*sb)
        A, Bt = te.placeholder(sa, name="A"), te.placeholder(sb, name="B")
        C = topi.nn.batch_matmul(A, Bt, transpose_a=ta, transpose_b=tb)
        assert C.op.tag == "batch_matmul"
        check(C, [A, Bt], [a, bb], ref.batch_matmul(a, bb, trans_x=ta, trans_y=tb),
              topi.generic.schedule_batch_matmul)


@pytest.mark.parametrize("k,s,d,pad,ceil", [((3, 3), (2, 2), (1, 1), (1, 1, 1, 1), True),
                                            ((2, 3), (2, 1), (1, 2), (0, 1, 1, 2), False),
                                            ((3, 2), (2, 3), (1, 1), (1, 0, 0, 1), True)])
@pytest.mark.parametrize("pool_type,cip", [("max", True), ("avg", True), ("avg", False)])
def test_pool2d(k, s, d, pad, ceil, pool_type, cip):
    x = _rand(1, 2, 9, 8)
    X = te.placeholder(x.shape, name="X")
    Y = topi.nn.pool2d(X, k, s, d, pad, pool_type, ceil_mode=ceil, count_include_pad=cip)
    want = ref.pool2d_ref(x, k, s, d, pad, pool_type, ceil, cip)
    assert tuple(int(v) for v in Y.shape) == want.shape
    check(Y, [X], [x], want, topi.generic.schedule_pool)


def test_pool2d_nhwc_global_adaptive():
    x = _rand(2, 3, 9, 7)
    Xh = te.placeholder((2, 9, 7, 3), name="X")
    Y = topi.nn.pool2d(Xh, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max", layout="NHWC")
    want = ref.pool2d_ref(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max")
    check(Y, [Xh], [x.transpose(0, 2, 3, 1)], want.transpose(0, 2, 3, 1),
          topi.generic.schedule_pool)
    X = te.placeholder(x.shape, name="X")
    for pt in ("max", "avg"):
        want = x.max(axis=(2, 3), keepdims=True) if pt == "max" else \
            x.mean(axis=(2, 3), keepdims=True)
        check(topi.nn.global_pool(X, pt), [X], [x], want, topi.generic.schedule_pool)
        for size in ((4, 3), (2, 5), (9, 7)):
            Y = topi.nn.adaptive_pool(X, size, pt)
            check(Y, [X], [x], ref.adaptive_pool(x, size, pt), topi.generic.schedule_adaptive_pool)


@pytest.mark.parametrize("axis", [1, -1, 0])
def test_softmax_log_softmax(axis):
    x = _rand(3, 5, 4) * 3
    X = te.placeholder(x.shape, name="X")
    S = topi.nn.softmax(X, axis)
    assert S.op.tag == "softmax_output"
    check(S, [X], [x], ref.softmax_python(x, axis), topi.generic.schedule_softmax, atol=1e-6)
    F = topi.nn.fast_softmax(X, axis)
    assert F.op.tag == "fast_softmax_output"
    check(F, [X], [x], ref.softmax_python(x, axis), topi.generic.schedule_softmax, atol=1e-6)
    L = topi.nn.log_softmax(X, axis)
    assert L.op.tag == "log_softmax_output"
    check(L, [X], [x], ref.log_softmax_python(x, axis), topi.generic.schedule_softmax)


def test_batch_norm_layer_norm_lrn():
    x = _rand(2, 5, 3, 4)
    g, b, m, v = _rand(5), _rand(5), _rand(5), np.abs(_rand(5)) + 0.5
    X = te.placeholder(x.shape, name="X")
    G, B, M, V = (te.placeholder((5,), name=n) for n in "GBMV")
    out, mm, mv = topi.nn.batch_norm(X, G, B, M, V, axis=1, epsilon=1e-3)
    # classic: the moving statistics come back as copies, so that no output is an input
    assert mm.op.input_tensors == [M] and mv.op.input_tensors == [V]
    check(mm, [M], [m], m, topi.generic.schedule_injective)
    want = ref.batch_norm(x, g, b, m, v, 1, 1e-3, True, True)[0]
    check(out, [X, G, B, M, V], [x, g, b, m, v], want, topi.generic.schedule_injective)
    gl, bl = _rand(3, 4), _rand(3, 4)
    GL, BL = te.placeholder((3, 4), name="GL"), te.placeholder((3, 4), name="BL")
    LN = topi.nn.layer_norm(X, GL, BL, axis=(2, 3))
    check(LN, [X, GL, BL], [x, gl, bl], ref.layer_norm_python(x, gl, bl, (2, 3)),
          topi.generic.schedule_layer_norm)
    R = topi.nn.lrn(X, 3, 1, 1e-2, 0.75, 2.0)
    check(R, [X], [x], ref.lrn_python(x, 3, 1, 2.0, 1e-2, 0.75), topi.generic.schedule_lrn)


def test_activations_pad_dilate_flatten_upsampling():
    x = _rand(2, 3, 5, 4)
    X = te.placeholder(x.shape, name="X")
    inj = topi.generic.schedule_injective
    check(topi.nn.relu(X), [X], [x], np.maximum(x, 0), inj)
    check(topi.nn.leaky_relu(X, 0.2), [X], [x], np.where(x > 0, x, 0.2 * x), inj)
    sl = _rand(3)
    SL = te.placeholder((3,), name="SL")
    check(topi.nn.prelu(X, SL), [X, SL], [x, sl],
          np.where(x > 0, x, x * sl[None, :, None, None]), inj)
    check(topi.nn.pad(X, [0, 1, 2, 0], [1, 0, 1, 3], 1.5), [X], [x],
          np.pad(x, [(0, 1), (1, 0), (2, 1), (0, 3)], constant_values=1.5), inj)
    D = topi.nn.dilate(X, (1, 2, 3, 1), 0.5)
    assert D.op.tag == "injective,dilate"
    check(D, [X], [x], ref.dilate_python(x, (1, 2, 3, 1), 0.5), inj)
    check(topi.nn.flatten(X), [X], [x], x.reshape(2, -1), inj)
    check(topi.nn.upsampling(X, 2, 3), [X], [x], ref.upsampling_python(x, (2, 3)), inj)
    U = topi.nn.upsampling(X, 1.5, 2, method="bilinear", align_corners=True)
    check(U, [X], [x], ref.resize2d_python(x, (1.5, 2), "NCHW", "bilinear", "align_corners"),
          inj)


# ---- 1-D / 3-D / grouped convolutions, pooling, normalisations and re-layouts, built with
# the default schedule (te.create_schedule) ----

def run(out, inputs, arrays):
    s = te.create_schedule(out.op)
    f = tvm.build(s, list(inputs) + [out], "llvm")
    dev = tvm.cpu()
    res = tvm.nd.array(np.zeros([int(x) for x in out.shape], out.dtype), dev)
    f(*[tvm.nd.array(a, dev) for a in arrays], res)
    return res.numpy()


def _conv_ref(x, w, stride, pad_lo, pad_hi, dil, groups):
    return ref.conv_nd_python(x, w, stride, pad_lo, pad_hi, dil, groups)


@pytest.mark.parametrize("layout", ["NCW", "NWC"])
@pytest.mark.parametrize("stride,pad,dil", [(1, "VALID", 1), (2, 1, 1), (1, "SAME", 2),
                                            (3, (2, 0), 1)])
def test_conv1d(layout, stride, pad, dil):
    x, w = _rand(2, 3, 11), _rand(4, 3, 3)
    dk = 2 * dil + 1
    lo, hi = topi.nn.get_pad_tuple1d(pad, (dk,))
    want = _conv_ref(x, w, (stride,), (lo,), (hi,), (dil,), 1)
    np.testing.assert_allclose(ref.conv1d_ncw_python(x, w, stride, pad, dil), want, rtol=1e-5)
    if layout == "NCW":
        X, W = _ph(x), _ph(w, "W")
        out = topi.nn.conv1d_ncw(X, W, stride, pad, dil)
        got = run(out, [X, W], [x, w])
    else:
        xt, wt = x.transpose(0, 2, 1).copy(), w.transpose(2, 1, 0).copy()
        X, W = _ph(xt), _ph(wt, "W")
        out = topi.nn.conv1d(X, W, stride, pad, dil, "NWC")
        got = run(out, [X, W], [xt, wt]).transpose(0, 2, 1)
        want = want
    assert out.op.name == out.op.tag == f"conv1d_{layout.lower()}"
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", ["NCW", "NWC"])
def test_group_conv1d(layout):
    x, w = _rand(1, 6, 9), _rand(4, 3, 2)
    want = _conv_ref(x, w, (2,), (1,), (1,), (1,), 2)
    if layout == "NCW":
        X, W = _ph(x), _ph(w, "W")
        out = topi.nn.group_conv1d_ncw(X, W, 2, 1, 1, 2)
        got = run(out, [X, W], [x, w])
    else:
        xt, wt = x.transpose(0, 2, 1).copy(), w.transpose(2, 1, 0).copy()
        X, W = _ph(xt), _ph(wt, "W")
        out = topi.nn.group_conv1d_nwc(X, W, 2, 1, 1, 2)
        got = run(out, [X, W], [xt, wt]).transpose(0, 2, 1)
    assert out.op.name == f"group_conv1d_{layout.lower()}"
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("stride,pad,dil,groups", [(1, 1, 1, 1), ((2, 1, 1), (0, 1, 1, 1, 0, 2),
                                                                  1, 1), (1, "SAME", 1, 2),
                                                   (1, 0, (1, 2, 1), 1)])
def test_conv3d(layout, stride, pad, dil, groups):
    x, w = _rand(1, 4, 5, 6, 7), _rand(4, 4 // groups, 3, 2, 3)
    st = (stride,) * 3 if isinstance(stride, int) else stride
    dl = (dil,) * 3 if isinstance(dil, int) else dil
    dk = [(k - 1) * d + 1 for k, d in zip((3, 2, 3), dl)]
    p = topi.nn.get_pad_tuple3d(pad, dk)
    want = _conv_ref(x, w, st, p[:3], p[3:], dl, groups)
    if dil == 1:
        np.testing.assert_allclose(ref.conv3d_ndhwc_python(
            x.transpose(0, 2, 3, 4, 1), w.transpose(2, 3, 4, 1, 0), stride, pad, groups),
            want.transpose(0, 2, 3, 4, 1), rtol=1e-5, atol=1e-5)
    if layout == "NCDHW":
        X, W = _ph(x), _ph(w, "W")
        out = topi.nn.conv3d_ncdhw(X, W, stride, pad, dil, groups)
        got = run(out, [X, W], [x, w])
    else:
        xt, wt = x.transpose(0, 2, 3, 4, 1).copy(), w.transpose(2, 3, 4, 1, 0).copy()
        X, W = _ph(xt), _ph(wt, "W")
        out = topi.nn.conv3d_ndhwc(X, W, stride, pad, dil, groups)
        got = run(out, [X, W], [xt, wt]).transpose(0, 4, 1, 2, 3)
    assert out.op.tag.endswith(f"conv3d_{layout.lower()}")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_group_conv2d_nhwc():
    x, w = _rand(1, 6, 7, 5), _rand(6, 2, 3, 3)
    want = _conv_ref(x, w, (2, 1), (1, 0), (1, 2), (1, 1), 3)
    xt, wt = x.transpose(0, 2, 3, 1).copy(), w.transpose(2, 3, 1, 0).copy()
    X, W = _ph(xt), _ph(wt, "W")
    out = topi.nn.group_conv2d_nhwc(X, W, (2, 1), (1, 0, 1, 2), 1, 3)
    assert out.op.name == "group_conv2d_nhwc"
    np.testing.assert_allclose(run(out, [X, W], [xt, wt]).transpose(0, 3, 1, 2), want,
                               rtol=1e-4, atol=1e-4)
    # agrees with group_conv2d_nchw
    Xc, Wc = _ph(x), _ph(w, "W")
    np.testing.assert_allclose(run(topi.nn.group_conv2d_nchw(Xc, Wc, (2, 1), (1, 0, 1, 2), 1, 3),
                                   [Xc, Wc], [x, w]), want, rtol=1e-4, atol=1e-4)


def _pool_ref(x, kernel, stride, dil, lo, hi, pool_type, count_include_pad):
    nd = len(kernel)
    sizes = x.shape[2:]
    outs = [(sizes[j] + lo[j] + hi[j] - (kernel[j] - 1) * dil[j] - 1) // stride[j] + 1
            for j in range(nd)]
    out = np.zeros(x.shape[:2] + tuple(outs), x.dtype)
    for o in np.ndindex(*outs):
        taps = [[o[j] * stride[j] - lo[j] + t * dil[j] for t in range(kernel[j])]
                for j in range(nd)]
        valid = [[p for p in tp if 0 <= p < sizes[j]] for j, tp in enumerate(taps)]
        win = x[np.ix_(range(x.shape[0]), range(x.shape[1]), *valid)]
        axes = tuple(range(2, 2 + nd))
        if pool_type == "max":
            out[(slice(None), slice(None)) + o] = win.max(axis=axes)
        else:
            cnt = np.prod([len(v) for v in valid]) if not count_include_pad else np.prod(
                [sum(-lo[j] <= p < sizes[j] + hi[j] for p in tp) for j, tp in enumerate(taps)])
            out[(slice(None), slice(None)) + o] = win.sum(axis=axes) / cnt
    return out


@pytest.mark.parametrize("pool_type,cip", [("max", True), ("avg", True), ("avg", False)])
def test_pool1d(pool_type, cip):
    x = _rand(2, 3, 13)
    X = _ph(x)
    out = topi.nn.pool1d(X, 3, 2, (2,), (1, 2), pool_type, count_include_pad=cip)
    want = _pool_ref(x, (3,), (2,), (2,), (1,), (2,), pool_type, cip)
    np.testing.assert_allclose(run(out, [X], [x]), want, rtol=1e-5, atol=1e-5)
    xt = x.transpose(0, 2, 1).copy()
    Xt = _ph(xt)
    out = topi.nn.pool1d(Xt, [3], [2], [2], [1, 2], pool_type, layout="NWC",
                         count_include_pad=cip)
    np.testing.assert_allclose(run(out, [Xt], [xt]).transpose(0, 2, 1), want, rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("pool_type,cip", [("max", True), ("avg", True), ("avg", False)])
def test_pool3d(pool_type, cip):
    x = _rand(1, 2, 5, 6, 7)
    X = _ph(x)
    args = ((2, 3, 2), (1, 2, 2), (1, 1, 2), (0, 1, 1, 1, 0, 1))
    out = topi.nn.pool3d(X, *args, pool_type=pool_type, count_include_pad=cip)
    want = _pool_ref(x, *args[:3], args[3][:3], args[3][3:], pool_type, cip)
    np.testing.assert_allclose(run(out, [X], [x]), want, rtol=1e-5, atol=1e-5)
    xt = x.transpose(0, 2, 3, 4, 1).copy()
    Xt = _ph(xt)
    out = topi.nn.pool3d(Xt, *args, pool_type=pool_type, layout="NDHWC", count_include_pad=cip)
    np.testing.assert_allclose(run(out, [Xt], [xt]).transpose(0, 4, 1, 2, 3), want, rtol=1e-5,
                               atol=1e-5)


def test_pool1d_ceil_mode_matches_pool2d():
    x = _rand(1, 2, 1, 10)
    X, X1 = _ph(x), _ph(x[:, :, 0].copy(), "X1")
    p2 = topi.nn.pool2d(X, (1, 3), (1, 2), (1, 1), (0, 1, 0, 0), "avg", True,
                        count_include_pad=False)
    p1 = topi.nn.pool1d(X1, 3, 2, 1, (1, 0), "avg", True, count_include_pad=False)
    np.testing.assert_allclose(run(p1, [X1], [x[:, :, 0].copy()]), run(p2, [X], [x])[:, :, 0],
                               rtol=1e-6)


def test_instance_norm():
    x, g, b = _rand(2, 3, 4, 5), _rand(4, 5), _rand(4, 5)
    X, G, B = _ph(x), _ph(g, "G"), _ph(b, "B")
    out = topi.nn.instance_norm(X, G, B, (2, 3), 1e-5)
    assert out.op.name == "T_instance_norm"
    want = ref.layer_norm_python(x, g, b, (2, 3), 1e-5)
    np.testing.assert_allclose(run(out, [X, G, B], [x, g, b]), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("channel_axis,axes", [(1, (2, 3)), (-1, (1,))])
def test_group_norm(channel_axis, axes):
    x = _rand(2, 6, 3, 4) if channel_axis == 1 else _rand(2, 5, 6)
    c = x.shape[channel_axis]
    g, b = _rand(c), _rand(c)
    X, G, B = _ph(x), _ph(g, "G"), _ph(b, "B")
    out = topi.nn.group_norm(X, G, B, 3, channel_axis, axes, 1e-5)
    assert out.op.name == "T_group_norm"
    xm = np.moveaxis(x, channel_axis, 1)
    xs = xm.reshape(xm.shape[0], 3, -1, *xm.shape[2:])
    red = (2,) + tuple(range(3, xs.ndim))
    mean, var = xs.mean(red, keepdims=True), xs.var(red, keepdims=True)
    norm = ((xs - mean) / np.sqrt(var + 1e-5)).reshape(xm.shape)
    bshape = [1] * x.ndim
    bshape[1] = c
    want = np.moveaxis(norm * g.reshape(bshape) + b.reshape(bshape), 1, channel_axis)
    np.testing.assert_allclose(ref.group_norm_python(x, g, b, 3, channel_axis, axes), want,
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run(out, [X, G, B], [x, g, b]), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_to_space_and_back(layout, mode):
    x = _rand(2, 12, 3, 5)
    b = 2
    n, c, h, w = x.shape
    if mode == "DCR":
        want = x.reshape(n, b, b, c // 4, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        want = x.reshape(n, c // 4, b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    want = want.reshape(n, c // 4, h * b, w * b)
    np.testing.assert_array_equal(ref.depth_to_space_python(x, b, mode), want)
    if mode == "DCR":
        np.testing.assert_array_equal(ref.space_to_depth_python(want, b), x)
    data = x if layout == "NCHW" else x.transpose(0, 2, 3, 1).copy()
    X = _ph(data)
    out = topi.nn.depth_to_space(X, b, layout, mode)
    assert out.op.name == "depth_to_space"
    got = run(out, [X], [data])
    np.testing.assert_array_equal(got if layout == "NCHW" else got.transpose(0, 3, 1, 2), want)
    if mode == "DCR":  # space_to_depth inverts DCR
        Y = _ph(got, "Y")
        back = topi.nn.space_to_depth(Y, b, layout)
        assert back.op.name == "space_to_depth"
        np.testing.assert_array_equal(run(back, [Y], [got]), data)


@pytest.mark.parametrize("mode", ["SYMMETRIC", "REFLECT"])
def test_mirror_pad(mode):
    x = _rand(3, 4, 5)
    X = _ph(x)
    before, after = [0, 2, 1], [2, 3, 0] if mode == "SYMMETRIC" else [1, 3, 0]
    out = topi.nn.mirror_pad(X, before, after, mode)
    assert out.op.name == "MirrorPadInput"
    want = np.pad(x, list(zip(before, after)), mode.lower())
    np.testing.assert_array_equal(run(out, [X], [x]), want)


def test_get_pad_tuple_1d_3d():
    assert topi.nn.get_pad_tuple1d("SAME", (4,)) == (2, 1)
    assert topi.nn.get_pad_tuple1d((1, 3), (3,)) == (1, 3)
    assert topi.nn.get_pad_tuple1d(2, (3,)) == (2, 2)
    assert topi.nn.get_pad_tuple3d("SAME", (3, 4, 1)) == (1, 2, 0, 1, 1, 0)
    assert topi.nn.get_pad_tuple3d((1, 2, 3), (3, 3, 3)) == (1, 2, 3, 1, 2, 3)
    assert topi.nn.get_pad_tuple3d("VALID", (3, 3, 3)) == (0,) * 6


def _ph(a, name="A"):
    return te.placeholder(a.shape, str(a.dtype), name=name)


def _l2_normalize_np(x, eps, axis):
    axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
    s = (x.astype("float64") ** 2).sum(axis=axes, keepdims=True)
    return (x / np.sqrt(np.maximum(s, eps))).astype(x.dtype)


@pytest.mark.parametrize("shape,axis", [((3, 5, 7), (1,)), ((2, 5, 3, 4), (1, 2)),
                                        ((4, 9), None), ((3, 5, 7), (-1,))])
def test_l2_normalize(shape, axis):
    x = _rand(*shape)
    x[0] *= 1e-7  # rows whose squared sum is below eps are divided by sqrt(eps)
    X = _ph(x)
    out = topi.nn.l2_normalize(X, 1e-10, axis)
    want = _l2_normalize_np(x, 1e-10, axis)
    np.testing.assert_allclose(run(out, [X], [x]), want, rtol=1e-5, atol=1e-6)
    check(out, [X], [x], want, topi.generic.schedule_l2_normalize, rtol=1e-5, atol=1e-6)
    with pytest.raises(tvm.TVMError, match="l2_normalize"):
        topi.nn.l2_normalize(X, 1e-10, (len(shape),))
