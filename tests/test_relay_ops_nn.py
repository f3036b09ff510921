"""The relay.nn operators added for classic TVM user code (conv1d/3d, 1-D/3-D and adaptive
pooling, instance/group norm, lrn, depth_to_space, mirror_pad, upsampling, prelu, dropout,
matmul), built with relay.build and run by the graph executor against numpy."""
import itertools

import numpy as np
import pytest
from relay_helpers import build_run, kernel_names

from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.relay.op.registry import make_call
from tvmlite.relay.transform.infer_type import RelayTypeInferenceError
from tvmlite.topi import testing as ref


def _rand(rng, *shape):
    return rng.standard_normal(shape).astype("float32")


def _run(make, arrays, params=()):
    vs = [relay.var(f"v{i}", shape=a.shape, dtype=str(a.dtype)) for i, a in enumerate(arrays)]
    p = {f"v{i}": arrays[i] for i in params}
    inputs = {f"v{i}": a for i, a in enumerate(arrays) if i not in params}
    return build_run(relay.Function(vs, make(*vs)), inputs, p)


def _one(make, *arrays, params=()):
    return _run(make, arrays, params)[0][0]


def _pool_np(x, k, s, d, lo, hi, kind, ceil=False, count_include_pad=False):
    """N-D pooling over the trailing ``len(k)`` axes of NC... data (windows must start in
    the input or the leading padding)."""
    nd = len(k)
    spatial = x.shape[2:]
    fill = -np.inf if kind == "max" else 0.0
    outs = []
    for j in range(nd):
        eff = (k[j] - 1) * d[j] + 1
        span = spatial[j] + lo[j] + hi[j] - eff
        o = -(-span // s[j]) + 1 if ceil else span // s[j] + 1
        if ceil and (o - 1) * s[j] >= spatial[j] + lo[j]:
            o -= 1
        outs.append(o)
    extra = [max((outs[j] - 1) * s[j] + (k[j] - 1) * d[j] + 1
                 - (spatial[j] + lo[j] + hi[j]), 0) for j in range(nd)]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(lo[j], hi[j] + extra[j]) for j in range(nd)],
                constant_values=fill)
    ones = np.pad(np.ones(spatial), [(lo[j], hi[j] + extra[j]) for j in range(nd)])
    inside_pad = np.pad(np.ones([spatial[j] + lo[j] + hi[j] for j in range(nd)]),
                        [(0, e) for e in extra])
    out = np.zeros(x.shape[:2] + tuple(outs), "float32")
    for o in itertools.product(*[range(n) for n in outs]):
        sl = tuple(slice(o[j] * s[j], o[j] * s[j] + (k[j] - 1) * d[j] + 1, d[j])
                   for j in range(nd))
        win = xp[(Ellipsis,) + sl]
        if kind == "max":
            out[(Ellipsis,) + o] = win.reshape(x.shape[:2] + (-1,)).max(-1)
        else:
            cnt = (inside_pad if count_include_pad else ones)[sl].sum()
            out[(Ellipsis,) + o] = win.reshape(x.shape[:2] + (-1,)).sum(-1) / max(cnt, 1)
    return out


@pytest.mark.parametrize("xs, ws, strides, padding, dilation, groups", [
    ((2, 3, 17), (5, 3, 3), 1, 1, 1, 1),
    ((1, 4, 20), (6, 2, 4), 2, (1, 2), 2, 2),
])
def test_conv1d(rng, xs, ws, strides, padding, dilation, groups):
    x, w = _rand(rng, *xs), _rand(rng, *ws)
    out = _one(lambda a, b: relay.nn.conv1d(a, b, strides, padding, dilation, groups), x, w,
               params=(1,))
    p = (padding, padding) if isinstance(padding, int) else padding
    want = ref.conv_nd_python(x, w, (strides,), (p[0],), (p[1],), (dilation,), groups)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_conv1d_nwc(rng):
    x, w = _rand(rng, 2, 11, 3), _rand(rng, 3, 3, 4)
    out = _one(lambda a, b: relay.nn.conv1d(a, b, padding=1, data_layout="NWC",
                                            kernel_layout="WIO"), x, w)
    want = ref.conv_nd_python(x.transpose(0, 2, 1), w.transpose(2, 1, 0), (1,), (1,), (1,),
                              (1,))
    np.testing.assert_allclose(out, want.transpose(0, 2, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("strides, padding, groups", [((1, 1, 1), (1, 0, 1), 1),
                                                      ((2, 1, 2), (0, 1, 1, 1, 0, 0), 2)])
def test_conv3d_bias_relu(rng, strides, padding, groups):
    x, w, b = _rand(rng, 1, 4, 5, 6, 7), _rand(rng, 6, 4 // groups, 3, 2, 3), _rand(rng, 6)
    out, factory = _run(lambda a, k, c: relay.nn.relu(relay.nn.bias_add(
        relay.nn.conv3d(a, k, strides, padding, groups=groups), c)), [x, w, b], params=(1, 2))
    pad = padding if len(padding) == 6 else padding + padding
    want = ref.conv_nd_python(x, w, strides, pad[:3], pad[3:], (1, 1, 1), groups)
    want = np.maximum(want + b[:, None, None, None], 0)
    np.testing.assert_allclose(out[0], want, rtol=1e-4, atol=1e-4)
    assert len(kernel_names(factory)) == 1  # bias_add and relu fuse into the conv


@pytest.mark.parametrize("n, kind, k, s, d, pad, ceil, cip", [
    (1, "max", (3,), (2,), (1,), (1, 1), False, False),
    (1, "avg", (4,), (3,), (1,), (1, 2), True, True),
    (1, "avg", (2,), (1,), (2,), (0, 1), False, False),
    (3, "max", (2, 3, 2), (2, 1, 2), (1, 1, 1), (0, 1, 1, 1, 1, 0), True, False),
    (3, "avg", (3, 2, 2), (1, 2, 2), (1, 1, 1), (1, 0, 1, 1, 0, 1), False, False),
])
def test_pool_1d_3d(rng, n, kind, k, s, d, pad, ceil, cip):
    x = _rand(rng, 2, 3, 13) if n == 1 else _rand(rng, 1, 2, 5, 6, 7)
    fn = getattr(relay.nn, f"{kind}_pool{n}d")
    extra = {"count_include_pad": cip} if kind == "avg" else {}
    out = _one(lambda a: fn(a, k, s, d, pad, ceil_mode=ceil, **extra), x)
    want = _pool_np(x, k, s, d, pad[:n], pad[n:], kind, ceil, cip)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind, size", [("avg", (3, 2)), ("max", (4, 5)), ("avg", None),
                                        ("max", 2)])
def test_adaptive_pool2d(rng, kind, size):
    x = _rand(rng, 2, 3, 7, 9)
    fn = getattr(relay.nn, f"adaptive_{kind}_pool2d")
    out = _one(lambda a: fn(a, size), x)
    osize = (7, 9) if size is None else (size, size) if isinstance(size, int) else size
    np.testing.assert_allclose(out, ref.adaptive_pool(x, osize, kind), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind, size", [("avg", 4), ("max", 3), ("avg", None)])
def test_adaptive_pool1d(rng, kind, size):
    x = _rand(rng, 2, 3, 10)
    out = _one(lambda a: getattr(relay.nn, f"adaptive_{kind}_pool1d")(a, size), x)
    ow = 10 if size is None else size
    want = ref.adaptive_pool(x[:, :, None, :], (1, ow), kind)[:, :, 0]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_global_max_pool2d(rng):
    x = _rand(rng, 2, 5, 7, 3)
    out = _one(lambda a: relay.nn.global_max_pool2d(a), x)
    np.testing.assert_array_equal(out, x.max(axis=(2, 3), keepdims=True))


@pytest.mark.parametrize("shape, axis", [((2, 3, 5, 4), 1), ((2, 6, 5), -1), ((3, 4, 7), 1)])
def test_instance_norm(rng, shape, axis):
    x = _rand(rng, *shape)
    c = shape[axis]
    g, b = _rand(rng, c), _rand(rng, c)
    out = _one(lambda a, gg, bb: relay.nn.instance_norm(a, gg, bb, axis, 1e-3), x, g, b)
    ax = axis % len(shape)
    red = tuple(k for k in range(1, len(shape)) if k != ax)
    m, v = x.mean(red, keepdims=True), x.var(red, keepdims=True)
    bshape = [1] * len(shape)
    bshape[ax] = c
    want = (x - m) / np.sqrt(v + 1e-3) * g.reshape(bshape) + b.reshape(bshape)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("groups, center, scale", [(2, True, True), (3, False, True),
                                                   (6, True, False)])
def test_group_norm(rng, groups, center, scale):
    x, g, b = _rand(rng, 2, 6, 5, 3), _rand(rng, 6), _rand(rng, 6)
    out = _one(lambda a, gg, bb: relay.nn.group_norm(a, gg, bb, groups, center=center,
                                                     scale=scale), x, g, b)
    xs = x.reshape(2, groups, -1)
    norm = ((xs - xs.mean(-1, keepdims=True)) / np.sqrt(xs.var(-1, keepdims=True) + 1e-5))
    want = norm.reshape(x.shape)
    if scale:
        want = want * g[:, None, None]
    if center:
        want = want + b[:, None, None]
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_lrn(rng):
    x = _rand(rng, 2, 7, 4, 3)
    out = _one(lambda a: relay.nn.lrn(a, 3, 1, 1.5, 1e-2, 0.75), x)
    np.testing.assert_allclose(out, ref.lrn_python(x, 3, 1, 1.5, 1e-2, 0.75), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_to_space_roundtrip(rng, mode):
    x = _rand(rng, 2, 12, 3, 5)
    out = _one(lambda a: relay.nn.depth_to_space(a, 2, mode=mode), x)
    np.testing.assert_array_equal(out, ref.depth_to_space_python(x, 2, mode))
    y = _rand(rng, 1, 3, 6, 9)
    out = _one(lambda a: relay.nn.space_to_depth(a, 3), y)
    np.testing.assert_array_equal(out, ref.space_to_depth_python(y, 3))


@pytest.mark.parametrize("mode", ["SYMMETRIC", "REFLECT"])
def test_mirror_pad(rng, mode):
    x = _rand(rng, 2, 4, 5)
    width = ((0, 1), (2, 3), (1, 0))
    out = _one(lambda a: relay.nn.mirror_pad(a, width, mode), x)
    np.testing.assert_array_equal(out, np.pad(x, width, mode.lower()))


def test_upsampling(rng):
    x = _rand(rng, 1, 2, 3, 5)
    out = _one(lambda a: relay.nn.upsampling(a, 2, 3), x)
    np.testing.assert_array_equal(out, ref.upsampling_python(x, (2, 3)))


@pytest.mark.parametrize("axis", [1, -1])
def test_prelu(rng, axis):
    x = _rand(rng, 2, 3, 4)
    a = _rand(rng, x.shape[axis])
    out = _one(lambda v, s: relay.nn.prelu(v, s, axis), x, a)
    shape = [1, 1, 1]
    shape[axis] = -1
    np.testing.assert_allclose(out, np.where(x > 0, x, x * a.reshape(shape)), rtol=1e-6)


def test_dropout_is_identity_at_inference(rng):
    x = _rand(rng, 3, 5)
    out, factory = _run(lambda a: relay.exp(relay.nn.dropout(a, 0.3)), [x])
    np.testing.assert_allclose(out[0], np.exp(x), rtol=1e-6)
    raw = relay.nn.dropout_raw(relay.var("x", shape=(3, 5)))
    assert len(raw) == 2
    # without SimplifyInference the op lowers to the identity
    v = relay.var("v0", shape=(3, 5))
    out, _ = build_run(relay.Function([v], relay.add(relay.nn.dropout(v), relay.const(1.0))),
                       {"v0": x}, disabled_pass=["SimplifyInference"])
    np.testing.assert_allclose(out[0], x + 1, rtol=1e-6)


@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True),
                                    (True, True)])
def test_matmul(rng, ta, tb):
    a, b = _rand(rng, 5, 7), _rand(rng, 7, 3)
    a_in, b_in = (a.T.copy() if ta else a), (b.T.copy() if tb else b)
    out = _one(lambda x, y: relay.nn.relu(relay.nn.matmul(x, y, transpose_a=ta,
                                                          transpose_b=tb)), a_in, b_in)
    np.testing.assert_allclose(out, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True),
                                    (True, True)])
def test_matmul_nd_tensor_a(rng, ta, tb):
    """An N-D tensor_a is a batch of matrices (its last two axes swapped by transpose_a)."""
    a, b = _rand(rng, 2, 3, 5, 7), _rand(rng, 7, 3)
    a_in = a.swapaxes(-1, -2).copy() if ta else a
    b_in = b.T.copy() if tb else b
    out = _one(lambda x, y: relay.nn.matmul(x, y, transpose_a=ta, transpose_b=tb), a_in, b_in)
    assert out.shape == (2, 3, 5, 3)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("tb", [False, True])
def test_matmul_units_infers_tensor_b(tb):
    x = relay.var("x", shape=(4, 3, 5))
    w = relay.var("w", relay.IncompleteType())
    mod = relay.transform.InferType()(relay.IRModule.from_expr(
        relay.Function([x, w], relay.nn.matmul(x, w, units=6, transpose_b=tb))))
    params = mod["main"].params
    assert tuple(params[1].checked_type.shape) == ((6, 5) if tb else (5, 6))
    assert tuple(mod["main"].ret_type.shape) == (4, 3, 6)


def test_matmul_symbolic_reduction_matches():
    from tvmlite import te
    n, k = te.size_var("n"), te.size_var("k")
    out = _infer(lambda x, y: relay.nn.matmul(x, y), (n, 3, 2), (k, 7))
    assert tuple(out["main"].ret_type.shape)[1:] == (3, 7)


@pytest.mark.parametrize("make", [
    lambda x: relay.nn.max_pool2d(x, pool_size=(1, 1)),
    lambda x: relay.nn.avg_pool2d(x, pool_size=(1, 1)),
    lambda x: relay.nn.max_pool1d(relay.reshape(x, (1, 3, 16)), pool_size=1),
    lambda x: relay.nn.avg_pool3d(relay.reshape(x, (1, 3, 2, 2, 4)), pool_size=1),
])
def test_pool_size_is_always_printed(make):
    """pool_size has no default (classic): printed even when it is 1, and required."""
    x = relay.var("x", shape=(1, 3, 4, 4))
    call = make(x)
    assert "pool_size=" in call.astext()
    with pytest.raises(TVMError, match="required attribute"):
        make_call(call.op.name, [x])
    # a call built without make_call (as parsed text is) fails type inference clearly
    bare = relay.Call(call.op, [x], relay.expr.Attrs(
        {k: v for k, v in call.attrs.items() if k != "pool_size"}))
    with pytest.raises(RelayTypeInferenceError, match=r"required attribute\(s\) \['pool_size'\]"):
        relay.transform.InferType()(relay.IRModule.from_expr(relay.Function([x], bare)))


def _split_nc(x, nb, cb):
    """NCHW -> NCHW{nb}n{cb}c (also OIHW -> OIHW{nb}o{cb}i)."""
    n, c, h, w = x.shape
    return x.reshape(n // nb, nb, c // cb, cb, h, w).transpose(0, 2, 4, 5, 1, 3).copy()


@pytest.mark.parametrize("groups, out_layout", [(1, ""), (1, "NHWC"), (3, "NCHW2c")])
def test_conv2d_split_batch_layouts(rng, groups, out_layout):
    """Data NCHW2n3c and kernel OIHW2o3i (any axis split, classic's relation), computed as
    the NCHW convolution between layout transforms."""
    x, w = _rand(rng, 4, 6, 7, 5), _rand(rng, 6, 6 // groups, 3, 2)
    want = ref.conv2d_nchw_python(x, w, (2, 1), (1, 0)) if groups == 1 else np.concatenate(
        [ref.conv2d_nchw_python(x[:, 2 * g:2 * g + 2], w[2 * g:2 * g + 2], (2, 1), (1, 0))
         for g in range(3)], axis=1)
    ci = 3 if groups == 1 else 1
    out = _one(lambda a, b: relay.nn.conv2d(
        a, b, strides=(2, 1), padding=(1, 0), groups=groups, channels=6, kernel_size=(3, 2),
        data_layout="NCHW2n3c", kernel_layout=f"OIHW2o{ci}i", out_layout=out_layout),
        _split_nc(x, 2, 3), _split_nc(w, 2, ci))
    if out_layout == "":
        want = _split_nc(want, 2, 3)
    elif out_layout == "NHWC":
        want = want.transpose(0, 2, 3, 1)
    else:
        want = _split_nc(want, 1, 2)[..., 0, :]
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_conv2d_split_batch_weight_inferred():
    x = relay.var("x", shape=(1, 8, 9, 9, 4, 4), dtype="int8")
    w = relay.var("w")
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function([x, w], (
        relay.nn.conv2d(x, w, kernel_size=3, padding=1, channels=16, data_layout="NCHW4n4c",
                        kernel_layout="OIHW4o4i", out_dtype="int32")))))
    assert tuple(mod["main"].params[1].checked_type.shape) == (4, 8, 3, 3, 4, 4)
    assert tuple(mod["main"].ret_type.shape) == (1, 4, 9, 9, 4, 4)
    with pytest.raises(RelayTypeInferenceError, match="batch do not split by 3"):
        _infer(lambda a, b: relay.nn.conv2d(a, b, out_layout="NCHW3n"), (4, 2, 5, 5),
               (2, 2, 1, 1))


@pytest.mark.parametrize("make, layout, reduce_axes", [
    (relay.nn.global_max_pool1d, "NCW", (2,)), (relay.nn.global_avg_pool1d, "NWC", (1,)),
    (relay.nn.global_max_pool3d, "NDHWC", (1, 2, 3)),
    (relay.nn.global_avg_pool3d, "NCDHW", (2, 3, 4))])
def test_global_pool_1d_3d(rng, make, layout, reduce_axes):
    """classic: adaptive pooling to size 1 over the layout's spatial axes."""
    x = _rand(rng, *[(2, 3, 5, 4, 7)[i] for i in range(len(layout))])
    out = _one(lambda v: make(v, layout=layout), x)
    fn = np.max if "max" in make.__name__ else np.mean
    np.testing.assert_allclose(out, fn(x, axis=reduce_axes, keepdims=True), rtol=1e-5,
                               atol=1e-6)


def test_adaptive_pool_types_with_symbolic_shapes():
    from tvmlite import te
    n, c, w = te.size_var("n"), te.size_var("c"), te.size_var("w")
    for make, shape, layout, want in [
            (relay.nn.global_max_pool1d, (n, 7, c), "NWC", (n, 1, c)),
            (relay.nn.global_avg_pool1d, (n, c, w), "NCW", (n, c, 1)),
            (lambda v, layout: relay.nn.adaptive_avg_pool2d(v, (2, 3), layout), (n, 5, 6, c),
             "NHWC", (n, 2, 3, c))]:
        v = relay.var("v", relay.TensorType(shape, "float32"))
        mod = relay.transform.InferType()(relay.IRModule.from_expr(
            relay.Function([v], make(v, layout=layout))))
        assert tuple(mod["main"].ret_type.shape) == want
    with pytest.raises(RelayTypeInferenceError, match="must name N, C and H, W"):
        _infer(lambda v: relay.nn.adaptive_max_pool2d(v, 1, layout="NCW"), (1, 2, 3))


# ---------------------------------------------------------------------- type errors
def _infer(make, *shapes):
    vs = [relay.var(f"v{i}", shape=s) for i, s in enumerate(shapes)]
    return relay.transform.InferType()(relay.IRModule.from_expr(relay.Function(vs, make(*vs))))


@pytest.mark.parametrize("make, shapes, op", [
    (lambda x, w: relay.nn.conv1d(x, w), [(1, 3, 9), (4, 2, 3)], "nn.conv1d"),
    (lambda x, w: relay.nn.conv1d(x, w, channels=5), [(1, 3, 9), (4, 3, 3)], "nn.conv1d"),
    (lambda x, w: relay.nn.conv3d(x, w), [(1, 3, 4, 4), (4, 3, 1, 1)], "nn.conv3d"),
    (lambda x, w: relay.nn.conv3d(x, w, groups=2), [(1, 3, 4, 4, 4), (4, 1, 1, 1, 1)],
     "nn.conv3d"),
    (lambda x: relay.nn.max_pool1d(x, 5), [(1, 2, 3)], "nn.max_pool1d"),
    (lambda x: relay.nn.avg_pool3d(x, 2), [(1, 2, 3, 3)], "nn.avg_pool3d"),
    (lambda x: relay.nn.adaptive_avg_pool2d(x, 2), [(2, 3)], "nn.adaptive_avg_pool2d"),
    (lambda x, g, b: relay.nn.instance_norm(x, g, b), [(2, 3, 4), (4,), (4,)],
     "nn.instance_norm"),
    (lambda x, g, b: relay.nn.group_norm(x, g, b, 4), [(2, 6, 4), (6,), (6,)],
     "nn.group_norm"),
    (lambda x: relay.nn.lrn(x, 3, axis=5), [(1, 4, 2, 2)], "nn.lrn"),
    (lambda x: relay.nn.depth_to_space(x, 2), [(1, 6, 2, 2)], "nn.depth_to_space"),
    (lambda x: relay.nn.space_to_depth(x, 2), [(1, 6, 3, 2)], "nn.space_to_depth"),
    (lambda x: relay.nn.mirror_pad(x, ((4, 0), (0, 0))), [(3, 2)], "nn.mirror_pad"),
    (lambda x, a: relay.nn.prelu(x, a), [(2, 3, 4), (4,)], "nn.prelu"),
    (lambda x, y: relay.nn.matmul(x, y), [(2, 3), (4, 5)], "nn.matmul"),
    (lambda x, y: relay.nn.matmul(x, y, units=3), [(2, 3), (3, 5)], "nn.matmul"),
    (lambda x, y: relay.nn.matmul(x, y), [(2, 3), (3,)], "nn.matmul"),
    (lambda x, y: relay.nn.matmul(x, y), [(3,), (3, 2)], "nn.matmul"),
    (lambda x, y: relay.nn.matmul(x, y, transpose_a=True), [(2, 4, 3), (3, 2)], "nn.matmul"),
])
def test_type_errors_name_the_op(make, shapes, op):
    with pytest.raises(RelayTypeInferenceError, match=rf"\[in {op}\("):
        _infer(make, *shapes)


@pytest.mark.parametrize("axis", [(1,), (1, 2), None, (-1,)])
def test_l2_normalize(rng, axis):
    x = _rand(rng, 2, 5, 3, 7)
    out = _one(lambda a: relay.nn.relu(relay.nn.l2_normalize(a, 1e-10, axis)), x)
    axes = tuple(range(4)) if axis is None else tuple(a % 4 for a in axis)
    want = x / np.sqrt(np.maximum((x.astype("float64") ** 2).sum(axis=axes, keepdims=True),
                                  1e-10))
    np.testing.assert_allclose(out, np.maximum(want, 0), rtol=1e-5, atol=1e-6)
