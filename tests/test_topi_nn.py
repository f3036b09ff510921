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
    assert mm is M and mv is V
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
