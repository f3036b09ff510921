"""Convolution variants compared with numpy on random inputs of odd sizes: grouped
``conv2d_NCHWc``, ``group_conv2d_transpose_nchw``, ``conv2d`` with a non-default kernel
layout, and the x86 direct-convolution schedules (1-D, 3-D, depthwise and transposed ones,
with an element-wise epilogue)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(11)


def run(s, args, arrays, out):
    f = tvm.build(s, list(args) + [out], "llvm")
    res = tvm.nd.empty([int(x) for x in out.shape], out.dtype)
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


@pytest.mark.parametrize("groups, ic_bn, oc_bn, ic, oc, size, k, stride, pad", [
    (2, 2, 3, 8, 6, 7, 3, 1, 1),
    (3, 1, 2, 9, 6, 5, 3, 2, 0),
    (1, 4, 4, 8, 8, 6, 1, 1, 0),
])
def test_grouped_conv2d_NCHWc(groups, ic_bn, oc_bn, ic, oc, size, k, stride, pad):  # noqa: N802
    a = RNG.uniform(-1, 1, (2, ic, size, size + 2)).astype("float32")
    w = RNG.uniform(-1, 1, (oc, ic // groups, k, k)).astype("float32")
    want = ref.conv2d_nchw_python(a, w, stride, pad, groups)
    A = te.placeholder((2, ic // ic_bn, size, size + 2, ic_bn), name="A")
    W = te.placeholder((oc // oc_bn, ic // ic_bn // groups, k, k, ic_bn, oc_bn), name="W")
    C = topi.nn.conv2d_NCHWc(A, W, stride, pad, 1, f"NCHW{ic_bn}c", f"NCHW{oc_bn}c")
    got = run(te.create_schedule(C.op), [A, W], [ref.pack_nchwc(a, ic_bn),
                                                  ref.pack_oihw(w, ic_bn, oc_bn)], C)
    np.testing.assert_allclose(ref.unpack_nchwc(got), want, rtol=1e-5, atol=1e-5)


def test_grouped_conv2d_NCHWc_refuses_chunks_groups_do_not_divide():  # noqa: N802
    A = te.placeholder((1, 3, 5, 5, 2), name="A")
    W = te.placeholder((4, 2, 3, 3, 2, 2), name="W")
    with pytest.raises(tvm.TVMError, match="multiple"):
        topi.nn.conv2d_NCHWc(A, W, 1, 1, 1, "NCHW2c", "NCHW2c")


@pytest.mark.parametrize("groups, ic, oc, hw, k, stride, pad, opad", [
    (2, 4, 6, (5, 7), (3, 3), (2, 2), (1, 1, 1, 1), (1, 0)),
    (3, 9, 3, (4, 3), (2, 3), (1, 2), (0, 1, 0, 0), (0, 1)),
    (1, 3, 5, (6, 6), (3, 3), (1, 1), (0, 0, 0, 0), (0, 0)),
])
def test_group_conv2d_transpose_nchw(groups, ic, oc, hw, k, stride, pad, opad):
    a = RNG.uniform(-1, 1, (2, ic, *hw)).astype("float32")
    w = RNG.uniform(-1, 1, (ic, oc // groups, *k)).astype("float32")
    want = ref.conv2d_transpose_nchw_python(a, w, stride, pad, opad, groups)
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    C = topi.nn.group_conv2d_transpose_nchw(A, W, stride, pad, "float32", opad, groups)
    assert C.op.tag == "group_conv2d_transpose_nchw"
    got = run(topi.generic.schedule_group_conv2d_transpose_nchw([C]), [A, W], [a, w], C)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    if groups == 1:  # the ungrouped reference agrees with itself by another route
        np.testing.assert_allclose(
            want, ref.conv2d_transpose_nchw_python(a, w, stride, pad, opad), rtol=1e-6)


def test_grouped_transposed_reference_is_per_group():
    a = RNG.uniform(-1, 1, (1, 4, 3, 3)).astype("float32")
    w = RNG.uniform(-1, 1, (4, 1, 2, 2)).astype("float32")
    got = ref.conv2d_transpose_nchw_python(a, w, 1, 0, (0, 0), 2)
    for g in range(2):
        part = ref.conv2d_transpose_nchw_python(a[:, 2 * g:2 * g + 2], w[2 * g:2 * g + 2], 1, 0)
        np.testing.assert_allclose(got[:, g:g + 1], part, rtol=1e-6)


@pytest.mark.parametrize("data_layout, kernel_layout, perm_a, perm_w", [
    ("NHWC", "OHWI", (0, 2, 3, 1), (0, 2, 3, 1)),
    ("NCHW", "HWIO", (0, 1, 2, 3), (2, 3, 1, 0)),
])
def test_conv2d_other_kernel_layouts(data_layout, kernel_layout, perm_a, perm_w):
    a = RNG.uniform(-1, 1, (2, 3, 7, 5)).astype("float32")  # NCHW
    w = RNG.uniform(-1, 1, (4, 3, 3, 2)).astype("float32")  # OIHW
    want = ref.conv2d_nchw_python(a, w, (2, 1), (1, 0, 1, 1)).transpose(perm_a)
    A = te.placeholder(a.transpose(perm_a).shape, name="A")
    W = te.placeholder(w.transpose(perm_w).shape, name="W")
    C = topi.nn.conv2d(A, W, (2, 1), (1, 0, 1, 1), 1, data_layout=data_layout,
                       kernel_layout=kernel_layout)
    got = run(te.create_schedule(C.op), [A, W], [a.transpose(perm_a), w.transpose(perm_w)], C)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_conv2d_layout_keyword_and_positional_out_dtype():
    A = te.placeholder((1, 5, 5, 2), name="A")
    W = te.placeholder((3, 3, 2, 4), name="W")
    assert topi.nn.conv2d(A, W, 1, 1, 1, layout="NHWC").op.tag == "conv2d_nhwc"
    C = topi.nn.conv2d(A, W, 1, 1, 1, "NHWC", "", "float64")
    assert C.dtype == "float64"


def _epilogue(C):
    return topi.nn.relu(topi.add(C, topi.full((1,) * C.ndim, C.dtype, 0.25)))


def test_x86_conv1d_schedules():
    a = RNG.uniform(-1, 1, (2, 6, 13)).astype("float32")
    w = RNG.uniform(-1, 1, (4, 3, 3)).astype("float32")
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    C = topi.nn.group_conv1d_ncw(A, W, 2, 1, 1, 2)
    D = _epilogue(C)
    with tvm.target.Target("llvm"):
        s = topi.x86.schedule_group_conv1d_ncw([D])
    want = np.maximum(ref.group_conv1d_ncw_python(a, w, 2, 1, 1, 2) + 0.25, 0)
    np.testing.assert_allclose(run(s, [A, W], [a, w], D), want, rtol=1e-5, atol=1e-5)
    # NWC, ungrouped, conv as the output itself
    A2 = te.placeholder((2, 13, 6), name="A2")
    W2 = te.placeholder((3, 6, 5), name="W2")
    C2 = topi.nn.conv1d_nwc(A2, W2, 1, "SAME", 2)
    with tvm.target.Target("llvm"):
        s2 = topi.x86.schedule_conv1d_nwc([C2])
    w2 = RNG.uniform(-1, 1, (3, 6, 5)).astype("float32")
    want2 = ref.conv1d_ncw_python(a, w2.transpose(2, 1, 0), 1, "SAME", 2).transpose(0, 2, 1)
    np.testing.assert_allclose(run(s2, [A2, W2], [a.transpose(0, 2, 1), w2], C2), want2,
                               rtol=1e-5, atol=1e-5)


def test_x86_conv3d_depthwise_and_transpose_schedules():
    a = RNG.uniform(-1, 1, (1, 4, 5, 6, 7)).astype("float32")
    w = RNG.uniform(-1, 1, (3, 4, 3, 2, 3)).astype("float32")
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    C = topi.x86.conv3d_ncdhw(A, W, 1, 1, 1, 1, "float32")
    with tvm.target.Target("llvm"):
        s = topi.x86.schedule_conv3d_ncdhw([_epilogue(C)])
    want = np.maximum(ref.conv3d_ncdhw_python(a, w, 1, 1) + 0.25, 0)
    np.testing.assert_allclose(run(s, [A, W], [a, w], s.outputs[0].output(0)), want,
                               rtol=1e-5, atol=1e-5)

    d = RNG.uniform(-1, 1, (2, 3, 9, 7)).astype("float32")
    f = RNG.uniform(-1, 1, (3, 2, 3, 3)).astype("float32")
    D, F = te.placeholder(d.shape, name="D"), te.placeholder(f.shape, name="F")
    E = topi.x86.depthwise_conv2d_nchw(D, F, 2, 1, 1, "float32")
    with tvm.target.Target("llvm"):
        s = topi.x86.schedule_depthwise_conv2d_nchw([E])
    np.testing.assert_allclose(run(s, [D, F], [d, f], E),
                               ref.depthwise_conv2d_python_nchw(d, f, 2, 1), rtol=1e-5,
                               atol=1e-5)

    t = RNG.uniform(-1, 1, (3, 4, 3, 2)).astype("float32")
    T = te.placeholder(t.shape, name="T")
    with tvm.target.Target("llvm"):  # a conv2d_NCHWc.x86 config: compute and schedule alike
        G = topi.x86.conv2d_transpose_nchw(D, T, (2, 2), (1, 1), "float32", (1, 0))
        s = topi.x86.schedule_conv2d_transpose_nchw([G])
    np.testing.assert_allclose(run(s, [D, T], [d, t], G),
                               ref.conv2d_transpose_nchw_python(d, t, (2, 2), (1, 1), (1, 0)),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn, shape, axes", [
    (topi.nn.scale_shift_nchw, (2, 3, 5, 4), (1,)),
    (topi.nn.scale_shift_nhwc, (2, 5, 4, 3), (3,)),
    (topi.nn.scale_shift_nchwc, (1, 3, 5, 4, 2), (1, 4)),
])
def test_scale_shift(fn, shape, axes):
    x = RNG.uniform(-1, 1, shape).astype("float32")
    cshape = tuple(shape[a] for a in axes)
    sc, sh = (RNG.uniform(-1, 1, cshape).astype("float32") for _ in range(2))
    X, S, H = (te.placeholder(v.shape, name=n) for v, n in ((x, "X"), (sc, "S"), (sh, "H")))
    Y = fn(X, S, H)
    f = tvm.build(te.create_schedule(Y.op), [X, S, H, Y], "llvm")
    y = tvm.nd.empty(shape)
    f(tvm.nd.array(x), tvm.nd.array(sc), tvm.nd.array(sh), y)
    bshape = [1] * len(shape)
    for a, d in zip(axes, cshape):
        bshape[a] = d
    np.testing.assert_allclose(y.numpy(), x * sc.reshape(bshape) + sh.reshape(bshape),
                               rtol=1e-6, atol=1e-6)
    with pytest.raises(tvm.TVMError, match="Scale"):
        fn(X, te.placeholder((7,) * len(axes), name="bad"), H)


def test_depthwise_nhwc_kernel_layouts_and_older_signature():
    a = RNG.uniform(-1, 1, (1, 7, 6, 3)).astype("float32")
    w = RNG.uniform(-1, 1, (3, 3, 3, 2)).astype("float32")  # HWOI: (KH, KW, C, M)
    want = ref.depthwise_conv2d_python_nhwc(a, w, 1, 1)
    A = te.placeholder(a.shape, name="A")
    for layout, wt in (("HWOI", w), ("HWIO", w.transpose(0, 1, 3, 2))):
        W = te.placeholder(wt.shape, name="W")
        C = topi.nn.depthwise_conv2d_nhwc(A, W, 1, 1, 1, layout)
        got = run(te.create_schedule(C.op), [A, W], [a, wt], C)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    W = te.placeholder(w.shape, name="W")
    assert topi.nn.depthwise_conv2d_nhwc(A, W, 1, 1, 1, "float64").dtype == "float64"
    with pytest.raises(tvm.TVMError, match="kernel_layout"):
        topi.nn.depthwise_conv2d_nhwc(A, W, 1, 1, 1, "OIHW")


@pytest.mark.parametrize("c, cb, mult, ob", [(4, 2, 1, 2), (3, 3, 2, 3), (6, 2, 1, 3)])
def test_depthwise_nchwc_reference_matches_topi(c, cb, mult, ob):
    a = RNG.uniform(-1, 1, (2, c, 7, 5)).astype("float32")
    w = RNG.uniform(-1, 1, (c, mult, 3, 3)).astype("float32")
    want = ref.depthwise_conv2d_python_nchw(a, w, 2, "SAME")
    packed_w = w.reshape(c * mult, 1, 3, 3)
    packed_w = packed_w.reshape(c * mult // ob, ob, 1, 3, 3).transpose(0, 2, 3, 4, 1)[
        :, :, :, :, None, :]
    got_ref = ref.depthwise_conv2d_python_nchwc(ref.pack_nchwc(a, cb), packed_w, 2, "SAME")
    np.testing.assert_allclose(ref.unpack_nchwc(got_ref), want, rtol=1e-5, atol=1e-6)
    A = te.placeholder((2, c // cb, 7, 5, cb), name="A")
    W = te.placeholder(packed_w.shape, name="W")
    C = topi.nn.depthwise_conv2d_NCHWc(A, W, 2, "SAME", 1, f"NCHW{cb}c", f"NCHW{ob}c")
    got = run(te.create_schedule(C.op), [A, W], [ref.pack_nchwc(a, cb), packed_w], C)
    np.testing.assert_allclose(got, got_ref, rtol=1e-5, atol=1e-6)


def test_conv_workloads_and_x86_fallback_configs():
    from tvmlite.topi.nn.conv2d import _get_workload
    from tvmlite.topi.nn.depthwise_conv2d import _get_workload as _dw_workload
    from tvmlite.topi.x86.conv2d_avx_common import _fallback_schedule
    from tvmlite.topi.x86.depthwise_conv2d import _fallback_schedule as _dw_fallback

    A = te.placeholder((1, 6, 15, 17), name="A")
    W = te.placeholder((8, 3, 3, 5), name="W")
    wkl = _get_workload(A, W, (1, 2), "SAME", (1, 2), "float32")
    assert (wkl.groups, wkl.in_filter, wkl.out_filter, wkl.kernel_w, wkl.dilation_w) == \
        (2, 6, 8, 5, 2)
    assert (wkl.padt, wkl.padl, wkl.padb, wkl.padr) == (1, 4, 1, 4)
    out_w = (17 + 8 - 9) // 2 + 1
    with tvm.target.Target("llvm"):
        cfg = tvm.autotvm.get_config()
        _fallback_schedule(cfg, wkl)
    assert np.prod(cfg["tile_ow"].size) == out_w
    assert np.prod(cfg["tile_ic"].size) == 6 and np.prod(cfg["tile_oc"].size) == 8
    D = te.placeholder((1, 15, 17, 4), name="D")
    F = te.placeholder((3, 3, 4, 2), name="F")
    dw = _dw_workload(D, F, 1, "VALID", 1, "float32", "NHWC")
    assert (dw.in_filter, dw.out_filter, dw.width) == (4, 8, 17)
    with tvm.target.Target("llvm"):
        cfg = tvm.autotvm.get_config()
        _dw_fallback(cfg, dw)
    assert np.prod(cfg["tile_ow"].size) == 15
