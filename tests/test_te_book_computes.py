"""The computes of chapters 2 and 3 of *Dive into Deep Learning Compiler*, written as the book
writes them, turned into PrimFuncs and run by the numpy block interpreter on small sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.te.create_prim_func import create_prim_func_with_info
from tvmlite.tir.interpreter import run

RNG = np.random.default_rng(1)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


@pytest.mark.parametrize("dtype", ["float16", "float64", "int8", "int16", "int32", "int64"])
def test_vector_add_dtypes(dtype):
    n = 10
    A = te.placeholder((n,), dtype=dtype, name="a")
    B = te.placeholder((n,), dtype=dtype, name="b")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="c")
    assert (A.dtype, B.dtype, C.dtype) == (dtype, dtype, dtype)
    a = (RNG.standard_normal(n) * 10).astype(dtype)
    b = (RNG.standard_normal(n) * 10).astype(dtype)
    c = np.zeros(n, dtype)
    run(te.create_prim_func([A, B, C]), a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_vector_add_cast_elements():
    A = te.placeholder((10,))
    B = te.placeholder((10,))
    C = te.compute(A.shape, lambda i: A[i].astype("int32") + B[i].astype("int32"))
    assert (A.dtype, B.dtype, C.dtype) == ("float32", "float32", "int32")
    a, b = _rand(10) * 5, _rand(10) * 5
    c = np.zeros(10, "int32")
    run(te.create_prim_func([A, B, C]), a, b, c)
    np.testing.assert_array_equal(c, a.astype("int32") + b.astype("int32"))


def test_multi_dim_add_with_var_shapes():
    A = te.placeholder([te.var() for _ in range(3)])
    B = te.placeholder(A.shape)
    C = te.compute(A.shape, lambda *i: A[i] + B[i])
    a, b, c = _rand(2, 3, 4), _rand(2, 3, 4), np.zeros((2, 3, 4), "float32")
    run(te.create_prim_func([A, B, C]), a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_transpose_reshape_slice():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="a")
    a = np.arange(12, dtype="float32").reshape(3, 4)
    B = te.compute((m, n), lambda i, j: A[j, i], "b")
    b = np.zeros((4, 3), "float32")
    run(te.create_prim_func([A, B]), a, b)
    np.testing.assert_array_equal(b, a.T)
    B = te.compute((m * n,), lambda i: A[i // m, i % m], name="b")
    b = np.zeros(12, "float32")
    run(te.create_prim_func([A, B]), a, b)
    np.testing.assert_array_equal(b, a.reshape(-1))
    p, q = te.var("p"), te.var("q")
    B = te.compute((p, q), lambda i, j: A[(i * q + j) // m, (i * q + j) % m], name="b")
    b = np.zeros((2, 6), "float32")
    run(te.create_prim_func([A, B]), a, b)
    np.testing.assert_array_equal(b, a.reshape(2, 6))
    bi, bj, si, sj = [te.var(name) for name in ["bi", "bj", "si", "sj"]]
    B = te.compute(((n - bi) // si, (m - bj) // sj), lambda i, j: A[i * si + bi, j * sj + bj],
                   name="b")
    f = te.create_prim_func([A, B, bi, si, bj, sj])
    b = np.zeros((1, 3), "float32")
    run(f, a, b, 1, 2, 1, 1)
    np.testing.assert_array_equal(b, a[1::2, 1::1])
    b = np.zeros((1, 2), "float32")
    run(f, a, b, 2, 1, 0, 2)
    np.testing.assert_array_equal(b, a[2::1, 0::2])


def test_row_sum_total_sum_and_product():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="a")
    a = _rand(3, 4)
    j = te.reduce_axis((0, m), name="j")
    B = te.compute((n,), lambda i: te.sum(A[i, j], axis=j), name="b")
    b = np.zeros(3, "float32")
    run(te.create_prim_func([A, B]), a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-6)
    i = te.reduce_axis((0, n), name="i")
    B = te.compute((), lambda: te.sum(A[i, j], axis=(i, j)), name="b")
    b = np.zeros((), "float32")
    run(te.create_prim_func([A, B]), a, b)
    np.testing.assert_allclose(b, a.sum(), atol=1e-5)
    product = te.comm_reducer(lambda x, y: x * y, lambda dt: tvm.tir.const(1, dtype=dt))
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: product(A[i, k], axis=k), name="b")
    b = np.zeros(3, "float32")
    run(te.create_prim_func([A, B]), a, b)
    np.testing.assert_allclose(b, a.prod(axis=1), rtol=1e-5)
    M = te.compute((n,), lambda i: te.max(A[i, k], axis=k), name="mx")
    b = np.zeros(3, "float32")
    run(te.create_prim_func([A, M]), a, b)
    np.testing.assert_array_equal(b, a.max(axis=1))


def test_tril_and_zero_padding():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m))
    B = te.compute(A.shape, lambda i, j: te.if_then_else(i >= j, A[i, j], 0.0))
    a = np.arange(12, dtype="float32").reshape(3, 4)
    b = np.full((3, 4), 9, "float32")
    run(te.create_prim_func([A, B]), a, b)
    np.testing.assert_array_equal(b, np.tril(a))
    p = 1
    A = te.placeholder((n, m), name="a")
    B = te.compute((n + p * 2, m + p * 2),
                   lambda i, j: te.if_then_else(te.any(i < p, i >= n + p, j < p, j >= m + p),
                                                0, A[i - p, j - p]), name="b")
    b = np.full((5, 6), 9, "float32")
    run(te.create_prim_func([A, B]), np.ones((3, 4), "float32"), b)
    expect = np.zeros((5, 6), "float32")
    expect[1:-1, 1:-1] = 1
    np.testing.assert_array_equal(b, expect)


def broadcast_add(shape1, shape2):
    A = te.placeholder(shape1, name="A")
    B = te.placeholder(shape2, name="B")
    m = shape1[0] if shape2[0] == 1 else shape2[0]
    n = shape1[1] if shape2[1] == 1 else shape2[1]

    def f(x, y):
        return A[0 if shape1[0] == 1 else x, 0 if shape1[1] == 1 else y] + \
            B[0 if shape2[0] == 1 else x, 0 if shape2[1] == 1 else y]
    return A, B, te.compute((m, n), f, name="C")


@pytest.mark.parametrize("s1,s2", [((3, 1), (3, 4)), ((3, 1), (1, 4))])
def test_broadcast_add(s1, s2):
    A, B, C = broadcast_add(s1, s2)
    a, b = _rand(*s1), _rand(*s2)
    c = np.zeros(np.broadcast_shapes(s1, s2), "float32")
    run(te.create_prim_func([A, B, C]), a, b, c)
    np.testing.assert_allclose(c, a + b, atol=1e-6)


def test_matmul_lower_args_without_output():
    k = te.reduce_axis((0, 5), name="k")
    A = te.placeholder((4, 5), name="A")
    B = te.placeholder((5, 3), name="B")
    C = te.compute((4, 3), lambda x, y: te.sum(A[x, k] * B[k, y], axis=k), name="C")
    f = te.create_prim_func([A, B, C])
    a, b, c = _rand(4, 5), _rand(5, 3), np.zeros((4, 3), "float32")
    run(f, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    # the book lowers [A, B]: the schedule's output C becomes an allocation
    g, _ = create_prim_func_with_info([A, B], outputs=[C])
    assert [x.name for x in g.body.block.alloc_buffers] == ["C"]


def padding(X, ph, pw, val=0):
    assert len(X.shape) >= 2
    nh, nw = X.shape[-2], X.shape[-1]
    return te.compute(
        (*X.shape[0:-2], nh + ph * 2, nw + pw * 2),
        lambda *i: te.if_then_else(
            te.any(i[-2] < ph, i[-2] >= nh + ph, i[-1] < pw, i[-1] >= nw + pw),
            val, X[i[0:-2] + (i[-2] - ph, i[-1] - pw)]),
        name="PaddedX")


def conv_out_size(n, k, p, s):
    return (n - k + 2 * p) // s + 1


def _np_pad(x, ph, pw, val=0.0):
    return np.pad(x, ((0, 0), (ph, ph), (pw, pw)), constant_values=val)


def test_padding_3d():
    A = te.placeholder((2, 3, 4))
    B = padding(A, 1, 2)
    assert [a.var.name for a in B.op.axis] == ["i0", "i1", "i2"] and B.op.name == "PaddedX"
    b = np.zeros((2, 5, 8), "float32")
    run(te.create_prim_func([A, B]), np.ones((2, 3, 4), "float32"), b)
    np.testing.assert_array_equal(b, _np_pad(np.ones((2, 3, 4), "float32"), 1, 2))


@pytest.mark.parametrize("p,s", [(1, 1), (0, 2)])
def test_conv(p, s):
    oc, ic, n, k = 2, 3, 6, 3
    ric = te.reduce_axis((0, ic), name="ric")
    rkh = te.reduce_axis((0, k), name="rkh")
    rkw = te.reduce_axis((0, k), name="rkw")
    oh = ow = conv_out_size(n, k, p, s)
    X = te.placeholder((ic, n, n), name="X")
    K = te.placeholder((oc, ic, k, k), name="K")
    PaddedX = padding(X, p, p) if p * p != 0 else X
    Y = te.compute((oc, oh, ow), lambda c, i, j: te.sum(
        PaddedX[ric, i * s + rkh, j * s + rkw] * K[c, ric, rkh, rkw],
        axis=[ric, rkh, rkw]), name="Y")
    x, w = _rand(ic, n, n), _rand(oc, ic, k, k)
    y = np.zeros((oc, oh, ow), "float32")
    run(te.create_prim_func([X, K, Y]), x, w, y)
    ref = topi.testing.conv2d_nchw_python(x[None], w, s, p)[0]
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


def test_depthwise_conv():
    ic, n, k, p, s = 3, 5, 3, 1, 1
    rkh = te.reduce_axis((0, k), name="rkh")
    rkw = te.reduce_axis((0, k), name="rkw")
    oh = ow = conv_out_size(n, k, p, s)
    X = te.placeholder((ic, n, n), name="X")
    K = te.placeholder((ic, 1, k, k), name="K")
    PaddedX = padding(X, p, p)
    Y = te.compute((ic, oh, ow), lambda c, i, j: te.sum(
        PaddedX[c, i * s + rkh, j * s + rkw] * K[c, 0, rkh, rkw], axis=[rkh, rkw]), name="Y")
    x, w = _rand(ic, n, n), _rand(ic, 1, k, k)
    y = np.zeros((ic, oh, ow), "float32")
    run(te.create_prim_func([X, K, Y]), x, w, y)
    ref = topi.testing.conv2d_nchw_python(x[None], w, s, p, groups=ic)[0]
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("pool_type", ["max", "avg"])
def test_pooling(pool_type):
    c, n, k, p, s = 2, 5, 3, 1, 1
    rkh = te.reduce_axis((0, k), name="rkh")
    rkw = te.reduce_axis((0, k), name="rkw")
    oh = ow = conv_out_size(n, k, p, s)
    X = te.placeholder((c, n, n), name="X")
    if pool_type == "max":
        PaddedX = padding(X, p, p, val=te.min_value(X.dtype))
        Y = te.compute((c, oh, ow), lambda c, h, w: te.max(
            PaddedX[c, h * s + rkh, w * s + rkw], axis=[rkh, rkw]), tag="pool_max",
            name="PoolMax")
    else:
        PaddedX = padding(X, p, p)
        tsum = te.compute((c, oh, ow), lambda c, h, w: te.sum(
            PaddedX[c, h * s + rkh, w * s + rkw], axis=[rkh, rkw]), tag="pool_avg1",
            name="PoolSum")
        Y = te.compute((c, oh, ow), lambda c, h, w: tsum[c, h, w] / (k * k), tag="pool_avg2",
                       name="PoolAvg")
        assert Y.op.input_tensors[0] is tsum
    x = _rand(c, n, n)
    y = np.zeros((c, oh, ow), "float32")
    f = te.create_prim_func([X, Y])
    run(f, x, y)
    xp = _np_pad(x, p, p, np.finfo("float32").min if pool_type == "max" else 0.0)
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(1, 2))
    ref = win.max(axis=(-1, -2)) if pool_type == "max" else win.sum(axis=(-1, -2)) / (k * k)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


def test_batch_norm_with_topi():
    c, n, eps = 3, 4, 1e-5
    X = te.placeholder((c, n, n), name="X")
    Mean = te.placeholder((c, 1, 1), name="Mean")
    Var = te.placeholder((c, 1, 1), name="Var")
    Gamma = te.placeholder((c, 1, 1), name="Gamma")
    Beta = te.placeholder((c, 1, 1), name="Beta")
    C1 = X - Mean
    C2 = topi.sqrt(Var + eps)
    Y = C1 / C2 * Gamma + Beta
    assert (C1.op.name, C2.op.name, Y.op.name) == ("T_subtract", "compute", "T_add")
    assert C2.op.input_tensors[0].op.name == "T_add"
    assert [a.var.name for a in C2.op.axis] == ["i0", "i1", "i2"]
    assert [a.var.name for a in Y.op.axis] == ["ax0", "ax1", "ax2"]
    x, mean, gamma, beta = _rand(c, n, n), _rand(c, 1, 1), _rand(c, 1, 1), _rand(c, 1, 1)
    var = np.abs(RNG.normal(1.0, size=(c, 1, 1))).astype("float32")
    y = np.zeros((c, n, n), "float32")
    f = te.create_prim_func([X, Mean, Var, Gamma, Beta, Y])
    assert len(f.body.block.alloc_buffers) == 5
    run(f, x, mean, var, gamma, beta, y)
    ref = (x - mean) / np.sqrt(var + eps) * gamma + beta
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
