"""The transform, reduction and element-wise relay operators added for classic TVM user code
(stack, tile, gather, one_hot, arange, argmax, variance, sign, isnan ...), built with
relay.build and run by the graph executor against numpy (odd sizes, negative axes)."""
import numpy as np
import pytest
from relay_helpers import build_run, kernel_names

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.relay.op._rel import RelayTypeError
from tvmlite.relay.transform.infer_type import RelayTypeInferenceError


def _run(make, arrays, params=None):
    """Build ``make(*vars)`` over vars typed like ``arrays``; returns the outputs."""
    vs = [relay.var(f"v{i}", shape=a.shape, dtype=str(a.dtype)) for i, a in enumerate(arrays)]
    body = make(*vs)
    outs, factory = build_run(relay.Function(vs, body),
                              {f"v{i}": a for i, a in enumerate(arrays)}, params)
    return outs, factory


def _one(make, *arrays):
    return _run(make, arrays)[0][0]


def _rand(rng, *shape, dtype="float32"):
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_stack(rng, axis):
    a, b, c = (_rand(rng, 3, 5) for _ in range(3))
    out = _one(lambda x, y, z: relay.stack([x, y, z], axis), a, b, c)
    np.testing.assert_array_equal(out, np.stack([a, b, c], axis))


@pytest.mark.parametrize("shape, reps", [((3, 5), (2, 3)), ((4,), (2, 1, 3)),
                                         ((2, 3, 5), (3,))])
def test_tile(rng, shape, reps):
    a = _rand(rng, *shape)
    np.testing.assert_array_equal(_one(lambda x: relay.tile(x, reps), a), np.tile(a, reps))


@pytest.mark.parametrize("repeats, axis", [(3, 0), (2, -1), (1, 1)])
def test_repeat(rng, repeats, axis):
    a = _rand(rng, 3, 5)
    np.testing.assert_array_equal(_one(lambda x: relay.repeat(x, repeats, axis), a),
                                  np.repeat(a, repeats, axis))


@pytest.mark.parametrize("axis", [0, 2, -2])
def test_reverse(rng, axis):
    a = _rand(rng, 3, 5, 7)
    np.testing.assert_array_equal(_one(lambda x: relay.reverse(x, axis), a), np.flip(a, axis))


def test_reverse_sequence(rng):
    a = _rand(rng, 4, 5, 3)
    lens = np.array([1, 5, 3, 7], "int32")
    out = _one(lambda x, s: relay.reverse_sequence(x, s, seq_axis=1, batch_axis=0), a, lens)
    want = a.copy()
    for b, n in enumerate(lens):
        n = min(int(n), 5)
        want[b, :n] = a[b, :n][::-1]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather(rng, axis):
    a = _rand(rng, 4, 5, 3)
    shape = list(a.shape)
    shape[axis] = 6
    idx = rng.integers(0, a.shape[axis], shape).astype("int32")
    out = _one(lambda x, i: relay.gather(x, axis, i), a, idx)
    np.testing.assert_array_equal(out, np.take_along_axis(a, idx, axis))


@pytest.mark.parametrize("batch_dims", [0, 1])
def test_gather_nd(rng, batch_dims):
    a = _rand(rng, 3, 4, 5)
    if batch_dims == 0:
        idx = np.stack([rng.integers(0, 3, (2, 6)), rng.integers(0, 4, (2, 6))]).astype("int32")
        want = a[idx[0], idx[1]]
    else:
        idx = rng.integers(0, 4, (1, 3, 2)).astype("int32")
        want = np.stack([a[b][idx[0, b]] for b in range(3)])
    out = _one(lambda x, i: relay.gather_nd(x, i, batch_dims=batch_dims), a, idx)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("idx_dtype", ["int64", "uint8"])
def test_gather_nd_of_concatenate_fused(rng, idx_dtype):
    """gather_nd with int64 / uint8 indices fused after a concatenate (the x86 schedule
    vectorizes it: the indices are cast to the data's index dtype, or the C compiler refuses
    an int64 vector compared with the concatenate's int32 bounds)."""
    a = _rand(rng, 9, 3)
    idx = np.stack([rng.integers(0, 9, 5), rng.integers(0, 6, 5)]).astype(idx_dtype)
    out = _one(lambda x, i: relay.gather_nd(relay.concatenate([x, x], axis=-1), i), a, idx)
    cat = np.concatenate([a, a], axis=-1)
    np.testing.assert_array_equal(out, cat[idx[0], idx[1]])


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(rng, axis):
    ind = rng.integers(0, 5, (3, 4)).astype("int32")
    out = _one(lambda i: relay.one_hot(i, 2.5, -1.0, 5, axis, "float32"), ind)
    want = np.where(np.arange(5) == ind[..., None], 2.5, -1.0).astype("float32")
    np.testing.assert_array_equal(out, np.moveaxis(want, -1, axis))


@pytest.mark.parametrize("args, dtype", [((7,), "float32"), ((2, 11, 3), "int32"),
                                         ((1.0, -2.0, -0.75), "float32")])
def test_arange(rng, args, dtype):
    a = _rand(rng, 1)
    out = _run(lambda x: relay.Tuple([relay.arange(*args, dtype=dtype), x]), [a])[0][0]
    np.testing.assert_allclose(out, np.arange(*args).astype(dtype), rtol=1e-6)


@pytest.mark.parametrize("axis", [0, 1])
def test_sequence_mask(rng, axis):
    a = _rand(rng, 5, 3, 2) if axis == 0 else _rand(rng, 3, 5, 2)
    lens = np.array([0, 2, 5], "int32")
    out = _one(lambda x, n: relay.sequence_mask(x, n, -7.0, axis), a, lens)
    pos = np.arange(5)[:, None] if axis == 0 else np.arange(5)[None, :]
    mask = pos >= (lens[None, :] if axis == 0 else lens[:, None])
    np.testing.assert_array_equal(out, np.where(mask[..., None], -7.0, a))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(rng, indexing):
    a, b, c = _rand(rng, 3), _rand(rng, 4), _rand(rng, 2)
    outs = _run(lambda x, y, z: relay.Tuple(list(relay.meshgrid([x, y, z], indexing)[i]
                                                 for i in range(3))), [a, b, c])[0]
    for o, w in zip(outs, np.meshgrid(a, b, c, indexing=indexing)):
        np.testing.assert_array_equal(o, w)


@pytest.mark.parametrize("k, upper", [(0, True), (1, False), (-2, True)])
def test_trilu(rng, k, upper):
    a = _rand(rng, 2, 4, 5)
    want = np.triu(a, k) if upper else np.tril(a, k)
    np.testing.assert_array_equal(_one(lambda x: relay.trilu(x, k, upper), a), want)


def test_unravel_index(rng):
    idx = np.array([0, 7, 59, 23], "int32")
    shape = np.array([3, 4, 5], "int32")
    out = _one(lambda i, s: relay.unravel_index(i, s), idx, shape)
    np.testing.assert_array_equal(out, np.stack(np.unravel_index(idx, (3, 4, 5))))


def test_full_zeros_ones(rng):
    a = _rand(rng, 3, 5)

    def make(x):
        return relay.Tuple([relay.full(relay.const(2.5), (2, 3)), relay.full_like(x, 4.0),
                            relay.add(relay.zeros((3, 5), "float32"), x),
                            relay.ones((4,), "int32"), relay.zeros_like(x),
                            relay.ones_like(x)])
    outs = _run(make, [a])[0]
    wants = [np.full((2, 3), 2.5), np.full(a.shape, 4.0), a, np.ones(4, "int32"),
             np.zeros_like(a), np.ones_like(a)]
    for o, w in zip(outs, wants):
        np.testing.assert_array_equal(o, w)
    assert outs[3].dtype == np.int32


def test_reshape_like(rng):
    a, b = _rand(rng, 2, 3, 4), _rand(rng, 6, 4)
    np.testing.assert_array_equal(_one(lambda x, y: relay.reshape_like(x, y), a, b),
                                  a.reshape(6, 4))
    c = _rand(rng, 3, 2, 7)
    out = _one(lambda x, y: relay.reshape_like(x, y, lhs_begin=0, lhs_end=2, rhs_begin=1,
                                                  rhs_end=2), _rand(rng, 1, 2, 4), c)
    assert out.shape == (2, 4)


def test_layout_transform(rng):
    a = _rand(rng, 1, 16, 3, 5)
    out = _one(lambda x: relay.layout_transform(x, "NCHW", "NCHW8c"), a)
    np.testing.assert_array_equal(out, a.reshape(1, 2, 8, 3, 5).transpose(0, 1, 3, 4, 2))


# ---------------------------------------------------------------------- reductions
@pytest.mark.parametrize("name", ["prod", "argmax", "argmin", "variance", "std"])
@pytest.mark.parametrize("axis, keepdims, exclude", [(None, False, False), (1, True, False),
                                                     ((0, -1), False, False),
                                                     (1, False, True)])
def test_reductions(rng, name, axis, keepdims, exclude):
    a = _rand(rng, 3, 5, 4)
    if name in ("argmax", "argmin") and isinstance(axis, tuple):
        axis = -1
    out = _one(lambda x: getattr(relay, name)(x, axis, keepdims, exclude), a)
    np_axis = axis
    if exclude:
        np_axis = tuple(d for d in range(3) if d != 1)
    if name in ("argmax", "argmin"):
        fn = getattr(np, name)
        if np_axis is None or isinstance(np_axis, tuple):
            ax = tuple(range(3)) if np_axis is None else np_axis
            rest = [d for d in range(3) if d not in ax]
            flat = a.transpose(rest + list(ax)).reshape([a.shape[d] for d in rest] + [-1])
            want = fn(flat, axis=-1)
            if keepdims:
                want = np.expand_dims(want, ax)
        else:
            want = fn(a, axis=np_axis, keepdims=keepdims)
        np.testing.assert_array_equal(out, want.astype("int32"))
        assert out.dtype == np.int32
        return
    fn = {"prod": np.prod, "variance": np.var, "std": np.std}[name]
    want = fn(a, axis=np_axis, keepdims=keepdims)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)


def test_unbiased_variance_and_select_last_index(rng):
    a = _rand(rng, 4, 7)
    out = _one(lambda x: relay.std(x, axis=-1, unbiased=True), a)
    np.testing.assert_allclose(out, np.std(a, axis=-1, ddof=1), rtol=1e-5)
    b = np.array([[1, 3, 3, 0], [2, 2, 1, 2]], "float32")
    out = _one(lambda x: relay.argmax(x, axis=1, select_last_index=True), b)
    np.testing.assert_array_equal(out, [2, 3])
    out = _one(lambda x: relay.argmin(x, axis=1), b)
    np.testing.assert_array_equal(out, [3, 2])


@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, True), (-1, False)])
def test_all_any(rng, axis, keepdims):
    a = rng.random((3, 4)) > 0.3
    a[1] = True
    outs = _run(lambda x: relay.Tuple([relay.all(x, axis, keepdims),
                                       relay.any(x, axis, keepdims)]), [a])[0]
    np.testing.assert_array_equal(outs[0], np.all(a, axis, keepdims=keepdims))
    np.testing.assert_array_equal(outs[1], np.any(a, axis, keepdims=keepdims))


def test_exclude_on_existing_reductions(rng):
    a = _rand(rng, 3, 5, 4)
    out = _one(lambda x: relay.sum(x, axis=(1,), exclude=True), a)
    np.testing.assert_allclose(out, a.sum(axis=(0, 2)), rtol=1e-5)
    out = _one(lambda x: relay.mean(x, axis=(-1,), keepdims=True, exclude=True), a)
    np.testing.assert_allclose(out, a.mean(axis=(0, 1), keepdims=True), rtol=1e-5)


# ------------------------------------------------------------------- element-wise math
@pytest.mark.parametrize("name, lo, hi", [
    ("sign", -2, 2), ("tan", -1.2, 1.2), ("sinh", -3, 3), ("cosh", -3, 3), ("asin", -1, 1),
    ("acos", -1, 1), ("atan", -5, 5), ("asinh", -5, 5), ("acosh", 1, 5), ("atanh", -0.99, 0.99),
    ("trunc", -4, 4), ("log2", 0.1, 9), ("log10", 0.1, 9)])
def test_math(rng, name, lo, hi):
    a = rng.uniform(lo, hi, (3, 7)).astype("float32")
    if name == "sign":
        a[0, :3] = 0
    out = _one(lambda x: getattr(relay, name)(x), a)
    np.testing.assert_allclose(out, getattr(np, {"asin": "arcsin", "acos": "arccos",
                                                 "atan": "arctan", "asinh": "arcsinh",
                                                 "acosh": "arccosh",
                                                 "atanh": "arctanh"}.get(name, name))(a),
                               rtol=1e-5, atol=1e-5)


def test_predicates(rng):
    a = _rand(rng, 4, 5)
    a[0, 0], a[1, 2], a[3, 4] = np.nan, np.inf, -np.inf
    outs = _run(lambda x: relay.Tuple([relay.isnan(x), relay.isinf(x), relay.isfinite(x)]),
                [a])[0]
    for o, fn in zip(outs, (np.isnan, np.isinf, np.isfinite)):
        assert o.dtype == np.bool_
        np.testing.assert_array_equal(o, fn(a))


# ------------------------------------------------------------------------- fusion
def test_new_ops_fuse_with_elementwise(rng):
    """tile -> repeat -> reverse -> gather -> one element-wise tail: one kernel."""
    a = _rand(rng, 3, 5)
    idx = rng.integers(0, 6, (6, 10)).astype("int32")

    def make(x, i):
        t = relay.reverse(relay.repeat(relay.tile(x, (2, 1)), 2, -1), 0)   # (6, 10)
        g = relay.gather(relay.exp(t), 0, i)
        return relay.sign(relay.add(g, relay.const(-1.0)))
    outs, factory = _run(make, [a, idx])
    t = np.flip(np.repeat(np.tile(a, (2, 1)), 2, -1), 0)
    want = np.sign(np.take_along_axis(np.exp(t), idx, 0) - 1)
    np.testing.assert_allclose(outs[0], want)
    assert len(kernel_names(factory)) == 1, kernel_names(factory)


def test_one_hot_fuses_elementwise_epilogue(rng):
    ind = rng.integers(0, 4, (5,)).astype("int32")
    outs, factory = _run(lambda i: relay.exp(relay.one_hot(i, 1.0, 0.0, 4, -1, "float32")),
                         [ind])
    np.testing.assert_allclose(outs[0], np.exp(np.eye(4, dtype="float32")[ind]), rtol=1e-6)
    assert len(kernel_names(factory)) == 1


# --------------------------------------------------------------------- type errors
def _infer(make, *shapes, dtypes=None):
    dtypes = dtypes or ["float32"] * len(shapes)
    vs = [relay.var(f"v{i}", shape=s, dtype=d) for i, (s, d) in enumerate(zip(shapes, dtypes))]
    return relay.transform.InferType()(relay.IRModule.from_expr(relay.Function(vs, make(*vs))))


@pytest.mark.parametrize("make, shapes, dtypes, op", [
    (lambda x, y: relay.stack([x, y], 3), [(2, 3), (2, 3)], None, "stack"),
    (lambda x, y: relay.stack([x, y], 0), [(2, 3), (3, 2)], None, "stack"),
    (lambda x: relay.repeat(x, 2, 2), [(2, 3)], None, "repeat"),
    (lambda x: relay.reverse(x, -3), [(2, 3)], None, "reverse"),
    (lambda x, i: relay.gather(x, 0, i), [(2, 3), (2,)], ["float32", "int32"], "gather"),
    (lambda x, i: relay.gather_nd(x, i), [(2, 3), (3, 4)], ["float32", "int32"], "gather_nd"),
    (lambda x: relay.argmax(x, 2), [(2, 3)], None, "argmax"),
    (lambda x: relay.prod(x, (0, 0)), [(2, 3)], None, "prod"),
    (lambda x: relay.all(x), [(2, 3)], None, "all"),
    (lambda x: relay.sum(x, (5,), exclude=True), [(2, 3)], None, "sum"),
    (lambda x: relay.trilu(x, 0), [(3,)], None, "trilu"),
    (lambda x, y: relay.reshape_like(x, y), [(2, 3), (4, 2)], None, "reshape_like"),
    (lambda x, n: relay.sequence_mask(x, n), [(4, 3), (4,)], ["float32", "int32"],
     "sequence_mask"),
])
def test_type_errors_name_the_op(make, shapes, dtypes, op):
    with pytest.raises(RelayTypeInferenceError, match=rf"\[in {op}\("):
        _infer(make, *shapes, dtypes=dtypes)


def test_arange_of_an_expression_is_dyn_arange():
    n = relay.var("n", shape=(), dtype="int32")
    call = relay.arange(n, dtype="int32")
    assert call.op.name == "dyn.arange"  # the relay VM runs it; relay.build cannot
    with pytest.raises(TVMError, match="dyn.arange|dynamic"):
        relay.build(tvm.IRModule.from_expr(relay.Function([n], call)), "llvm")


def test_split_still_checks_indices(rng):
    """relay.any / relay.all do not shadow the builtins split uses."""
    a = _rand(rng, 6, 4)
    outs = _run(lambda x: relay.Tuple(list(relay.split(x, [1, 4], 0).pieces)), [a])[0]
    for o, w in zip(outs, np.split(a, [1, 4], 0)):
        np.testing.assert_array_equal(o, w)
    with pytest.raises(RelayTypeError, match="split"):
        relay.split(relay.var("x", shape=(6, 4)), [4, 1], 0)


@pytest.mark.parametrize("axis, dtype, exclusive", [(None, None, None), (1, None, True),
                                                    (-1, "float64", False)])
def test_cumsum(rng, axis, dtype, exclusive):
    a = _rand(rng, 3, 5, 4)
    outs, factory = _run(lambda x: relay.exp(relay.cumsum(x, axis, dtype, exclusive)), [a])
    want = np.cumsum(a, axis=axis, dtype=dtype)
    if exclusive:
        want = want - a
    np.testing.assert_allclose(outs[0], np.exp(want), rtol=1e-5, atol=1e-6)
    assert outs[0].dtype == (dtype or "float32")


def test_reshape_newshape_is_always_printed(rng):
    """reshape's newshape has no default (classic): ``newshape=[]`` (a scalar result) is
    printed and parsed back; a reshape without it is a type error naming the attribute."""
    a = _rand(rng, 1)
    x = relay.var("x", shape=(1,))
    call = relay.reshape(x, [])
    assert "newshape=[]" in call.astext()
    mod = tvm.relay.parse(tvm.IRModule.from_expr(relay.Function([x], call)).astext())
    out = relay.create_executor(mod=mod).evaluate()(a).numpy()
    assert out.shape == () and out == a[0]
    with pytest.raises(RelayTypeInferenceError, match="newshape is required"):
        relay.transform.InferType()(tvm.relay.parse(
            '#[version = "0.0.5"]\ndef @main(%x: Tensor[(1), float32]) { reshape(%x) }'))


def test_reshape_infers_a_symbolic_size():
    """reshape's -1 over a symbolic dimension (``te.size_var``) is the simplified quotient
    (classic), and ``relay.Any`` stays unknown."""
    b = tvm.te.size_var("b")
    x = relay.var("x", shape=(b, 16))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(
        relay.Function([x], relay.reshape(x, (4, -1, 2)))))
    shape = mod["main"].ret_type.shape
    assert int(shape[0]) == 4 and int(shape[2]) == 2
    assert tvm.ir.structural_equal(tvm.arith.Analyzer().simplify(shape[1] - b * 2),
                                   tvm.tir.const(0, shape[1].dtype))
    y = relay.var("y", shape=(relay.Any(), 6))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(
        relay.Function([y], relay.reshape(y, (-1, 3)))))
    assert str(mod["main"].ret_type) == str(relay.TensorType((relay.Any(), 3), "float32"))
