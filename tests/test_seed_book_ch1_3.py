"""Book (seed 001) §1.2 and chapters 2 and 3, as written, with numpy in place of MXNet."""
import d2ltvm
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


# ----------------------------------------------------------------------------- §1.2
def test_1_2_vector_add_types_and_run(tmp_path):
    n = 100
    A, B, C = d2ltvm.vector_add(n)
    assert type(A).__name__ == "Tensor" and type(A).__module__ == "tvmlite.te.tensor"
    assert (A.dtype, repr(A.shape)) == ("float32", "[100]")
    assert type(A.op).__name__ == "PlaceholderOp" and type(C.op).__name__ == "ComputeOp"
    assert A.op.__class__.__bases__[0].__name__ == "Operation"
    s = te.create_schedule(C.op)
    assert type(s).__name__ == "Schedule" and type(s[C]).__name__ == "Stage"
    assert s[C] is s[C.op]
    text = str(tvm.lower(s, [A, B, C], simple_mode=True))
    assert "for i in range(100):" in text and "c[i] = a[i] + b[i]" in text
    mod = tvm.build(s, [A, B, C])
    assert type(mod).__name__ == "Module"
    x = np.ones(2)
    y = tvm.nd.array(x)
    assert type(y).__name__ == "NDArray"
    np.testing.assert_array_equal(y.asnumpy(), x)
    a, b, c = d2ltvm.get_abc(100, tvm.nd.array)
    mod(a, b, c)
    np.testing.assert_array_equal(a.asnumpy() + b.asnumpy(), c.asnumpy())
    # argument constraints (§1.2.5)
    with pytest.raises(tvm.TVMError, match=r"shape\[0\].*100"):
        a, b, c = d2ltvm.get_abc(200, tvm.nd.array)
        mod(a, b, c)
    with pytest.raises(tvm.TVMError, match="float32"):
        a, b, c = d2ltvm.get_abc(100, tvm.nd.array)
        a = tvm.nd.array(a.asnumpy().astype('float64'))
        mod(a, b, c)
    # saving and loading (§1.2.6)
    mod_fname = str(tmp_path / 'vector-add.tar')
    mod.export_library(mod_fname)
    loaded_mod = tvm.runtime.load_module(mod_fname)
    a, b, c = d2ltvm.get_abc(100, tvm.nd.array)
    loaded_mod(a, b, c)
    np.testing.assert_array_equal(a.asnumpy() + b.asnumpy(), c.asnumpy())
    with pytest.raises(tvm.TVMError, match=r"shape\[0\]"):
        a, b, c = d2ltvm.get_abc(200, tvm.nd.array)
        loaded_mod(a, b, c)


# ----------------------------------------------------------------------------- §2.1
# get_abc's c is np.empty_like (uninitialised); casting its garbage to ints may warn
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")
@pytest.mark.parametrize("dtype", ['float16', 'float32', 'float64', 'int8', 'int16', 'int32',
                                   'int64'])
def test_2_1_dtypes(dtype):
    n = 100
    A = te.placeholder((n,), dtype=dtype)
    B = te.placeholder((n,), dtype=dtype)
    C = te.compute(A.shape, lambda i: A[i] + B[i])
    assert (A.dtype, B.dtype, C.dtype) == (dtype, dtype, dtype)
    s = te.create_schedule(C.op)
    mod = tvm.build(s, [A, B, C])
    a, b, c = d2ltvm.get_abc(n, lambda x: tvm.nd.array(x.astype(dtype)))
    mod(a, b, c)
    np.testing.assert_equal(c.asnumpy(), a.asnumpy() + b.asnumpy())


def test_2_1_astype():
    n = 100
    A = te.placeholder((n,))
    B = te.placeholder((n,))
    C = te.compute(A.shape, lambda i: A[i].astype('int32') + B[i].astype('int32'))
    assert (A.dtype, B.dtype, C.dtype) == ('float32', 'float32', 'int32')
    mod = tvm.build(te.create_schedule(C.op), [A, B, C])
    a, b, c = d2ltvm.get_abc(n)
    a_tvm, b_tvm = tvm.nd.array(a), tvm.nd.array(b)
    c_tvm = tvm.nd.array(c.astype('int32'))
    mod(a_tvm, b_tvm, c_tvm)
    np.testing.assert_equal(c_tvm.asnumpy(), a.astype('int32') + b.astype('int32'))


# ----------------------------------------------------------------------------- §2.2
def test_2_2_variable_and_multidim_shapes():
    n = te.var(name='n')
    assert type(n).__name__ == "Var" and n.dtype == 'int32'
    A = te.placeholder((n,), name='a')
    B = te.placeholder((n,), name='b')
    C = te.compute(A.shape, lambda i: A[i] + B[i], name='c')
    s = te.create_schedule(C.op)
    mod = tvm.build(s, [A, B, C])
    for size in (5, 1000):
        a, b, c = d2ltvm.get_abc(size, tvm.nd.array)
        mod(a, b, c)
        assert c.shape == (size,)
        np.testing.assert_equal(c.asnumpy(), a.asnumpy() + b.asnumpy())
    a, b, _ = d2ltvm.get_abc(5, tvm.nd.array)
    with pytest.raises(tvm.TVMError):  # A, B and C must have the same shape
        mod(a, b, tvm.nd.array(np.zeros(6, 'float32')))

    def tvm_vector_add(ndim):
        A = te.placeholder([te.var() for _ in range(ndim)])
        B = te.placeholder(A.shape)
        C = te.compute(A.shape, lambda *i: A[i] + B[i])
        s = te.create_schedule(C.op)
        return tvm.build(s, [A, B, C])

    for shape in [(2, 2), (2, 3, 4, 5)]:
        mod = tvm_vector_add(len(shape))
        a, b, c = d2ltvm.get_abc(shape, tvm.nd.array)
        mod(a, b, c)
        assert c.shape == shape
        np.testing.assert_equal(c.asnumpy(), a.asnumpy() + b.asnumpy())


# ----------------------------------------------------------------------------- §2.3
def test_2_3_transpose_reshape_slice():
    n = te.var('n')
    m = te.var('m')
    A = te.placeholder((n, m), name='a')
    B = te.compute((m, n), lambda i, j: A[j, i], 'b')
    s = te.create_schedule(B.op)
    a_np = np.arange(12, dtype='float32').reshape((3, 4))
    a, b = tvm.nd.array(a_np), tvm.nd.array(np.empty((4, 3), dtype='float32'))
    tvm.build(s, [A, B])(a, b)
    np.testing.assert_equal(b.asnumpy(), a_np.T)

    B = te.compute((m * n, ), lambda i: A[i // m, i % m], name='b')
    s = te.create_schedule(B.op)
    b = tvm.nd.array(np.empty((12,), dtype='float32'))
    tvm.build(s, [A, B])(a, b)
    np.testing.assert_equal(b.asnumpy(), a_np.reshape(-1))

    p, q = te.var('p'), te.var('q')
    B = te.compute((p, q), lambda i, j: A[(i * q + j) // m, (i * q + j) % m], name='b')
    s = te.create_schedule(B.op)
    b = tvm.nd.array(np.zeros((2, 6), dtype='float32'))
    tvm.build(s, [A, B])(a, b)
    np.testing.assert_equal(b.asnumpy(), a_np.reshape(2, 6))

    bi, bj, si, sj = [te.var(name) for name in ['bi', 'bj', 'si', 'sj']]
    B = te.compute(((n - bi) // si, (m - bj) // sj), lambda i, j: A[i * si + bi, j * sj + bj],
                   name='b')
    s = te.create_schedule(B.op)
    mod = tvm.build(s, [A, B, bi, si, bj, sj])
    b = tvm.nd.array(np.empty((1, 3), dtype='float32'))
    mod(a, b, 1, 2, 1, 1)
    np.testing.assert_equal(b.asnumpy(), a.asnumpy()[1::2, 1::1])
    b = tvm.nd.array(np.empty((1, 2), dtype='float32'))
    mod(a, b, 2, 1, 0, 2)
    np.testing.assert_equal(b.asnumpy(), a.asnumpy()[2::1, 0::2])


# ----------------------------------------------------------------------------- §2.4
def test_2_4_reductions():
    a = np.random.normal(size=(3, 4)).astype('float32')
    n, m = te.var('n'), te.var('m')
    A = te.placeholder((n, m), name='a')
    j = te.reduce_axis((0, m), name='j')
    B = te.compute((n,), lambda i: te.sum(A[i, j], axis=j), name='b')
    s = te.create_schedule(B.op)
    text = str(tvm.lower(s, [A, B], simple_mode=True))
    assert "T.float32(0)" in text
    c = tvm.nd.array(np.empty((3,), dtype='float32'))
    tvm.build(s, [A, B])(tvm.nd.array(a), c)
    np.testing.assert_allclose(a.sum(axis=1), c.asnumpy(), rtol=1e-5)

    i = te.reduce_axis((0, n), name='i')
    B = te.compute((), lambda: te.sum(A[i, j], axis=(i, j)), name='b')
    s = te.create_schedule(B.op)
    c = tvm.nd.array(np.empty((), dtype='float32'))
    tvm.build(s, [A, B])(tvm.nd.array(a), c)
    np.testing.assert_allclose(a.sum(), c.asnumpy(), atol=1e-5)

    comp = lambda a, b: a * b  # noqa: E731
    init = lambda dtype: tvm.tir.const(1, dtype=dtype)  # noqa: E731
    product = te.comm_reducer(comp, init)
    k = te.reduce_axis((0, m), name='k')
    B = te.compute((n,), lambda i: product(A[i, k], axis=k), name='b')
    s = te.create_schedule(B.op)
    b = tvm.nd.array(np.empty((3,), dtype='float32'))
    tvm.build(s, [A, B])(tvm.nd.array(a), b)
    np.testing.assert_allclose(a.prod(axis=1), b.asnumpy(), atol=1e-5)

    k = te.reduce_axis((0, m), name='k')
    def reduce_rows(red):
        return te.compute((n,), lambda i: red(A[i, k], axis=k), name='b')

    for red, ref in ((te.max, np.max), (te.min, np.min)):
        B = reduce_rows(red)
        b = tvm.nd.array(np.empty((3,), dtype='float32'))
        tvm.build(te.create_schedule(B.op), [A, B])(tvm.nd.array(a), b)
        np.testing.assert_equal(b.asnumpy(), ref(a, axis=1))


def test_argmax_tuple_reducer():
    def fcombine(x, y):
        lhs = tvm.tir.Select((x[1] >= y[1]), x[0], y[0])
        rhs = tvm.tir.Select((x[1] >= y[1]), x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return tvm.tir.const(-1, t0), tvm.te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    m, n = 7, 9
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="float32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    s = te.create_schedule(T0.op)
    mod = tvm.build(s, [idx, val, T0, T1])
    v = np.random.rand(m, n).astype("float32")
    ix = np.tile(np.arange(n, dtype="int32"), (m, 1))
    o0, o1 = tvm.nd.empty((m,), "int32"), tvm.nd.empty((m,), "float32")
    mod(tvm.nd.array(ix), tvm.nd.array(v), o0, o1)
    np.testing.assert_equal(o0.numpy(), v.argmax(axis=1))
    np.testing.assert_equal(o1.numpy(), v.max(axis=1))


# ----------------------------------------------------------------------------- §2.5, §2.6
def test_2_5_if_then_else_and_2_6_all_any():
    a_np = np.arange(12, dtype='float32').reshape((3, 4))
    n, m = te.var('n'), te.var('m')
    A = te.placeholder((n, m))
    B = te.compute(A.shape, lambda i, j: te.if_then_else(i >= j, A[i, j], 0.0))
    b = tvm.nd.array(np.empty_like(a_np))
    s = te.create_schedule(B.op)
    assert "T.if_then_else" in str(tvm.lower(s, [A, B], simple_mode=True))
    tvm.build(s, [A, B])(tvm.nd.array(a_np), b)
    np.testing.assert_equal(b.asnumpy(), np.tril(a_np))
    assert repr(b).startswith("<tvm.nd.NDArray shape=(3, 4), cpu(0)>")

    p = 1
    A = te.placeholder((n, m), name='a')
    B = te.compute((n + p * 2, m + p * 2),
                   lambda i, j: te.if_then_else(te.any(i < p, i >= n + p, j < p, j >= m + p),
                                                0, A[i - p, j - p]),
                   name='b')
    s = te.create_schedule(B.op)
    mod = tvm.build(s, [A, B])
    a = np.ones((3, 4), dtype='float32')
    c = tvm.nd.array(np.empty((5, 6), dtype='float32'))
    mod(tvm.nd.array(a), c)
    expect = np.zeros((5, 6), dtype='float32')
    expect[1:-1, 1:-1] = a
    np.testing.assert_equal(c.asnumpy(), expect)


# ----------------------------------------------------------------------------- chapter 3
def test_3_1_broadcast_add():
    for shape1, shape2 in [((3, 1), (3, 4)), ((3, 1), (1, 4))]:
        A, B, C = d2ltvm.broadcast_add(shape1, shape2)
        s = te.create_schedule(C.op)
        text = str(tvm.lower(s, [A, B], simple_mode=True))
        assert "T.allocate" in text or "alloc" in text  # the omitted output is internal
        mod = tvm.build(s, [A, B, C])
        a, b, c = d2ltvm.get_bcast_data(shape1, shape2, tvm.nd.array)
        mod(a, b, c)
        np.testing.assert_allclose(np.add(a.asnumpy(), b.asnumpy()), c.asnumpy(), atol=1e-5)


def test_3_2_matmul():
    n = 100
    A, B, C = d2ltvm.matmul(n, n, n)
    s = te.create_schedule(C.op)
    mod = tvm.build(s, [A, B, C])
    a, b = np.random.normal(size=(n, n)).astype('float32'), \
        np.random.normal(size=(n, n)).astype('float32')
    c = tvm.nd.array(np.empty((n, n), dtype='float32'))
    mod(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(a.dot(b), c.asnumpy(), atol=1e-4)


def _conv_np(data, weight, p, s, depthwise=False):
    ic, n, _ = data.shape
    oc, _, k, _ = weight.shape
    x = np.pad(data, ((0, 0), (p, p), (p, p)))
    on = (n - k + 2 * p) // s + 1
    out = np.zeros((oc, on, on), dtype='float64')
    for c in range(oc):
        for i in range(on):
            for j in range(on):
                win = x[:, i * s:i * s + k, j * s:j * s + k]
                out[c, i, j] = (win[c] * weight[c, 0]).sum() if depthwise else \
                    (win * weight[c]).sum()
    return out


def test_3_3_padding_and_conv():
    A = te.placeholder((2, 3, 4))
    B = d2ltvm.padding(A, 1, 2)
    s = te.create_schedule(B.op)
    mod = tvm.build(s, [A, B])
    a = tvm.nd.array(np.ones((2, 3, 4), dtype='float32'))
    b = tvm.nd.array(np.empty((2, 5, 8), dtype='float32'))
    mod(a, b)
    np.testing.assert_equal(b.numpy(), np.pad(np.ones((2, 3, 4), 'float32'),
                                              ((0, 0), (1, 1), (2, 2))))

    oc, ic, n, k, p, s_ = 4, 6, 12, 3, 1, 1
    X, K, Y, _ = d2ltvm.conv(oc, ic, n, n, k, k, p, p, s_, s_)
    sch = te.create_schedule(Y.op)
    mod = tvm.build(sch, [X, K, Y])
    data, weight, out = d2ltvm.get_conv_data(oc, ic, n, k, p, s_, tvm.nd.array)
    mod(data, weight, out)
    np.testing.assert_allclose(_conv_np(data.numpy(), weight.numpy(), p, s_), out.asnumpy(),
                               atol=1e-4)


def test_3_4_depthwise_conv():
    ic, n, k, p, s = 16, 12, 3, 1, 1
    X, K, Y, _ = d2ltvm.depthwise_conv(ic, n, n, k, k, p, p, s, s)
    sch = te.create_schedule(Y.op)
    mod = tvm.build(sch, [X, K, Y])
    data, weight, out = d2ltvm.get_conv_data(ic, ic, n, k, p, s, constructor=tvm.nd.array,
                                             conv_type='depthwise')
    mod(data, weight, out)
    np.testing.assert_allclose(_conv_np(data.numpy(), weight.numpy(), p, s, True),
                               out.asnumpy(), atol=1e-4)


def test_3_5_pooling():
    c, n, k, p, s = 4, 12, 3, 1, 1
    data_np = d2ltvm.get_conv_data(c, c, n, k, p, s)[0]
    x = np.pad(data_np, ((0, 0), (p, p), (p, p)), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(1, 2))
    X, Y, PaddedX = d2ltvm.pool('max', c, n, n, k, k, p, p, s, s)
    sch = te.create_schedule(Y.op)
    mod = tvm.build(sch, [X, Y])
    data, _, out_max = d2ltvm.get_conv_data(c, c, n, k, p, s, tvm.nd.array)
    mod(data, out_max)
    np.testing.assert_allclose(out_max.asnumpy(), win.max(axis=(-2, -1)), atol=1e-5)

    x0 = np.pad(data_np, ((0, 0), (p, p), (p, p)))
    win0 = np.lib.stride_tricks.sliding_window_view(x0, (k, k), axis=(1, 2))
    X, Y, PaddedX = d2ltvm.pool('avg', c, n, n, k, k, p, p, s, s)
    sch = te.create_schedule(Y.op)
    mod = tvm.build(sch, [X, Y])
    data, _, out_avg = d2ltvm.get_conv_data(c, c, n, k, p, s, tvm.nd.array)
    mod(data, out_avg)
    np.testing.assert_allclose(out_avg.asnumpy(), win0.mean(axis=(-2, -1)), atol=1e-5)
    with pytest.raises(ValueError, match="Pool type"):
        d2ltvm.pool('min', c, n, n, k, k)


def test_3_6_batch_norm():
    c, n = 32, 28
    X, Mean, Var, Gamma, Beta, Y = d2ltvm.batch_norm(c, n)
    sch = te.create_schedule(Y.op)
    mod = tvm.build(sch, [X, Mean, Var, Gamma, Beta, Y])
    text = str(tvm.lower(sch, [X, Mean, Var, Gamma, Beta], simple_mode=True))
    assert "T_subtract" in text and "T_add" in text
    data, mean, var, gamma, beta, out = d2ltvm.get_bn_data(c, n, tvm.nd.array)
    mod(data, mean, var, gamma, beta, out)
    d, mu, v, g, bt = (t.numpy() for t in (data, mean, var, gamma, beta))
    np.testing.assert_allclose(out.asnumpy(), (d - mu) / np.sqrt(v + 1e-5) * g + bt,
                               atol=1e-5)
