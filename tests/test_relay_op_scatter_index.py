"""The relay wrappers of TOPI's cumprod, scatter_elements, scatter_nd, adv_index, unique,
sparse_to_dense, strided_set and fixed_point_multiply, relay.segment_sum and
``Expr.astype``, against numpy on random inputs of odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay.testing import run_infer_type

RNG = np.random.default_rng(3)


def run(out, *arrays):
    """Evaluate ``out`` on ``arrays``, given in the order of its free variables' names."""
    args = sorted(relay.analysis.free_vars(out), key=lambda v: v.name_hint)
    f = relay.create_executor("graph", target="llvm").evaluate(relay.Function(args, out))
    res = f(*arrays)
    if isinstance(res, (list, tuple)) or hasattr(res, "__len__") and not hasattr(res, "numpy"):
        return [r.numpy() for r in res]
    return res.numpy()


def var(name, a):
    return relay.var(name, relay.TensorType(a.shape, str(a.dtype)))


@pytest.mark.parametrize("axis, exclusive", [(None, False), (1, True), (-1, False)])
def test_cumprod(axis, exclusive):
    x = RNG.uniform(0.5, 1.5, (3, 7)).astype("float32")
    got = run(relay.cumprod(var("x", x), axis, exclusive=exclusive), x)
    want = np.cumprod(x, axis=axis)
    if exclusive:
        want = np.concatenate([np.ones((3, 1), "float32"), want[:, :-1]], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("reduction", ["update", "add"])
def test_scatter_elements(reduction):
    d = RNG.uniform(size=(5, 3, 4)).astype("float32")
    idx = RNG.integers(-5, 5, (2, 3, 4)).astype("int64")
    u = RNG.uniform(size=idx.shape).astype("float32")
    want = d.copy()
    for p in np.ndindex(*idx.shape):
        q = (idx[p] % 5,) + p[1:]
        want[q] = u[p] if reduction == "update" else want[q] + u[p]
    got = run(relay.op.scatter_elements(var("d", d), var("i", idx), var("u", u), 0,
                                        reduction), d, idx, u)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_scatter_nd_add():
    d = RNG.uniform(size=(3, 5, 2)).astype("float32")
    idx = np.array([[0, 2, 0], [1, 4, 1]], "int32")  # (M=2, Y=3): repeated (0, 1)
    u = RNG.uniform(size=(3, 2)).astype("float32")
    want = d.copy()
    for y in range(3):
        want[idx[0, y], idx[1, y]] += u[y]
    got = run(relay.scatter_nd(var("d", d), var("i", idx), var("u", u), "add"), d, idx, u)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_adv_index():
    d = RNG.uniform(size=(7, 5, 3)).astype("float32")
    i0 = RNG.integers(0, 7, (3, 1)).astype("int64")
    i1 = RNG.integers(0, 5, (4,)).astype("int64")
    out = relay.adv_index([var("d0", d), var("i1", i0), var("i2", i1)])
    assert run_infer_type(out).checked_type == relay.TensorType((3, 4, 3), "float32")
    np.testing.assert_allclose(run(out, d, i0, i1), d[i0, i1])


@pytest.mark.parametrize("is_sorted", [True, False])
def test_unique(is_sorted):
    x = RNG.integers(0, 6, 11).astype("int32")
    outs = run(relay.unique(var("x", x), is_sorted, True).astuple(), x)
    uniq, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                             return_counts=True)
    if not is_sorted:
        order = np.argsort(index)
        uniq, counts, index = uniq[order], counts[order], index[order]
        inverse = np.argsort(order)[inverse]
    k = len(uniq)
    assert outs[3][0] == k
    np.testing.assert_array_equal(outs[0][:k], uniq)
    np.testing.assert_array_equal(outs[1][:k], index)
    np.testing.assert_array_equal(outs[2], inverse)
    np.testing.assert_array_equal(outs[4][:k], counts)


def test_sparse_to_dense():
    idx = np.array([[0, 1], [2, 0], [1, 2]], "int64")
    vals = np.array([1.5, -2.0, 3.25], "float32")
    out = relay.sparse_to_dense(var("i", idx), (3, 3), var("v", vals), 7.0)
    want = np.full((3, 3), 7.0, "float32")
    want[tuple(idx.T)] = vals
    assert run_infer_type(out).checked_type == relay.TensorType((3, 3), "float32")
    np.testing.assert_allclose(run(out, idx, vals), want)


def test_strided_set():
    x = RNG.uniform(size=(5, 7)).astype("float32")
    v = RNG.uniform(size=(2, 3)).astype("float32")
    b, e, s = (np.array(a, "int32") for a in ([1, 1], [5, 7], [2, 2]))
    out = relay.strided_set(var("a_x", x), var("b_v", v), var("c_begin", b),
                            var("d_end", e), var("e_strides", s))
    want = x.copy()
    want[1:5:2, 1:7:2] = v
    np.testing.assert_allclose(run(out, x, v, b, e, s), want)


@pytest.mark.parametrize("multiplier, shift", [(1073741824, -3), (1518500250, 2),
                                               (2147483647, 0)])
def test_fixed_point_multiply(multiplier, shift):
    x = RNG.integers(-5000, 5000, (3, 5)).astype("int32")
    got = run(relay.fixed_point_multiply(var("x", x), multiplier, shift), x)
    want = np.floor(x.astype("float64") * multiplier * 2.0 ** (shift - 31) + 0.5)
    np.testing.assert_array_equal(got, want.astype("int32"))


def test_segment_sum():
    d = RNG.uniform(size=(5, 3, 2)).astype("float32")
    ids = np.array([2, 0, 2, 3], "int32")  # the fifth row has no id
    want = np.zeros((6, 3, 2), "float32")
    for i, k in enumerate(ids):
        want[k] += d[i]
    np.testing.assert_allclose(run(relay.segment_sum(var("d", d), var("i", ids), 6), d, ids),
                               want, rtol=1e-6)


def _vm(out, *arrays):
    args = sorted(relay.analysis.free_vars(out), key=lambda v: v.name_hint)
    mod = tvm.IRModule.from_expr(relay.Function(args, out))
    return relay.create_executor("vm", mod=mod, target="llvm").evaluate()(*arrays).numpy()


@pytest.mark.parametrize("shape", [(7,), (6, 3, 2)])
@pytest.mark.parametrize("dynamic", [False, True])
def test_segment_sum_shape_from_values(shape, dynamic):
    """Without ``num_segments`` (max(segment_ids) + 1 rows), or with ``relay.Any`` shapes,
    the output shape is known at run time: the relay VM computes it (rows past the ids are
    not summed)."""
    d = RNG.uniform(size=shape).astype("float32")
    ids = np.sort(RNG.integers(0, 4, shape[0] - 1)).astype("int32")
    want = np.zeros((ids.max() + 1,) + shape[1:], "float32")
    for i, k in enumerate(ids):
        want[k] += d[i]
    if dynamic:
        dv = relay.var("d", shape=[relay.Any()] * len(shape))
        iv = relay.var("i", shape=[relay.Any()], dtype="int32")
    else:
        dv, iv = var("d", d), var("i", ids)
    got = _vm(relay.segment_sum(dv, iv), d, ids)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    if dynamic:  # with num_segments, Any shapes
        got = _vm(relay.segment_sum(dv, iv, 9), d, ids)
        pad = np.zeros((9 - want.shape[0],) + shape[1:], "float32")
        np.testing.assert_allclose(got, np.concatenate([want, pad]), rtol=1e-6)


def test_astype():
    x = relay.var("x", relay.TensorType((2, 3), "float32"))
    assert run_infer_type(x.astype("int8")).checked_type == relay.TensorType((2, 3), "int8")
