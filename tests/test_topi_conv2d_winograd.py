"""Winograd convolution: the transform matrices (exact), topi.nn.conv2d_winograd_weight_transform
and the x86 conv2d_nchw_winograd[_without_weight_transform] against a float64 numpy reference
on random N(0, 1) data (odd sizes, padding 0/1, batch 1/2, every tile size), and a sample of
the template's configs."""
import random
from fractions import Fraction

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm, te, topi
from tvmlite.topi.nn.winograd_util import winograd_fractions, winograd_numpy
from tvmlite.topi.utils import TopiError
from tvmlite.topi.x86 import conv2d_winograd as wg

TOL = 1e-4  # max |error| / max |reference|, float32 against float64


def _conv_ref(x, w, pad):
    """float64 NCHW x OIHW cross-correlation, stride 1."""
    x = np.pad(x.astype("float64"), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    k, _, kh, kw = w.shape
    oh, ow = h - kh + 1, wd - kw + 1
    out = np.zeros((n, k, oh, ow))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,kc->nkhw", x[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return out


def _rel_err(got, ref):
    return float(np.abs(got - ref).max() / np.abs(ref).max())


@pytest.mark.parametrize("m", [2, 3, 4, 5, 6])
def test_transform_matrices_compute_the_correlation_exactly(m):
    a, b, g = winograd_fractions(m, 3)
    rng = random.Random(m)
    d = [Fraction(rng.randint(-9, 9)) for _ in range(m + 2)]
    k = [Fraction(rng.randint(-9, 9)) for _ in range(3)]
    gg = [sum(g[j][i] * k[i] for i in range(3)) for j in range(m + 2)]
    bd = [sum(b[i][j] * d[i] for i in range(m + 2)) for j in range(m + 2)]
    y = [sum(a[j][i] * gg[j] * bd[j] for j in range(m + 2)) for i in range(m)]
    assert y == [sum(d[i + t] * k[t] for t in range(3)) for i in range(m)]


def test_transform_matrices_classic_shapes_and_errors():
    A, B, G = topi.nn.winograd_util.winograd_transform_matrices(4, 3, "float32")
    assert [tuple(int(x) for x in t.shape) for t in (A, B, G)] == [(6, 4), (6, 6), (6, 3)]
    f = tvm.build(te.create_schedule(B.op), [B])
    out = tvm.nd.empty((6, 6))
    f(out)
    np.testing.assert_allclose(out.numpy(), winograd_numpy(4, 3)[1])
    with pytest.raises(TopiError, match="tile size"):
        winograd_fractions(1, 3)
    with pytest.raises(TopiError, match="kernel size"):
        winograd_fractions(4, 9)


@pytest.mark.parametrize("m", [2, 4, 6])
def test_weight_transform_matches_numpy(m):
    k = te.placeholder((5, 3, 3, 3), name="k")
    u = topi.nn.conv2d_winograd_weight_transform(k, m)
    f = tvm.build(te.create_schedule(u.op), [k, u])
    kn = np.random.randn(5, 3, 3, 3).astype("float32")
    out = tvm.nd.empty((m + 2, m + 2, 5, 3))
    f(tvm.nd.array(kn), out)
    g = winograd_numpy(m, 3)[2]
    ref = np.einsum("ea,oiab,nb->enoi", g, kn.astype("float64"), g)
    assert _rel_err(out.numpy(), ref) < 1e-6
    with pytest.raises(TopiError, match="square"):
        topi.nn.conv2d_winograd_weight_transform(te.placeholder((2, 2, 3, 1)), m)


def _config_with(task, **want):
    """A config of ``task`` whose knobs have the values ``want`` (split knobs: the last
    factor), drawn at random among them."""
    space = task.config_space
    idx = list(range(len(space)))
    random.Random(len(idx)).shuffle(idx)
    for i in idx:
        cfg = space.get(i)
        if all((cfg[k].size[-1] if hasattr(cfg[k], "size") else cfg[k].val) == v
               for k, v in want.items()):
            return cfg
    raise AssertionError(f"no config with {want}")


def _run_nchw(x, w, pad, cfg):
    data = te.placeholder(x.shape, name="data")
    kernel = te.placeholder(w.shape, name="kernel")
    with tvm.target.Target("llvm"), autotvm.ApplyConfig(cfg):
        out = wg.conv2d_nchw_winograd(data, kernel, 1, pad, 1, "float32")
        s = wg.schedule_conv2d_nchw_winograd(out)
        f = tvm.build(s, [data, kernel, out])
    res = tvm.nd.empty(tuple(int(d) for d in out.shape))
    f(tvm.nd.array(x), tvm.nd.array(w), res)
    return res.numpy()


def _task(n, c, h, w, k, pad):
    data = te.placeholder((n, c, h, w), name="data")
    kernel = te.placeholder((k, c, 3, 3), name="kernel")
    return autotvm.task.create("conv2d_nchw_winograd.x86",
                               (data, kernel, (1, 1), (pad,) * 4, (1, 1), "float32"), "llvm")


@pytest.mark.parametrize("m,n,c,h,w,k,pad,icb,ocb", [
    (2, 1, 8, 7, 9, 16, 1, 8, 16),    # odd sizes, not divisible by the tile
    (4, 1, 8, 7, 9, 16, 1, 8, 16),
    (4, 2, 4, 11, 6, 8, 0, 4, 8),     # batch 2, no padding
    (6, 1, 16, 5, 5, 24, 1, 4, 8),    # channel blocks narrower than a vector
])
def test_conv2d_nchw_winograd_matches_float64(m, n, c, h, w, k, pad, icb, ocb):
    rng = np.random.default_rng(m * 100 + c)
    x = rng.standard_normal((n, c, h, w)).astype("float32")
    wt = rng.standard_normal((k, c, 3, 3)).astype("float32")
    cfg = _config_with(_task(n, c, h, w, k, pad), tile_size=m, tile_ic=icb, tile_oc=ocb)
    got = _run_nchw(x, wt, pad, cfg)
    err = _rel_err(got, _conv_ref(x, wt, pad))
    print(f"F({m}x{m},3x3) {n}x{c}x{h}x{w} -> {k}, pad {pad}: max rel err {err:.2e}")
    assert err <= TOL


def test_winograd_f6_accuracy_with_many_channels():
    # F(6x6, 3x3), the least accurate tile, over the deepest ResNet-18 layer's reduction
    # (512 channels), 7x7: measured 1.4e-5 (F(4x4): 8e-6, F(2x2): 1e-6)
    c, k, m = 512, 16, 6
    rng = np.random.default_rng(m)
    x = rng.standard_normal((1, c, 7, 7)).astype("float32")
    wt = rng.standard_normal((k, c, 3, 3)).astype("float32")
    cfg = _config_with(_task(1, c, 7, 7, k, 1), tile_size=m, tile_ic=16, tile_oc=16)
    err = _rel_err(_run_nchw(x, wt, 1, cfg), _conv_ref(x, wt, 1))
    print(f"F({m}x{m},3x3) 512 channels: max rel err {err:.2e}")
    assert err <= TOL


@pytest.mark.parametrize("packed", [False, True])
def test_without_weight_transform_matches(packed):
    n, c, h, w, k, m = 2, 8, 9, 10, 16, 4
    rng = np.random.default_rng(7)
    x = rng.standard_normal((n, c, h, w)).astype("float32")
    wt = rng.standard_normal((k, c, 3, 3)).astype("float32")
    g = winograd_numpy(m, 3)[2]
    u = np.einsum("ea,oiab,nb->enoi", g, wt.astype("float64"), g).astype("float32")
    icb, ocb = 4, 8
    if packed:  # NCHW4c data, (alpha, alpha, K/8, C, 8) kernel
        xd = x.reshape(n, c // icb, icb, h, w).transpose(0, 1, 3, 4, 2).copy()
        ud = u.reshape(m + 2, m + 2, k // ocb, ocb, c).transpose(0, 1, 2, 4, 3).copy()
    else:
        xd, ud = x, u
    data = te.placeholder(xd.shape, name="data")
    kernel = te.placeholder(ud.shape, name="kernel")
    with tvm.target.Target("llvm"), autotvm.FallbackContext():
        out = wg.conv2d_nchw_winograd_without_weight_transform(data, kernel, 1, 1, 1,
                                                               "float32")
        f = tvm.build(wg.schedule_conv2d_nchw_winograd(out), [data, kernel, out])
    res = tvm.nd.empty(tuple(int(d) for d in out.shape))
    f(tvm.nd.array(xd), tvm.nd.array(ud), res)
    got = res.numpy()
    if packed:
        got = got.transpose(0, 1, 4, 2, 3).reshape(n, k, h, w)
    assert _rel_err(got, _conv_ref(x, wt, 1)) <= TOL


def test_config_sample_matches_reference():
    # the schedule fuzzer's spirit: a random sample of the whole space of a small workload
    n, c, h, w, k, pad = 1, 4, 6, 7, 8, 1
    task = _task(n, c, h, w, k, pad)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, c, h, w)).astype("float32")
    wt = rng.standard_normal((k, c, 3, 3)).astype("float32")
    ref = _conv_ref(x, wt, pad)
    for i in random.Random(5).sample(range(len(task.config_space)), 4):
        cfg = task.config_space.get(i)
        assert _rel_err(_run_nchw(x, wt, pad, cfg), ref) <= TOL, cfg


def test_bad_arguments_raise_clear_errors():
    data = te.placeholder((1, 4, 8, 8), name="data")
    with pytest.raises(TopiError, match="3x3"):
        wg.conv2d_nchw_winograd(data, te.placeholder((4, 4, 5, 5)), 1, 1, 1)
    with pytest.raises(TopiError, match="stride 1"):
        wg.conv2d_nchw_winograd(data, te.placeholder((4, 4, 3, 3)), 2, 1, 1)
    with pytest.raises(TopiError, match="dilation 1"):
        wg.conv2d_nchw_winograd(data, te.placeholder((4, 4, 3, 3)), 1, 1, 2)
    with pytest.raises(TopiError, match="input channels"):
        wg.conv2d_nchw_winograd(data, te.placeholder((4, 3, 3, 3)), 1, 1, 1)
    with pytest.raises(TopiError, match="tile size"):
        wg.conv2d_nchw_winograd_without_weight_transform(
            data, te.placeholder((5, 5, 4, 4)), 1, 1, 1)
    assert wg.winograd_eligible((8, 8, 3, 3), (1, 1), (1, 1))
    assert not wg.winograd_eligible((8, 8, 3, 3), (2, 2), (1, 1))
    assert not wg.winograd_eligible((8, 8, 1, 1), (1, 1), (1, 1))
