"""topi.strided_set, strided_slice with run-time bounds (Tensor begin/end/strides) or None
entries, topi.adv_index, and the small transform fixes classic's tests need (tile of an
empty tensor, concatenate(a_tuple=...), empty slices through a fused schedule, Tensor.astype,
vectorized loops over bool buffers, fast_erf's dtypes), compared with numpy on random inputs."""
import itertools
import math

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(11)


def build_run(out, inputs, arrays, out_shape=None, schedule=None):
    s = (schedule or topi.x86.schedule_injective)(out)
    f = tvm.build(s, list(inputs) + [out], "llvm")
    shape = out_shape if out_shape is not None else [int(x) for x in out.shape]
    res = tvm.nd.array(np.zeros(shape, out.dtype))
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


def slices():
    """Random (begin, end, stride) triples, some entries None, over sizes 1..6."""
    for _ in range(60):
        n = int(RNG.integers(1, 4))
        shape = [int(x) for x in RNG.integers(1, 7, n)]
        k = int(RNG.integers(1, n + 1))
        b = [int(x) for x in RNG.integers(-8, 8, k)]
        e = [int(x) for x in RNG.integers(-8, 8, k)]
        st = [int(x) for x in RNG.choice([-3, -2, -1, 1, 2, 3], k)]
        yield shape, b, e, st


def test_strided_set_matches_numpy_slice_assignment():
    for shape, b, e, st in slices():
        x = RNG.uniform(size=shape).astype("float32")
        sl = tuple(slice(*t) for t in zip(b, e, st))
        v = RNG.uniform(size=x[sl].shape).astype("float32")
        want = x.copy()
        want[sl] = v
        np.testing.assert_array_equal(ref.strided_set_python(x, v, b, e, st), want)
        A, V = te.placeholder(shape, name="A"), te.placeholder(v.shape, name="V")
        tb, te_, ts = (te.placeholder((len(b),), "int32", nm) for nm in ("b", "e", "s"))
        out = topi.strided_set(A, V, tb, te_, ts)
        got = build_run(out, [A, V, tb, te_, ts],
                        [x, v] + [np.array(t, "int32") for t in (b, e, st)])
        np.testing.assert_array_equal(got, want, err_msg=f"{shape} {b}:{e}:{st}")


def test_strided_set_default_strides_and_errors():
    x = RNG.uniform(size=(3, 4, 3)).astype("float32")
    v = RNG.uniform(size=(2, 3, 3)).astype("float32")
    A, V = te.placeholder(x.shape, name="A"), te.placeholder(v.shape, name="V")
    tb, te_ = te.placeholder((2,), "int32", "b"), te.placeholder((3,), "int32", "e")
    got = build_run(topi.strided_set(A, V, tb, te_), [A, V, tb, te_],
                    [x, v, np.array([1, 1], "int32"), np.array([4, 4, 3], "int32")])
    want = x.copy()
    want[1:4, 1:4, :3] = v
    np.testing.assert_array_equal(got, want)
    with pytest.raises(TopiError, match="int32"):
        topi.strided_set(A, V, te.placeholder((2,), "int64"), te_)
    with pytest.raises(TopiError, match="vector"):
        topi.strided_set(A, V, te.placeholder((2, 1), "int32"), te_)


def test_dynamic_strided_slice_reads_bounds_at_run_time():
    for shape, b, e, st in slices():
        x = RNG.uniform(size=shape).astype("float32")
        want = x[tuple(slice(*t) for t in zip(b, e, st))]
        A = te.placeholder(shape, name="A")
        tb, te_, ts = (te.placeholder((len(b),), "int64", nm) for nm in ("b", "e", "s"))
        out = topi.strided_slice(A, tb, te_, ts)
        got = build_run(out, [A, tb, te_, ts], [x] + [np.array(t, "int64") for t in (b, e, st)],
                        out_shape=want.shape, schedule=topi.generic.schedule_injective)
        np.testing.assert_array_equal(got, want, err_msg=f"{shape} {b}:{e}:{st}")
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(TopiError, match="axes"):
        topi.strided_slice(A, te.placeholder((1,), "int64"), [2], axes=[1])


def test_static_strided_slice_none_entries():
    x = RNG.uniform(size=(3, 4, 5)).astype("float32")
    A = te.placeholder(x.shape, name="A")
    out = topi.strided_slice(A, [None, 1, None], [None, None, -1], [None, 2, -2])
    np.testing.assert_array_equal(build_run(out, [A], [x]), x[:, 1::2, :-1:-2])
    out = topi.strided_slice(A, [0, 2, 0], [1, 2, 3])  # an empty slice
    assert build_run(out, [A], [x]).shape == (1, 0, 3)


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "uint16", "int8"])
@pytest.mark.parametrize("data_shape,index_shapes", [
    ((3, 4, 5), [(2,), (2,), (1,)]), ((10, 15, 5), [(4, 1), (1, 7)]),
    ((10, 5, 15), [(1, 2, 1), (1, 2, 7)]), ((7, 3), [(3, 2)]), ((5,), [(2, 3, 1)])])
def test_adv_index(dtype, data_shape, index_shapes):
    x = RNG.uniform(size=data_shape).astype("float32")
    signed = dtype.startswith("int")
    idx = [RNG.integers(-data_shape[d] if signed else 0, data_shape[d], s).astype(dtype)
           for d, s in enumerate(index_shapes)]
    want = x[tuple(i.astype("int64") for i in idx)]
    D = te.placeholder(data_shape, name="D")
    I = [te.placeholder(s, dtype, f"i{d}") for d, s in enumerate(index_shapes)]
    out = topi.adv_index(D, I)
    assert [int(v) for v in out.shape] == list(want.shape)
    np.testing.assert_array_equal(build_run(out, [D] + I, [x] + idx), want)


def test_adv_index_errors():
    D = te.placeholder((3, 4), name="D")
    with pytest.raises(TopiError, match="too many indices"):
        topi.adv_index(D, [te.placeholder((2,), "int32")] * 3)
    with pytest.raises(TopiError, match="integer"):
        topi.adv_index(D, [te.placeholder((2,), "float32")])
    with pytest.raises(TopiError, match="broadcast"):
        topi.adv_index(D, [te.placeholder((2,), "int32"), te.placeholder((3,), "int32")])


def test_tile_of_empty_tensor_and_concatenate_keyword():
    A = te.placeholder((4, 0), name="A")
    out = topi.tile(A, (5,))
    assert [int(v) for v in out.shape] == [4, 0]
    assert build_run(out, [A], [np.zeros((4, 0), "float32")]).shape == (4, 0)
    x, y = RNG.uniform(size=(2, 3)).astype("float32"), RNG.uniform(size=(2, 5)).astype("float32")
    X, Y = te.placeholder(x.shape, name="X"), te.placeholder(y.shape, name="Y")
    got = build_run(topi.concatenate(a_tuple=[X, Y], axis=1), [X, Y], [x, y],
                    schedule=topi.arm_cpu.schedule_concatenate)
    np.testing.assert_array_equal(got, np.concatenate([x, y], 1))


def test_fuse_of_an_empty_loop_nest():
    A = te.placeholder((3, 0, 5), name="A")
    B = te.compute(A.shape, lambda *i: A(*i) + 1, name="B")
    s = te.create_schedule(B.op)
    s[B].fuse(*s[B].op.axis)
    f = tvm.build(s, [A, B], "llvm")
    b = tvm.nd.array(np.zeros((3, 0, 5), "float32"))
    f(tvm.nd.array(np.zeros((3, 0, 5), "float32")), b)
    assert b.shape == (3, 0, 5)


def test_sequence_mask_and_gather_nd_references():
    x = RNG.uniform(size=(6, 3, 2)).astype("float32")
    lengths = np.array([1, 6, 3], "int32")
    got = ref.sequence_mask(x, lengths, -1.0, 0)
    for t, b, c in itertools.product(range(6), range(3), range(2)):
        assert got[t, b, c] == (x[t, b, c] if t < lengths[b] else -1.0)
    got = ref.sequence_mask(x.transpose(1, 0, 2), lengths, 2.0, 1)
    np.testing.assert_array_equal(got.transpose(1, 0, 2), np.where(
        np.arange(6)[:, None, None] < lengths[None, :, None], x, 2.0))
    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(ref.gather_nd_python(a, np.array([[2.7, 0.2], [3.9, 1.0]])),
                                  a[[2, 0], [3, 1]])


def test_tensor_astype_is_topi_cast():
    x = RNG.uniform(-3, 3, (2, 5)).astype("float32")
    A = te.placeholder(x.shape, name="A")
    out = topi.greater(A, 0.5).astype("int8")
    assert out.dtype == "int8"
    np.testing.assert_array_equal(build_run(out, [A], [x]), (x > 0.5).astype("int8"))


def test_vectorized_bool_buffers_run_as_scalar_loops():
    x = RNG.random((3, 16)) > 0.5
    A = te.placeholder(x.shape, "bool", "A")
    out = topi.logical_not(A)
    np.testing.assert_array_equal(build_run(out, [A], [x]), ~x)
    where = topi.where(A, 1.0, -1.0)
    np.testing.assert_array_equal(build_run(where, [A], [x]), np.where(x, 1.0, -1.0))


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-6), ("float16", 2e-3), ("float64", 1e-12)])
def test_fast_erf_dtypes(dtype, tol):
    x = RNG.uniform(-4, 4, (5, 7)).astype(dtype)
    A = te.placeholder(x.shape, dtype, "A")
    out = topi.fast_erf(A)
    assert out.dtype == dtype
    want = np.vectorize(math.erf)(x.astype("float64"))
    np.testing.assert_allclose(build_run(out, [A], [x]), want, atol=tol)


def test_adv_index_clamps_out_of_range_indices():
    x = RNG.uniform(size=(4, 3)).astype("float32")
    D, I = te.placeholder(x.shape, name="D"), te.placeholder((3,), "int32", "I")
    got = build_run(topi.adv_index(D, [I]), [D, I], [x, np.array([9, -9, 2], "int32")])
    np.testing.assert_array_equal(got, x[[3, 0, 2]])
