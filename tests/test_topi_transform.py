"""topi transform, math, reduction and image operators, built with their topi.generic
schedule and compared with numpy."""
import math

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(41)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def check(out, inputs, arrays, want, schedule=None, rtol=1e-5, atol=1e-5):
    s = (schedule or topi.generic.schedule_injective)(out)
    f = tvm.build(s, list(inputs) + [out], "llvm")
    dev = tvm.cpu()
    res = tvm.nd.array(np.zeros([int(x) for x in out.shape], out.dtype), dev)
    f(*[tvm.nd.array(a, dev) for a in arrays], res)
    np.testing.assert_allclose(res.numpy(), want, rtol=rtol, atol=atol)


def test_reshape_transpose_concat_squeeze_expand_cast():
    x, y = _rand(2, 3, 5), _rand(2, 1, 5)
    X, Y = te.placeholder(x.shape, name="X"), te.placeholder(y.shape, name="Y")
    check(topi.reshape(X, (5, -1)), [X], [x], x.reshape(5, -1))
    check(topi.transpose(X, (2, 0, 1)), [X], [x], x.transpose(2, 0, 1))
    check(topi.concatenate([X, Y], 1), [X, Y], [x, y], np.concatenate([x, y], 1))
    check(topi.squeeze(Y, 1), [Y], [y], y[:, 0])
    check(topi.expand_dims(X, -1, 2), [X], [x], x[..., None, None])
    check(topi.cast(X, "int32"), [X], [x * 4], (x * 4).astype("int32"))


@pytest.mark.parametrize("arg,axis", [(3, 1), ([1, 4], 2), ([0, 2, 2], 0)])
def test_split(arg, axis):
    x = _rand(3, 6, 5)
    X = te.placeholder(x.shape, name="X")
    outs = topi.split(X, arg, axis)
    wants = np.split(x, arg, axis)
    assert len(outs) == len(wants)
    for o, w in zip(outs, wants):
        if w.size:
            check(o, [X], [x], w)


@pytest.mark.parametrize("axis,mode", [(None, "clip"), (0, "wrap"), (1, "clip"), (2, "fast")])
def test_take(axis, mode):
    x = _rand(4, 5, 3)
    n = x.size if axis is None else x.shape[axis]
    lo, hi = (0, n) if mode == "fast" else (-n - 2, n + 3)
    ind = RNG.integers(lo, hi, (2, 3)).astype("int32")
    X, I = te.placeholder(x.shape, name="X"), te.placeholder(ind.shape, "int32", name="I")
    want = np.take(x, ind, axis=axis, mode="clip" if mode == "fast" else mode)
    check(topi.take(X, I, axis, mode=mode), [X, I], [x, ind], want)


@pytest.mark.parametrize("begin,end,strides,axes", [
    ([1, 0, 4], [3, 5, 0], [1, 2, -2], None), ([-3], [100], [2], [1]),
    ([2, -1], [0, -6], [-1, -2], [0, 2]), ([0, 1, 1], [4, 4, 6], None, None)])
def test_strided_slice(begin, end, strides, axes):
    x = _rand(4, 7, 6)
    X = te.placeholder(x.shape, name="X")
    want = ref.strided_slice_python(x, begin, end, strides, axes=axes)
    check(topi.strided_slice(X, begin, end, strides, axes), [X], [x], want)


def test_strided_slice_size_mode():
    x = _rand(4, 7)
    X = te.placeholder(x.shape, name="X")
    check(topi.strided_slice(X, [1, 2], [2, -1], slice_mode="size"), [X], [x], x[1:3, 2:])


def test_where_and_layout_transform():
    c, x, y = RNG.integers(0, 2, (3, 1, 5)).astype("int32"), _rand(4, 5), _rand(3, 4, 1)
    C = te.placeholder(c.shape, "int32", name="C")
    X, Y = te.placeholder(x.shape, name="X"), te.placeholder(y.shape, name="Y")
    check(topi.where(C, X, Y), [C, X, Y], [c, x, y], np.where(c, x, y))
    check(topi.where(C, X, 2.0), [C, X], [c, x], np.where(c, x, np.float32(2.0)))
    a = _rand(2, 6, 3, 5)
    A = te.placeholder(a.shape, name="A")
    P = topi.layout_transform(A, "NCHW", "NCHW4c")  # 6 channels: padded to 8
    assert [int(d) for d in P.shape] == [2, 2, 3, 5, 4]
    ap = np.pad(a, [(0, 0), (0, 2), (0, 0), (0, 0)])
    want = ap.reshape(2, 2, 4, 3, 5).transpose(0, 1, 3, 4, 2)
    check(P, [A], [a], want)
    check(topi.layout_transform(A, "NCHW", "NHWC"), [A], [a], a.transpose(0, 2, 3, 1))
    b = want
    B = te.placeholder(b.shape, name="B")
    back = topi.layout_transform(B, "NCHW4c", "NCHW")
    check(back, [B], [b], ap)
    w = _rand(8, 6, 3, 3)
    W = te.placeholder(w.shape, name="W")
    Wp = topi.layout_transform(W, "OIHW", "OIHW3i4o")
    check(Wp, [W], [w], w.reshape(2, 4, 2, 3, 3, 3).transpose(0, 2, 4, 5, 3, 1))


@pytest.mark.parametrize("fname,npf", [("sum", np.sum), ("max", np.max), ("min", np.min),
                                       ("prod", np.prod)])
@pytest.mark.parametrize("axis,keepdims", [(None, False), ((0, 2), True), (-1, False)])
def test_reductions_built(fname, npf, axis, keepdims):
    x = _rand(3, 4, 5) * 0.8
    X = te.placeholder(x.shape, name="X")
    check(getattr(topi, fname)(X, axis, keepdims), [X], [x],
          npf(x, axis=axis, keepdims=keepdims), topi.generic.schedule_reduce, rtol=1e-4)


@pytest.mark.parametrize("fname", ["argmax", "argmin"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, True), (-1, False)])
def test_arg_reductions(fname, axis, keepdims):
    x = RNG.integers(-3, 4, (3, 5, 4)).astype("float32")  # ties: the first index wins
    X = te.placeholder(x.shape, name="X")
    R = getattr(topi, fname)(X, axis, keepdims)
    assert R.dtype == "int32" and R.op.tag == "comm_reduce_idx"
    want = getattr(np, fname)(x, axis=axis)
    if keepdims:
        want = np.expand_dims(want, axis)
    check(R, [X], [x], want, topi.generic.schedule_reduce)
    L = getattr(topi, fname)(X, axis, keepdims, select_last_index=True)
    flip = [slice(None)] * 3
    if axis is not None:
        flip[axis] = slice(None, None, -1)
        wl = x.shape[axis] - 1 - getattr(np, fname)(x[tuple(flip)], axis=axis)
        if keepdims:
            wl = np.expand_dims(wl, axis)
    else:
        wl = x.size - 1 - getattr(np, fname)(x.ravel()[::-1])
    check(L, [X], [x], wl, topi.generic.schedule_reduce)


def test_mean_via_sum():
    x = _rand(3, 4, 5)
    X = te.placeholder(x.shape, name="X")
    M = topi.divide(topi.sum(X, (1, 2), True), 20.0)
    check(M, [X], [x], x.mean(axis=(1, 2), keepdims=True), topi.generic.schedule_reduce)


def test_math_fast_and_erf_gelu():
    x = np.concatenate([_rand(97) * 4, [-100.0, -20.0, 0.0, 20.0, 100.0]]).astype("float32")
    X = te.placeholder(x.shape, name="X")
    erf = np.vectorize(math.erf)
    check(topi.fast_exp(X), [X], [x], np.exp(np.clip(x, -86.6, 88.3762626647949)), rtol=2e-6,
          atol=1e-37)
    check(topi.fast_tanh(X), [X], [x], np.tanh(x), rtol=1e-5, atol=2e-6)
    check(topi.fast_erf(X), [X], [x], erf(x), atol=5e-7)
    check(topi.erf(X), [X], [x], erf(x), atol=1e-6)
    # gelu from the pieces: 0.5 * x * (1 + erf(x / sqrt 2))
    G = topi.multiply(topi.multiply(X, 0.5),
                      topi.add(topi.erf(topi.multiply(X, 1 / math.sqrt(2))), 1.0))
    check(G, [X], [x], 0.5 * x * (1 + erf(x / math.sqrt(2))), atol=1e-5)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("method,mode", [("nearest_neighbor", "asymmetric"),
                                         ("nearest_neighbor", "align_corners"),
                                         ("linear", "half_pixel"), ("linear", "align_corners"),
                                         ("linear", "asymmetric")])
def test_resize2d(layout, method, mode):
    x = _rand(1, 2, 5, 7)
    data = x if layout == "NCHW" else x.transpose(0, 2, 3, 1)
    X = te.placeholder(data.shape, name="X")
    scale = (1.6, 0.75)
    size = (round(5 * scale[0]), round(7 * scale[1]))
    R = topi.image.resize2d(X, [0.0] * 4, size, layout, method, mode)
    assert R.op.name == "resize" and R.op.tag == "injective"
    want = ref.resize2d_python(data, scale, layout, method, mode)
    check(R, [X], [data], want, rtol=1e-5, atol=1e-5)


# ---- operators built with the default schedule (te.create_schedule) ----

def run(out, inputs, arrays):
    s = te.create_schedule(out.op)
    f = tvm.build(s, list(inputs) + [out], "llvm")
    dev = tvm.cpu()
    res = tvm.nd.array(np.zeros([int(x) for x in out.shape], out.dtype), dev)
    f(*[tvm.nd.array(a, dev) for a in arrays], res)
    return res.numpy()


def _ph(a, name="A"):
    return te.placeholder(a.shape, str(a.dtype), name=name)


@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4])
def test_stack(axis):
    xs = [_rand(2, 5, 3) for _ in range(3)]
    Xs = [_ph(x, f"X{k}") for k, x in enumerate(xs)]
    out = topi.stack(Xs, axis)
    assert out.op.name == "T_stack" and out.op.tag == "injective"
    np.testing.assert_array_equal(run(out, Xs, xs), np.stack(xs, axis))


@pytest.mark.parametrize("shape,reps", [((2, 3), (2, 1)), ((3,), (2, 2, 3)), ((2, 3, 4), (3,)),
                                        ((5,), (1,))])
def test_tile(shape, reps):
    x = _rand(*shape)
    X = _ph(x)
    out = topi.tile(X, reps)
    assert out.op.name == "T_tile" and out.op.tag == "broadcast"
    np.testing.assert_array_equal(run(out, [X], [x]), np.tile(x, reps))


def test_tile_zero_reps_is_empty():
    X = te.placeholder((2, 3), name="X")
    assert [int(d) for d in topi.tile(X, (0, 2)).shape] == [0, 6]


@pytest.mark.parametrize("repeats,axis", [(1, 0), (3, 1), (2, -1), (4, -3)])
def test_repeat(repeats, axis):
    x = _rand(3, 2, 5)
    X = _ph(x)
    out = topi.repeat(X, repeats, axis)
    assert out.op.name == "T_repeat" and out.op.tag == "broadcast"
    np.testing.assert_array_equal(run(out, [X], [x]), np.repeat(x, repeats, axis))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_flip(axis):
    x = _rand(3, 4, 5)
    X = _ph(x)
    out = topi.flip(X, axis)
    assert out.op.name == "T_reverse_sequence"
    np.testing.assert_array_equal(run(out, [X], [x]), np.flip(x, axis))


@pytest.mark.parametrize("seq_axis,batch_axis", [(1, 0), (0, 1), (-1, 0), (2, -2)])
def test_reverse_sequence(seq_axis, batch_axis):
    x = _rand(4, 5, 6)
    nb = x.shape[batch_axis]
    lens = RNG.integers(-1, x.shape[seq_axis] + 3, nb).astype("int32")
    X, L = _ph(x), _ph(lens, "L")
    want = x.copy()
    sa, ba = seq_axis % 3, batch_axis % 3
    for b in range(nb):
        n = min(int(lens[b]), x.shape[sa])
        if n <= 1:
            continue
        src = np.take(x, [b], ba)
        idx = [slice(None)] * 3
        idx[ba] = slice(b, b + 1)
        sel = [slice(None)] * 3
        sel[sa] = slice(0, n)
        part = src[tuple(sel)]
        idx[sa] = slice(0, n)
        want[tuple(idx)] = np.flip(part, sa)
    np.testing.assert_array_equal(run(topi.reverse_sequence(X, L, seq_axis, batch_axis),
                                      [X, L], [x, lens]), want)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather(axis):
    x = _rand(3, 5, 4)
    ishape = list(x.shape)
    ishape[axis] = 7
    ind = RNG.integers(0, x.shape[axis], ishape).astype("int32")
    X, I = _ph(x), _ph(ind, "I")
    out = topi.gather(X, axis, I)
    assert out.op.name == "T_gather" and list(out.shape) == ishape
    np.testing.assert_array_equal(run(out, [X, I], [x, ind]), ref.gather_python(x, axis, ind))


@pytest.mark.parametrize("ishape", [(1, 4), (2, 3, 2), (3, 5)])
def test_gather_nd(ishape):
    x = _rand(3, 4, 5)
    ind = np.stack([RNG.integers(0, x.shape[k], ishape[1:]) for k in range(ishape[0])]) \
        .astype("int32")
    X, I = _ph(x), _ph(ind, "I")
    out = topi.gather_nd(X, I)
    want = ref.gather_nd_python(x, ind)
    assert out.op.name == "T_gather_nd" and [int(d) for d in out.shape] == list(want.shape)
    np.testing.assert_array_equal(run(out, [X, I], [x, ind]), want)


def test_gather_nd_batch_dims():
    x = _rand(2, 4, 5)
    ind = RNG.integers(0, 4, (1, 2, 3)).astype("int32")
    X, I = _ph(x), _ph(ind, "I")
    want = np.stack([x[b][ind[0, b]] for b in range(2)])
    np.testing.assert_array_equal(run(topi.gather_nd(X, I, 1), [X, I], [x, ind]), want)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    ind = RNG.integers(-1, 6, (3, 4)).astype("int32")  # -1 and 5 (>= depth) give off_value
    I = _ph(ind, "I")
    out = topi.one_hot(I, tvm.tir.const(2.5, "float32"), 0.5, 5, axis, "float32")
    assert out.op.name == "T_one_hot" and out.dtype == "float32"
    oh = np.where(ind[..., None] == np.arange(5), 2.5, 0.5).astype("float32")
    want = np.moveaxis(oh, -1, axis)
    np.testing.assert_array_equal(ref.one_hot(ind, 2.5, 0.5, 5, axis, "float32"), want)
    np.testing.assert_array_equal(run(out, [I], [ind]), want)


@pytest.mark.parametrize("args,dtype", [((7,), "int32"), ((2, 11, 3), "float32"),
                                        ((5, -4, -2.5), "float32"), ((1.0, 2.0, 0.3), "float64")])
def test_arange(args, dtype):
    out = topi.arange(*args, dtype=dtype)
    assert out.op.name == "T_arange"
    want = np.arange(*args).astype(dtype)
    np.testing.assert_allclose(run(out, [], []), want, rtol=1e-6)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul(ta, tb):
    a, b = _rand(5, 3), _rand(3, 7)
    a2, b2 = (a.T.copy() if ta else a), (b.T.copy() if tb else b)
    A, B = _ph(a2), _ph(b2, "B")
    out = topi.matmul(A, B, ta, tb)
    assert out.op.name == "T_matmul" and out.op.tag == "matmul"
    np.testing.assert_allclose(run(out, [A, B], [a2, b2]), a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ashape,bshape,axes", [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (4, 5), 0),
                                                ((3, 4, 5), (5, 2, 3), ([0, 2], [2, 0])),
                                                ((3, 4), (4, 3), ([-1], [0]))])
def test_tensordot(ashape, bshape, axes):
    a, b = _rand(*ashape), _rand(*bshape)
    A, B = _ph(a), _ph(b, "B")
    out = topi.tensordot(A, B, axes)
    assert out.op.name == "T_tensordot"
    np.testing.assert_allclose(run(out, [A, B], [a, b]), np.tensordot(a, b, axes), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("axis", [0, 1])
def test_sequence_mask(axis):
    x = _rand(5, 3, 2) if axis == 0 else _rand(3, 5, 2)
    lens = np.array([0, 2, 7], "int32")
    X, L = _ph(x), _ph(lens, "L")
    out = topi.sequence_mask(X, L, -1.5, axis)
    assert out.op.name == "T_sequence_mask"
    pos = np.arange(5)
    keep = pos[:, None] < lens[None, :] if axis == 0 else lens[:, None] > pos[None, :]
    want = np.where(keep[..., None], x, np.float32(-1.5))
    np.testing.assert_array_equal(run(out, [X, L], [x, lens]), want)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    xs = [_rand(3), _rand(4), _rand(2)]
    Xs = [_ph(x, f"X{k}") for k, x in enumerate(xs)]
    outs = topi.meshgrid(Xs, indexing)
    wants = np.meshgrid(*xs, indexing=indexing)
    assert len(outs) == 3
    for o, w in zip(outs, wants):
        assert o.op.name == "T_meshgrid"
        np.testing.assert_array_equal(run(o, Xs, xs), w)


@pytest.mark.parametrize("k", [0, 1, -2, 5])
@pytest.mark.parametrize("upper", [True, False])
def test_trilu(k, upper):
    x = _rand(2, 4, 5)
    X = _ph(x)
    out = topi.trilu(X, k, upper)
    assert out.op.name == "trilu" and out.op.tag == "elemwise"
    want = np.triu(x, k) if upper else np.tril(x, k)
    np.testing.assert_array_equal(run(out, [X], [x]), want)


@pytest.mark.parametrize("ind", [np.array([0, 7, 22, 59], "int32"), np.array(41, "int64")])
def test_unravel_index(ind):
    shp = np.array([3, 4, 5], ind.dtype)
    I, S = _ph(ind, "I"), _ph(shp, "S")
    out = topi.unravel_index(I, S)
    assert out.op.name == "T_unravel" and out.dtype == str(ind.dtype)
    want = np.array(np.unravel_index(ind, tuple(shp)))
    np.testing.assert_array_equal(run(out, [I, S], [ind, shp]), want)


def test_expand_like():
    x = _rand(3, 4)
    X = _ph(x)
    like = te.placeholder((2, 3, 5, 4), name="L")
    out = topi.expand_like(X, like, [0, -2])
    want = np.broadcast_to(x[None, :, None, :], (2, 3, 5, 4))
    np.testing.assert_array_equal(run(out, [X], [x]), want)
    s = _rand(1)
    S = _ph(s, "S")
    np.testing.assert_array_equal(run(topi.expand_like(S, like, [0, 1, 2, 3]), [S], [s]),
                                  np.full((2, 3, 5, 4), s[0]))


@pytest.mark.parametrize("n", [1, 5, 13])
def test_invert_permutation(n):
    p = RNG.permutation(n).astype("int32")
    P = _ph(p, "P")
    np.testing.assert_array_equal(run(topi.invert_permutation(P), [P], [p]), np.argsort(p))


def _set_diag_ref(x, diag, k1, k2, align):
    return ref.matrix_set_diag(x, diag, k1 if k1 == k2 else (k1, k2), align)


@pytest.mark.parametrize("k,align", [(0, "RIGHT_LEFT"), (1, "RIGHT_LEFT"), (-2, "LEFT_RIGHT"),
                                     ((-1, 2), "RIGHT_LEFT"), ((-2, 1), "LEFT_RIGHT"),
                                     ((0, 1), "LEFT_LEFT"), ((-1, 0), "RIGHT_RIGHT")])
def test_matrix_set_diag(k, align):
    x = _rand(2, 4, 5)
    k1, k2 = (k, k) if isinstance(k, int) else k
    maxlen = max(min(4 + min(d, 0), 5 - max(d, 0)) for d in range(k1, k2 + 1))
    diag = _rand(2, maxlen) if k1 == k2 else _rand(2, k2 - k1 + 1, maxlen)
    X, D = _ph(x), _ph(diag, "D")
    out = topi.matrix_set_diag(X, D, k, align)
    assert out.op.name == "T_matrix_set_diag"
    np.testing.assert_array_equal(run(out, [X, D], [x, diag]),
                                  _set_diag_ref(x, diag, k1, k2, align))


@pytest.mark.parametrize("axis,window,strides", [(1, [3, 2], [2, 1]), (0, [2, 3, 4], [1, 2, 3]),
                                                 (2, [5], [5])])
def test_sliding_window(axis, window, strides):
    x = _rand(4, 5, 6)
    X = _ph(x)
    out = topi.sliding_window(X, axis, window, strides)
    assert out.op.name == "T_sliding_window"
    v = np.lib.stride_tricks.sliding_window_view(x, window, axis=tuple(range(axis, 3)))
    v = v[(slice(None),) * axis + tuple(slice(None, None, s) for s in strides)]
    np.testing.assert_array_equal(run(out, [X], [x]), v)


@pytest.mark.parametrize("case", ["0d", "1d", "2d", "scalar_value"])
def test_sparse_to_dense(case):
    if case == "0d":
        idx, vals, shp = np.array(2, "int32"), np.array(7.0, "float32"), [5]
    elif case in ("1d", "scalar_value"):
        idx, shp = np.array([0, 3, 4], "int32"), [6]
        vals = np.array(3.5, "float32") if case == "scalar_value" else \
            np.array([1, 2, 3], "float32")
    else:
        idx, vals, shp = np.array([[0, 1], [2, 3], [1, 0]], "int64"), \
            np.array([4, 5, 6], "float32"), [3, 4]
    I, V = _ph(idx, "I"), _ph(vals, "V")
    D = te.placeholder((), "float32", name="D")
    out = topi.sparse_to_dense(I, shp, V, D)
    assert out.op.name == "T_sparse_to_dense"
    want = np.full(shp, -1.0, "float32")
    want[tuple(idx.T) if idx.ndim == 2 else idx] = vals
    np.testing.assert_array_equal(run(out, [I, V, D], [idx, vals, np.array(-1.0, "float32")]),
                                  want)
    np.testing.assert_array_equal(run(topi.sparse_to_dense(I, shp, V), [I, V], [idx, vals]),
                                  np.where(want == -1.0, 0, want))


def test_shape_and_ndarray_size():
    X = te.placeholder((3, 1, 7), name="X")
    out = topi.shape(X, "int64")
    assert out.op.name == "T_shape" and out.dtype == "int64"
    np.testing.assert_array_equal(run(out, [X], [_rand(3, 1, 7)]), [3, 1, 7])
    sz = topi.ndarray_size(X)
    assert sz.op.name == "ndarray_size" and len(sz.shape) == 0 and sz.dtype == "int32"
    assert run(sz, [X], [_rand(3, 1, 7)]) == 21


def test_full_and_full_like():
    x = _rand(3, 1, 4)
    X = te.placeholder(x.shape, name="X")
    check(topi.full((2, 5), "float32", 1.5), [], [], np.full((2, 5), 1.5, "float32"))
    check(topi.full((3,), "int32", 7.9), [], [], np.full((3,), 7, "int32"))
    check(topi.full_like(X, -2), [X], [x], np.full(x.shape, -2.0, "float32"))
    with pytest.raises(topi.utils.TopiError, match="full"):
        topi.full((2, -1), "float32", 0)


@pytest.mark.parametrize("axis, exclusive", [(None, False), (0, True), (-1, False), (1, True)])
def test_cumsum(axis, exclusive):
    x = _rand(3, 5, 4)
    X = te.placeholder(x.shape, name="X")
    want = np.cumsum(x, axis=axis)
    if exclusive:
        want = want - x
    check(topi.cumsum(X, axis, exclusive=exclusive), [X], [x], want,
          schedule=topi.generic.schedule_reduce, rtol=1e-5, atol=1e-5)
    i = RNG.integers(-3, 3, (7,)).astype("int32")
    Y = te.placeholder(i.shape, "int32", name="Y")
    check(topi.cumsum(Y, 0, "int64"), [Y], [i], np.cumsum(i).astype("int64"),
          schedule=topi.generic.schedule_reduce)
