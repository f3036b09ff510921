"""Cubic resizing, ``tf_crop_and_resize`` (roi, extrapolation) and
``topi.image.crop_and_resize``, and the relay ops ``image.resize1d/2d/3d`` and
``image.crop_and_resize``, against plain-loop numpy references on odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, te, topi
from tvmlite.relay.testing import run_infer_type
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(25)


def run(out, ins, arrays):
    f = tvm.build(te.create_schedule(out.op), list(ins) + [out], "llvm")
    res = tvm.nd.empty([int(x) for x in out.shape], out.dtype)
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


def _cubic_loop(x, n_out, mode, alpha=-0.5, exclude=False, roi=(0.0, 1.0), extrap=None):
    """1-D cubic resize of the last axis, one output at a time."""
    n_in = x.shape[-1]
    out = np.empty(x.shape[:-1] + (n_out,))
    for o in range(n_out):
        if mode == "align_corners":
            c = o * (n_in - 1) / (n_out - 1)
        elif mode == "asymmetric":
            c = o * n_in / n_out
        elif mode == "tf_crop_and_resize":
            c = roi[0] * (n_in - 1) + o * (roi[1] - roi[0]) * (n_in - 1) / (n_out - 1)
        else:
            c = (o + 0.5) * n_in / n_out - 0.5
        lo = int(np.floor(c))
        t = c - lo
        w = [alpha * (t ** 3 - 2 * t ** 2 + t), (alpha + 2) * t ** 3 - (3 + alpha) * t ** 2 + 1,
             -(alpha + 2) * t ** 3 + (3 + 2 * alpha) * t ** 2 - alpha * t,
             -alpha * t ** 3 + alpha * t ** 2]
        if exclude:
            w = [0.0 if not 0 <= lo - 1 + k < n_in else wk for k, wk in enumerate(w)]
            w = [wk / sum(w) for wk in w]
        acc = sum(wk * x[..., min(max(lo - 1 + k, 0), n_in - 1)] for k, wk in enumerate(w))
        if extrap is not None and not 0 <= c <= n_in - 1:
            acc = np.full_like(acc, extrap)
        out[..., o] = acc
    return out


@pytest.mark.parametrize("mode", ["align_corners", "asymmetric", "half_pixel"])
@pytest.mark.parametrize("alpha, exclude", [(-0.5, 0), (-0.75, 1)])
def test_cubic_resize1d(mode, alpha, exclude):
    x = RNG.uniform(-1, 1, (2, 3, 7)).astype("float32")
    A = te.placeholder(x.shape, name="A")
    B = topi.image.resize1d(A, [0.0, 0.0], (13,), "NCW", "cubic", mode,
                            bicubic_alpha=alpha, bicubic_exclude=exclude)
    got = run(B, [A], [x])
    np.testing.assert_allclose(got, _cubic_loop(x, 13, mode, alpha, exclude), rtol=1e-5,
                               atol=1e-5)


def test_cubic_resize2d_separable_reference():
    x = RNG.uniform(size=(1, 5, 7, 3)).astype("float32")
    A = te.placeholder(x.shape, name="A")
    B = topi.image.resize2d(A, [0.0] * 4, (9, 11), "NHWC", "bicubic", "half_pixel")
    want = _cubic_loop(_cubic_loop(x.transpose(0, 3, 2, 1), 9, "half_pixel")
                       .transpose(0, 1, 3, 2), 11, "half_pixel").transpose(0, 2, 3, 1)
    np.testing.assert_allclose(run(B, [A], [x]), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        ref.resize2d_python(x, (9 / 5, 11 / 7), "NHWC", "cubic", "half_pixel"), want,
        rtol=1e-5, atol=1e-5)


def test_tf_crop_and_resize_roi_extrapolation():
    x = RNG.uniform(size=(1, 2, 9)).astype("float32")
    A = te.placeholder(x.shape, name="A")
    B = topi.image.resize1d(A, [-0.2, 0.7], (6,), "NCW", "cubic", "tf_crop_and_resize",
                            extrapolation_value=-3.0)
    want = _cubic_loop(x, 6, "tf_crop_and_resize", roi=(-0.2, 0.7), extrap=-3.0)
    np.testing.assert_allclose(run(B, [A], [x]), want, rtol=1e-5, atol=1e-5)
    assert (want == -3.0).any()


def _crop_loop(img, boxes, idx, size, method, extrap):
    """NHWC crop_and_resize one sample at a time."""
    h, w = img.shape[1:3]
    out = np.empty((len(boxes), size[0], size[1], img.shape[3]))
    for b, (y1, x1, y2, x2) in enumerate(boxes):
        for i in range(size[0]):
            for j in range(size[1]):
                y = y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (size[0] - 1)
                x = x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (size[1] - 1)
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[b, i, j] = extrap
                    continue
                src = img[idx[b]]
                if method == "nearest_neighbor":
                    out[b, i, j] = src[int(np.round(y)), int(np.round(x))]  # halves to even
                    continue
                y0, x0 = int(np.floor(y)), int(np.floor(x))
                ty, tx = y - y0, x - x0
                y1i, x1i = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
                out[b, i, j] = ((src[y0, x0] * (1 - tx) + src[y0, x1i] * tx) * (1 - ty)
                                + (src[y1i, x0] * (1 - tx) + src[y1i, x1i] * tx) * ty)
    return out


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
@pytest.mark.parametrize("method", ["bilinear", "nearest_neighbor"])
def test_crop_and_resize(layout, method):
    img = RNG.uniform(size=(3, 13, 11, 2)).astype("float32")
    boxes = np.array([[0.1, 0.27, 0.83, 0.9], [-0.2, 0.0, 0.6, 1.25]], "float32")  # no ties
    idx = np.array([2, 0], "int32")
    want = _crop_loop(img, boxes, idx, (5, 7), method, 0.5)
    data = img if layout == "NHWC" else img.transpose(0, 3, 1, 2)
    if layout == "NCHW":
        want = want.transpose(0, 3, 1, 2)
    np.testing.assert_allclose(ref.crop_and_resize_python(data, boxes, idx, (5, 7), layout,
                                                          method, 0.5), want, atol=1e-5)
    D = te.placeholder(data.shape, name="D")
    Bx = te.placeholder(boxes.shape, name="B")
    Ix = te.placeholder(idx.shape, name="I", dtype="int32")
    out = topi.image.crop_and_resize(D, Bx, Ix, (5, 7), layout, method, 0.5)
    np.testing.assert_allclose(run(out, [D, Bx, Ix], [data, boxes, idx]), want, rtol=1e-4,
                               atol=1e-4)
    # the relay op
    d = relay.var("d", relay.TensorType(data.shape, "float32"))
    b = relay.var("b", relay.TensorType(boxes.shape, "float32"))
    i = relay.var("i", relay.TensorType(idx.shape, "int32"))
    z = relay.image.crop_and_resize(d, b, i, (5, 7), layout, method, 0.5)
    assert run_infer_type(z).checked_type == relay.TensorType(want.shape, "float32")
    got = relay.create_executor("graph", target="llvm").evaluate(
        relay.Function([d, b, i], z))(data, boxes, idx)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n, layout, shape, size", [
    (1, "NWC", (2, 5, 3), (12,)), (2, "NCHW", (1, 2, 5, 3), (7, 4)),
    (3, "NCDHW", (1, 2, 3, 5, 4), (4, 7, 3))])
@pytest.mark.parametrize("method", ["nearest_neighbor", "linear", "cubic"])
def test_relay_resize_nd(n, layout, shape, size, method):
    x = RNG.uniform(size=shape).astype("float32")
    v = relay.var("x", relay.TensorType(shape, "float32"))
    z = getattr(relay.image, f"resize{n}d")(v, size, None, layout, method, "align_corners")
    letters = "DHW"[3 - n:]
    axes = [layout.index(c) for c in letters]
    scale = [s / shape[a] for s, a in zip(size, axes)]
    want = getattr(ref, f"resize{n}d_python")(x, scale, layout, method, "align_corners")
    assert run_infer_type(z).checked_type == relay.TensorType(want.shape, "float32")
    got = relay.create_executor("graph", target="llvm").evaluate(relay.Function([v], z))(x)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


def test_relay_resize_symbolic_size():
    n, c, h, w = (te.size_var(s) for s in "nchw")
    x = relay.var("x", relay.TensorType((n, c, h, w), "int8"))
    th, tw = te.var("th"), te.var("tw")
    zz = run_infer_type(relay.image.resize2d(x, (th, tw)))
    assert zz.checked_type == relay.TensorType((n, c, th, tw), "int8")


def test_bad_method():
    A = te.placeholder((1, 2, 3), name="A")
    with pytest.raises(tvm.TVMError, match="method"):
        topi.image.resize1d(A, [0.0, 0.0], (4,), "NCW", "lanczos")
