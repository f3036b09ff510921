"""The buffers ``tvm.lower``/``tvm.build`` give TE arguments that have none (classic
``get_binds``): a tensor with a variable dimension broadcasts along any dimension of extent 1
at call time (``auto_broadcast``, stride 0); constant shapes stay compact."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


def _bcast_add():
    m0, n0, m1, n1 = (te.size_var(v) for v in ("m0", "n0", "m1", "n1"))
    o0, o1 = te.size_var("o0"), te.size_var("o1")
    A = te.placeholder((m0, n0), name="A")
    B = te.placeholder((m1, n1), name="B")
    C = te.compute((o0, o1), lambda i, j: A[i, j] + B[i, j], name="C")
    return A, B, C


@pytest.mark.parametrize("a_shape, b_shape", [((1, 7), (5, 7)), ((5, 1), (5, 7)),
                                              ((1, 1), (5, 7)), ((5, 7), (1, 7)),
                                              ((5, 7), (5, 7))])
def test_variable_shaped_arguments_broadcast_dimensions_of_extent_one(a_shape, b_shape):
    A, B, C = _bcast_add()
    s = te.create_schedule(C.op)
    f = tvm.build(s, [A, B, C], "llvm")
    rng = np.random.default_rng(3)
    a = rng.random(a_shape, dtype=np.float32)
    b = rng.random(b_shape, dtype=np.float32)
    c = tvm.nd.array(np.zeros((5, 7), "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a + b, rtol=1e-6)
    # classic's printed form: one name for all strides, made unique by the printer
    assert "A_1[i * stride + j * stride_1]" in str(tvm.lower(s, [A, B, C], simple_mode=True))


def test_split_and_vectorized_schedule_still_broadcasts():
    A, B, C = _bcast_add()
    s = te.create_schedule(C.op)
    _, ji = s[C].split(C.op.axis[1], factor=4)
    s[C].vectorize(ji)
    f = tvm.build(s, [A, B, C], "llvm")
    rng = np.random.default_rng(4)
    a, b = rng.random((1, 9), dtype=np.float32), rng.random((3, 9), dtype=np.float32)
    c = tvm.nd.array(np.zeros((3, 9), "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a + b, rtol=1e-6)


def test_constant_shapes_and_explicit_binds_stay_compact():
    A = te.placeholder((4, 6), name="A")
    C = te.compute((4, 6), lambda i, j: A[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    assert "stride" not in str(tvm.lower(s, [A, C], simple_mode=True))
    n = te.var("n")
    X = te.placeholder((n,), name="X")
    Y = te.compute((n,), lambda i: X[i] + 1.0, name="Y")
    s = te.create_schedule(Y.op)
    Xb = tvm.tir.decl_buffer(X.shape, X.dtype, name="Xb")
    text = str(tvm.lower(s, [X, Y], binds={X: Xb}, simple_mode=True))
    assert "Xb = T.match_buffer(var_X, (n,))" in text and "strides=(stride,)" in text
    f = tvm.build(s, [X, Y], "llvm", binds={X: Xb})
    x = np.arange(5, dtype="float32")
    y = tvm.nd.array(np.zeros(5, "float32"))
    f(tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), x + 1.0)
