"""``topi.image.grid_sample`` / ``dilation2d_nchw/nhwc`` and the relay ops
``image.grid_sample`` / ``image.dilation2d`` against per-point loop references on odd
sizes."""
import itertools
import math

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, te, topi
from tvmlite.relay.testing import run_infer_type
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(7)


def run(out, ins, arrays):
    f = tvm.build(te.create_schedule(out.op), list(ins) + [out], "llvm")
    res = tvm.nd.empty([int(x) for x in out.shape], out.dtype)
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


def _sample_point(img, pt, method, padding, align):
    """One grid_sample output: ``img`` (C, *sizes), ``pt`` normalised (x, y[, z])."""
    sizes = img.shape[1:]
    coords = []
    for k, s in enumerate(sizes):
        g = pt[len(sizes) - 1 - k]
        coords.append((g + 1) * (s - 1) / 2 if align else ((g + 1) * s - 1) / 2)

    def reflect(x, s):
        lo, span = (0.0, s - 1) if align else (-0.5, s)
        while x < lo or x > lo + span:  # bounce off the edges one at a time
            x = 2 * lo - x if x < lo else 2 * (lo + span) - x
        return x

    def fix(x, s):
        if padding == "reflection":
            x = reflect(x, s)
        return min(max(x, 0), s - 1) if padding != "zeros" else x

    def px(idx):
        if all(0 <= i < s for i, s in zip(idx, sizes)):
            return img[(slice(None),) + tuple(idx)]
        return np.zeros(img.shape[0])

    if method == "nearest":
        return px([int(round(fix(c, s))) for c, s in zip(coords, sizes)])
    taps = []
    for c, s in zip(coords, sizes):
        if method == "bilinear":
            c = fix(c, s)
            lo = math.floor(c)
            taps.append([(lo, 1 - (c - lo)), (lo + 1, c - lo)])
        else:
            lo = math.floor(c)
            t, a = c - lo, -0.75
            w = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                 ((a + 2) * t - (a + 3)) * t * t + 1,
                 ((a + 2) * (1 - t) - (a + 3)) * (1 - t) ** 2 + 1,
                 ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
            taps.append([(int(fix(lo - 1 + k, s)) if padding != "zeros" else lo - 1 + k, w[k])
                         for k in range(4)])
    return sum(px([i for i, _ in combo]) * np.prod([w for _, w in combo])
               for combo in itertools.product(*taps))


def _grid_sample_loop(data, grid, method, padding, align):
    nd = data.ndim - 2
    out = np.zeros(data.shape[:2] + grid.shape[2:])
    for n in range(data.shape[0]):
        for o in np.ndindex(*grid.shape[2:]):
            pt = [grid[(n, k) + o] for k in range(nd)]
            out[(n, slice(None)) + o] = _sample_point(data[n].astype("float64"), pt, method,
                                                      padding, align)
    return out


@pytest.mark.parametrize("method", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample_2d(method, padding, align):
    data = RNG.uniform(size=(2, 3, 5, 7)).astype("float32")
    grid = RNG.uniform(-2.7, 2.7, size=(2, 2, 3, 4)).astype("float32")
    want = _grid_sample_loop(data, grid, method, padding, align)
    np.testing.assert_allclose(ref.grid_sample_python(data, grid, method, "NCHW", padding,
                                                      align), want, rtol=1e-5, atol=1e-5)
    D, G = te.placeholder(data.shape, name="D"), te.placeholder(grid.shape, name="G")
    out = topi.image.grid_sample(D, G, method, "NCHW", padding, align)
    np.testing.assert_allclose(run(out, [D, G], [data, grid]), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("method", ["nearest", "bilinear"])
@pytest.mark.parametrize("padding", ["zeros", "reflection"])
def test_grid_sample_3d_relay(method, padding):
    data = RNG.uniform(size=(1, 2, 3, 5, 4)).astype("float32")
    grid = RNG.uniform(-1.6, 1.6, size=(1, 3, 2, 3, 5)).astype("float32")
    want = _grid_sample_loop(data, grid, method, padding, False)
    d = relay.var("d", relay.TensorType(data.shape, "float32"))
    g = relay.var("g", relay.TensorType(grid.shape, "float32"))
    z = relay.image.grid_sample(d, g, method, "NCDHW", padding, False)
    assert run_infer_type(z).checked_type == relay.TensorType((1, 2, 2, 3, 5), "float32")
    got = relay.create_executor("graph", target="llvm").evaluate(relay.Function([d, g], z))(
        data, grid)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


def test_grid_sample_errors():
    D3 = te.placeholder((1, 2, 3, 4, 5), name="D")
    G3 = te.placeholder((1, 3, 2, 2, 2), name="G")
    with pytest.raises(tvm.TVMError, match="method"):
        topi.image.grid_sample(D3, G3, "bicubic", "NCDHW")
    with pytest.raises(tvm.TVMError, match="layout"):
        topi.image.grid_sample(D3, G3, "bilinear", "NCHW")


def _dilation_loop(x, w, strides, pads, dil):
    """NCHW dilation, zero padding; ``w`` is (C, KH, KW)."""
    top, left, bottom, right = pads
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    kh, kw = w.shape[1:]
    oh = (xp.shape[2] - (kh - 1) * dil[0] - 1) // strides[0] + 1
    ow = (xp.shape[3] - (kw - 1) * dil[1] - 1) // strides[1] + 1
    out = np.full(x.shape[:2] + (oh, ow), -np.inf)
    for i in range(kh):
        for j in range(kw):
            win = xp[:, :, i * dil[0]:i * dil[0] + (oh - 1) * strides[0] + 1:strides[0],
                     j * dil[1]:j * dil[1] + (ow - 1) * strides[1] + 1:strides[1]]
            out = np.maximum(out, win + w[None, :, i, j, None, None])
    return out


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("strides, pads, dil", [((1, 1), (0, 0, 0, 0), (1, 1)),
                                                ((2, 1), (1, 2, 0, 1), (1, 2))])
def test_dilation2d(layout, strides, pads, dil):
    x = RNG.uniform(-1, 1, (2, 3, 9, 7)).astype("float32")
    w = RNG.uniform(-1, 1, (3, 3, 2)).astype("float32")
    want = _dilation_loop(x, w, strides, pads, dil)
    if layout == "NHWC":
        x, w, want = x.transpose(0, 2, 3, 1), w.transpose(1, 2, 0), want.transpose(0, 2, 3, 1)
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(w.shape, name="W")
    fn = topi.image.dilation2d_nchw if layout == "NCHW" else topi.image.dilation2d_nhwc
    np.testing.assert_allclose(run(fn(X, W, strides, pads, dil), [X, W], [x, w]), want,
                               rtol=1e-5)
    xv = relay.var("x", relay.TensorType(x.shape, "float32"))
    wv = relay.var("w", relay.TensorType(w.shape, "float32"))
    z = relay.image.dilation2d(xv, wv, strides, pads, dil, layout,
                               "IHW" if layout == "NCHW" else "HWI")
    got = relay.create_executor("graph", target="llvm").evaluate(relay.Function([xv, wv], z))(
        x, w)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


def test_dilation2d_symbolic_batch():
    n = te.var("n")
    x = relay.var("x", relay.TensorType((n, 4, 11, 9), "float32"))
    w = relay.var("w", relay.TensorType((4, 3, 2), "float32"))
    z = relay.image.dilation2d(x, w, strides=[1, 1, 1, 1], dilations=[1, 1, 1, 1])
    assert run_infer_type(z).checked_type == relay.TensorType((n, 4, 9, 8), "float32")
