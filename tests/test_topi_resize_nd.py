"""Resizing of 1, 2 and 3 spatial axes (``topi.image.resize1d/2d/3d``), packed layouts,
``topi.nn.upsampling3d``, against independent numpy computations on odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(9)


def run(out, A, a):
    f = tvm.build(te.create_schedule(out.op), [A, out], "llvm")
    res = tvm.nd.empty([int(x) for x in out.shape], out.dtype)
    f(tvm.nd.array(a), res)
    return res.numpy()


def _linear_1d(x, n_out, axis, mode):
    """Plain-loop linear interpolation along ``axis`` (an independent reference)."""
    n_in = x.shape[axis]
    out = []
    for o in range(n_out):
        if mode == "align_corners":
            c = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        elif mode == "asymmetric":
            c = o * n_in / n_out
        else:
            c = (o + 0.5) * n_in / n_out - 0.5
        lo = int(np.floor(c))
        t = c - lo
        a = np.take(x, min(max(lo, 0), n_in - 1), axis=axis)
        b = np.take(x, min(max(lo + 1, 0), n_in - 1), axis=axis)
        out.append(a * (1 - t) + b * t)
    return np.stack(out, axis=axis)


@pytest.mark.parametrize("mode", ["align_corners", "asymmetric", "half_pixel"])
@pytest.mark.parametrize("layout, shape, size", [
    ("NCW", (2, 3, 7), (11,)), ("NWC", (2, 7, 3), (4,)),
    ("NCDHW", (1, 2, 5, 4, 3), (7, 3, 5)), ("NDHWC", (1, 5, 4, 3, 2), (2, 6, 5)),
])
def test_linear_resize_1d_3d(layout, shape, size, mode):
    x = RNG.uniform(-1, 1, shape).astype("float32")
    A = te.placeholder(shape, name="A")
    fn = topi.image.resize1d if len(size) == 1 else topi.image.resize3d
    B = fn(A, [0.0] * 2 * len(size), size, layout, "linear", mode)
    want = x.astype("float64")
    for letter, n in zip("DHW"[-len(size):], size):
        want = _linear_1d(want, n, layout.index(letter), mode)
    np.testing.assert_allclose(run(B, A, x), want, rtol=1e-5, atol=1e-5)
    scale = [n / shape[layout.index(c)] for c, n in zip("DHW"[-len(size):], size)]
    refn = ref.resize1d_python if len(size) == 1 else ref.resize3d_python
    np.testing.assert_allclose(refn(x, scale, layout, "linear", mode), want, rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("layout, shape", [("NCHW4c", (1, 2, 5, 3, 4)),
                                           ("NCHW2n4c", (2, 1, 5, 3, 2, 4))])
@pytest.mark.parametrize("method", ["nearest_neighbor", "bilinear"])
def test_upsampling_packed_layouts(layout, shape, method):
    x = RNG.uniform(-1, 1, shape).astype("float32")
    A = te.placeholder(shape, name="A")
    B = topi.nn.upsampling(A, 2.0, 1.5, layout, method)
    assert [int(d) for d in B.shape] == [shape[0], shape[1], 10, 4, *shape[4:]]
    # the packed axes are carried: each block equals the NCHW upsampling of that block
    flat = np.moveaxis(x, (2, 3), (-2, -1))
    flat = flat.reshape(-1, 1, 5, 3)
    want = ref.resize2d_python(flat, (2.0, 1.5), "NCHW", method.replace("bi", ""),
                               "asymmetric")
    got = np.moveaxis(run(B, A, x), (2, 3), (-2, -1)).reshape(-1, 1, 10, 4)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_integer_upscale_nearest_is_exact_integer_division():
    x = RNG.uniform(-1, 1, (1, 2, 3, 5)).astype("float32")
    A = te.placeholder(x.shape, name="A")
    B = topi.nn.upsampling(A, 3, 2)
    np.testing.assert_array_equal(run(B, A, x), x.repeat(3, axis=2).repeat(2, axis=3))
    body = str(B.op.body[0])
    assert "floor(" not in body  # integer division, no float rounding


@pytest.mark.parametrize("layout", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("method", ["nearest_neighbor", "trilinear"])
def test_upsampling3d(layout, method):
    shape = (1, 2, 3, 4, 5) if layout == "NCDHW" else (1, 3, 4, 5, 2)
    x = RNG.uniform(-1, 1, shape).astype("float32")
    A = te.placeholder(shape, name="A")
    B = topi.nn.upsampling3d(A, 2, 1.5, 3, layout, method, "asymmetric")
    want = ref.resize3d_python(x, (2, 1.5, 3), layout, method.replace("tri", ""), "asymmetric")
    np.testing.assert_allclose(run(B, A, x), want, rtol=1e-5, atol=1e-5)
    if method == "nearest_neighbor":
        axes = [layout.index(c) for c in "DHW"]
        manual = x
        for a, n in zip(axes, (6, 6, 15)):
            idx = (np.arange(n) * x.shape[a] / n).astype(int)
            manual = np.take(manual, idx, axis=a)
        np.testing.assert_array_equal(want, manual)


def test_resize_layout_errors():
    A = te.placeholder((1, 2, 3, 4), name="A")
    with pytest.raises(tvm.TVMError, match="layout"):
        topi.image.resize2d(A, [0.0] * 4, (3, 3), layout="HWCN")
    with pytest.raises(tvm.TVMError, match="block a spatial axis"):
        topi.image.resize2d(te.placeholder((1, 2, 3, 4, 2), name="P"), [0.0] * 4, (3, 3),
                            layout="NCHW2h")


def test_module_functions_items_is_a_list():
    A = te.placeholder((3,), name="A")
    B = te.compute((3,), lambda i: A[i] + 1, name="B")
    mod = tvm.lower(te.create_schedule(B.op), [A, B])
    name, func = mod.functions.items()[0]
    assert name == "main" and func.body is not None


def test_affine_grid():
    theta = RNG.uniform(-1, 1, (2, 2, 3)).astype("float32")
    D = te.placeholder(theta.shape, name="D")
    G = topi.image.affine_grid(D, (4, 5))
    got = run(G, D, theta)
    for n in range(2):
        for i in range(4):
            for j in range(5):
                x, y = -1 + 2 * j / 4, -1 + 2 * i / 3
                want = theta[n] @ np.array([x, y, 1.0])
                np.testing.assert_allclose(got[n, :, i, j], want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ref.affine_grid_python(theta, (4, 5)), got, rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(tvm.TVMError, match="target_shape"):
        topi.image.affine_grid(D, (1, 5))
