"""Relay ops added for classic's op tests, each through its TOPI compute, against numpy:
``copy``, ``bitwise_*``, shifts, ``mod``, ``logical_xor``, ``logsumexp``, ``shape_of``,
``ndarray_size``, and reshape's special codes (-2, -3, -4)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay


def _run(func, *args):
    f = relay.create_executor("graph", mod=tvm.IRModule.from_expr(func), target="llvm")
    return f.evaluate()(*args).numpy()


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("shape", [(5,), (3, 7), (2, 3, 9)])
def test_integer_binary_ops(rng, shape):
    a = rng.integers(-50, 50, size=shape).astype("int32")
    b = rng.integers(1, 9, size=shape).astype("int32")
    x, y = relay.var("x", shape=shape, dtype="int32"), relay.var("y", shape=shape, dtype="int32")
    cases = {relay.bitwise_and: np.bitwise_and, relay.bitwise_or: np.bitwise_or,
             relay.bitwise_xor: np.bitwise_xor, relay.left_shift: np.left_shift,
             relay.right_shift: np.right_shift, relay.mod: np.fmod}
    for op, ref in cases.items():
        got = _run(relay.Function([x, y], op(x, y)), a, b)
        np.testing.assert_array_equal(got, ref(a, b), err_msg=op.__name__)


def test_unary_copy_bitwise_not_and_logical_xor(rng):
    a = rng.integers(-50, 50, size=(4, 5)).astype("int32")
    x = relay.var("x", shape=(4, 5), dtype="int32")
    np.testing.assert_array_equal(_run(relay.Function([x], relay.bitwise_not(x)), a), ~a)
    np.testing.assert_array_equal(_run(relay.Function([x], relay.copy(x)), a), a)
    p, q = rng.random((3, 5)) > 0.5, rng.random((3, 5)) > 0.5
    u, v = relay.var("u", shape=(3, 5), dtype="bool"), relay.var("v", shape=(3, 5), dtype="bool")
    np.testing.assert_array_equal(_run(relay.Function([u, v], relay.logical_xor(u, v)), p, q),
                                  np.logical_xor(p, q))


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ((0, 2), True), (-1, True)])
def test_logsumexp(rng, axis, keepdims):
    a = (rng.standard_normal((3, 4, 5)) * 30).astype("float32")  # large: the stable form
    x = relay.var("x", shape=a.shape)
    got = _run(relay.Function([x], relay.logsumexp(x, axis, keepdims)), a)
    m = np.max(a, axis=axis, keepdims=True)
    want = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        want = np.squeeze(want, axis=axis)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_shape_of_and_ndarray_size(rng):
    a = rng.standard_normal((3, 1, 7)).astype("float32")
    x = relay.var("x", shape=a.shape)
    np.testing.assert_array_equal(_run(relay.Function([x], relay.shape_of(x, "int64")), a),
                                  np.array([3, 1, 7], "int64"))
    got = _run(relay.Function([x], relay.ndarray_size(x)), a)
    assert got.dtype == np.int32 and got.shape == () and int(got) == 21
    # FoldConstant replaces both by constants (shapes are static)
    f = relay.Function([x], relay.add(relay.ndarray_size(x), relay.const(1)))
    folded = relay.transform.FoldConstant()(tvm.IRModule.from_expr(f))["main"]
    assert isinstance(folded.body, relay.Constant) and int(folded.body.data.numpy()) == 22


@pytest.mark.parametrize("newshape,want", [
    ((-2,), (2, 3, 4)), ((2, -2), (2, 3, 4)), ((-3, 4), (6, 4)), ((0, -3), (2, 12)),
    ((-4, 1, 2, -2), (1, 2, 3, 4)), ((2, -4, -1, 3, 4), (2, 1, 3, 4)), ((0, -1), (2, 12))])
def test_reshape_special_codes(rng, newshape, want):
    a = rng.standard_normal((2, 3, 4)).astype("float32")
    x = relay.var("x", shape=a.shape)
    got = _run(relay.Function([x], relay.reshape(x, newshape)), a)
    np.testing.assert_array_equal(got, a.reshape(want))


def test_reshape_bad_split_is_refused():
    x = relay.var("x", shape=(2, 3, 4))
    with pytest.raises(tvm.TVMError, match="cannot split dimension 3"):
        relay.testing.run_infer_type(relay.reshape(x, (2, -4, 2, 2, 4)))


def test_constant_shapes_are_static_shapes(rng):
    a = rng.standard_normal((1, 2, 1)).astype("float32")
    x = relay.var("x", shape=a.shape)
    b = relay.broadcast_to(x, relay.const(np.array([3, 2, 4]), "int64"))
    r = relay.reshape(b, relay.const(np.array([6, -1]), "int64"))
    np.testing.assert_array_equal(_run(relay.Function([x], r), a),
                                  np.broadcast_to(a, (3, 2, 4)).reshape(6, 4))


def test_reinterpret_invert_permutation_broadcast_to_like(rng):
    a = rng.standard_normal((3, 5)).astype("float32")
    x = relay.var("x", shape=a.shape)
    np.testing.assert_array_equal(_run(relay.Function([x], relay.reinterpret(x, "int32")), a),
                                  a.view("int32"))
    p = rng.permutation(7).astype("int32")
    v = relay.var("p", shape=(7,), dtype="int32")
    np.testing.assert_array_equal(_run(relay.Function([v], relay.invert_permutation(v)), p),
                                  np.argsort(p))
    b = rng.standard_normal((5,)).astype("float32")
    y = relay.var("y", shape=(5,))
    np.testing.assert_array_equal(
        _run(relay.Function([y, x], relay.broadcast_to_like(y, x)), b, a),
        np.broadcast_to(b, a.shape))


@pytest.mark.parametrize("k,align", [(0, "RIGHT_LEFT"), (1, "RIGHT_LEFT"), ((-1, 1), "LEFT_RIGHT"),
                                     ((-1, 1), "RIGHT_LEFT")])
def test_matrix_set_diag(rng, k, align):
    from tvmlite.topi.testing import matrix_set_diag as ref
    a = rng.standard_normal((2, 4, 5)).astype("float32")
    lo, hi = (k, k) if isinstance(k, int) else k
    lengths = [min(4 + min(d, 0), 5 - max(d, 0)) for d in range(lo, hi + 1)]
    dshape = (2, lengths[0]) if lo == hi else (2, hi - lo + 1, max(lengths))
    d = rng.standard_normal(dshape).astype("float32")
    x, y = relay.var("x", shape=a.shape), relay.var("d", shape=d.shape)
    got = _run(relay.Function([x, y], relay.matrix_set_diag(x, y, k, align)), a, d)
    np.testing.assert_allclose(got, ref(a, d, k, align))


def test_sliding_window(rng):
    a = rng.standard_normal((2, 7, 6)).astype("float32")
    x = relay.var("x", shape=a.shape)
    got = _run(relay.Function([x], relay.sliding_window(x, 1, (3, 2), (2, 3))), a)
    want = np.stack([np.stack([a[:, i:i + 3, j:j + 2] for j in range(0, 5, 3)], 1)
                     for i in range(0, 5, 2)], 1)
    np.testing.assert_array_equal(got, want)
