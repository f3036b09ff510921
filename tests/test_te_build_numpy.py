"""Every TE feature of the foundation issue built with tvm.build (C backend) and run on random
inputs of odd sizes, compared with numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi

RNG = np.random.default_rng(7)
N = 13


def run(args, inputs, outputs, target="llvm", **build_kw):
    """Build ``args`` (inputs first, then outputs) and return the output arrays."""
    outs = args[len(inputs):]
    s = te.create_schedule([t.op for t in outs])
    f = tvm.build(s, args, target=target, **build_kw)
    nds = [tvm.nd.array(x) for x in inputs]
    nds += [tvm.nd.empty([int(d) for d in t.shape], t.dtype) for t in outs]
    f(*nds)
    return [x.numpy() for x in nds[len(inputs):]]


def unary(A, f, name):
    """``f(A[i])`` for a 1-D ``A`` (a helper: fcompute may not take default arguments)."""
    return te.compute(A.shape, lambda i: f(A[i]), name=name)


def randn(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def test_placeholder_forms_and_default_names():
    A = te.placeholder([N, 5])
    B = te.placeholder(A.shape, "float32", "B")
    C = te.placeholder((N, 5), dtype="float32", name="C")
    assert A.op.name == "placeholder" and A.dtype == "float32"
    D = te.compute(A.shape, lambda i, j: A[i, j] + B(i, j) * C[(i, j)])
    assert D.op.name == "compute"
    a, b, c = randn(N, 5), randn(N, 5), randn(N, 5)
    (d,) = run([A, B, C, D], [a, b, c], [D])
    np.testing.assert_allclose(d, a + b * c, rtol=1e-6)


def test_var_and_size_var_shapes_and_scalar_arguments():
    n, m = te.var("n"), te.size_var("m")
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda *i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    f = tvm.build(s, [A, B, n, m])
    for shape in [(5, 3), (1, 7)]:
        a = randn(*shape)
        b = tvm.nd.empty(shape)
        f(tvm.nd.array(a), b, *shape)
        np.testing.assert_allclose(b.numpy(), a * 2)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                   "int64", "uint8"])
def test_dtypes(dtype):
    A = te.placeholder((N,), dtype, name="A")
    B = te.placeholder((N,), dtype=dtype, name="B")
    C = te.compute((N,), lambda i: A[i] * B[i] + A[i], name="C")
    assert C.dtype == dtype
    if dtype.startswith("float"):
        a, b = randn(N, dtype=dtype), randn(N, dtype=dtype)
    else:
        a, b = (RNG.integers(0, 120, N).astype(dtype) for _ in range(2))
    (c,) = run([A, B, C], [a, b], [C])
    with np.errstate(over="ignore"):
        ref = a * b + a
    if dtype == "float16":
        np.testing.assert_allclose(c, ref, rtol=2e-3, atol=1e-2)
    else:
        np.testing.assert_allclose(c, ref, rtol=1e-6)


def test_bool_tensors_all_any_not():
    A = te.placeholder((N,), name="A")
    M = te.placeholder((N,), "bool", name="M")
    B = te.compute((N,), lambda i: te.all(A[i] > 0, M[i]), name="B")
    C = te.compute((N,), lambda i: te.any(A[i] > 1, tvm.tir.Not(M[i])), name="C")
    D = te.compute((N,), lambda i: te.if_then_else(M[i], A[i], -A[i]), name="D")
    assert B.dtype == "bool" and C.dtype == "bool"
    a, m = randn(N), RNG.random(N) > 0.5
    b, c, d = run([A, M, B, C, D], [a, m], [B, C, D])
    np.testing.assert_array_equal(b, (a > 0) & m)
    np.testing.assert_array_equal(c, (a > 1) | ~m)
    np.testing.assert_array_equal(d, np.where(m, a, -a))


def test_astype():
    A = te.placeholder((N,), name="A")
    outs = [unary(A, lambda x, t=t: x.astype(t), "C_" + t)
            for t in ("int32", "uint8", "float16", "float64")]
    outs.append(te.compute((N,), lambda i: (A[i] > 0).astype("float32"), name="D"))
    a = np.abs(randn(N) * 50)
    res = run([A] + outs, [a], outs)
    for r, t in zip(res[:4], ("int32", "uint8", "float16", "float64")):
        np.testing.assert_array_equal(r, a.astype(t))
    np.testing.assert_array_equal(res[4], (a > 0).astype("float32"))


def test_zero_dim_output_and_multi_axis_reductions():
    A = te.placeholder((7, 5, 3), name="A")
    k, l_ = te.reduce_axis((0, 5), "k"), te.reduce_axis((0, 3), "l")
    S = te.compute((7,), lambda i: te.sum(A[i, k, l_], axis=[k, l_]), name="S")
    k2 = te.reduce_axis((0, 5), "k2")
    M = te.compute((7, 3), lambda i, j: te.max(A[i, k2, j], axis=k2), name="M")
    k3 = te.reduce_axis((0, 5), "k3")
    Mn = te.compute((7, 3), lambda i, j: te.min(A[i, k3, j], axis=[k3]), name="Mn")
    r = [te.reduce_axis((0, d), f"r{i}") for i, d in enumerate((7, 5, 3))]
    T = te.compute((), lambda: te.sum(A[r[0], r[1], r[2]], axis=r), name="T")
    k4 = te.reduce_axis((1, 4), "k4")
    W = te.compute((7,), lambda i: te.sum(A[i, k4, 0], axis=k4, where=A[i, k4, 0] > 0),
                   name="W")
    a = randn(7, 5, 3)
    s, m, mn, t, w = run([A, S, M, Mn, T, W], [a], [S, M, Mn, T, W])
    np.testing.assert_allclose(s, a.sum((1, 2)), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(m, a.max(1))
    np.testing.assert_array_equal(mn, a.min(1))
    assert t.shape == () and np.isclose(t, a.sum(), rtol=1e-4, atol=1e-4)
    sub = a[:, 1:4, 0]
    np.testing.assert_allclose(w, np.where(sub > 0, sub, 0).sum(1), rtol=1e-5, atol=1e-6)


def test_compute_name_tag_attrs_and_several_outputs():
    A = te.placeholder((N,), name="A")
    B = te.compute((N,), lambda i: A[i] + 1.0, "B", "ew", {"k": 1})
    P, Q = te.compute((N,), lambda i: (A[i] * 3.0, A[i].astype("int32")), name="PQ")
    assert (B.op.name, B.op.tag, B.op.attrs) == ("B", "ew", {"k": 1})
    a = randn(N) * 10
    b, p, q = run([A, B, P, Q], [a], [B, P, Q])
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)
    np.testing.assert_allclose(p, a * 3, rtol=1e-6)
    np.testing.assert_array_equal(q, a.astype("int32"))


def test_binary_max_min_and_comm_reducers():
    A = te.placeholder((N, 6), name="A")
    B = te.compute((N,), lambda i: te.max(A[i, 0], A[i, 1]) + te.min(A[i, 2], 0.5), name="B")
    product = te.comm_reducer(lambda x, y: x * y, lambda t: tvm.tir.const(1, dtype=t),
                              name="product")
    k = te.reduce_axis((0, 6), "k")
    P = te.compute((N,), lambda i: product(A[i, k], axis=k), name="P")
    a = RNG.uniform(0.5, 1.5, (N, 6)).astype("float32")
    b, p = run([A, B, P], [a], [B, P])
    np.testing.assert_allclose(b, np.maximum(a[:, 0], a[:, 1]) + np.minimum(a[:, 2], 0.5))
    np.testing.assert_allclose(p, a.prod(1), rtol=1e-5)


def test_tuple_reducer_argmax_symbolic():
    def fcombine(x, y):
        lhs = tvm.tir.Select(x[1] >= y[1], x[0], y[0])
        rhs = tvm.tir.Select(x[1] >= y[1], x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return tvm.tir.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    m, n = te.var("m"), te.var("n")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="float32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    f = tvm.build(te.create_schedule(T0.op), [idx, val, T0, T1])
    v = randn(7, 11)
    ix = np.tile(np.arange(11, dtype="int32"), (7, 1))
    t0, t1 = tvm.nd.empty((7,), "int32"), tvm.nd.empty((7,), "float32")
    f(tvm.nd.array(ix), tvm.nd.array(v), t0, t1)
    np.testing.assert_array_equal(t0.numpy(), v.argmax(1))
    np.testing.assert_array_equal(t1.numpy(), v.max(1))


def test_const_select_if_then_else():
    A = te.placeholder((N,), name="A")
    B = te.compute((N,), lambda i: tvm.tir.Select(A[i] > tvm.tir.const(0.1, "float32"), A[i],
                                                  tvm.tir.const(2, "float32")), name="B")
    C = te.compute((N,), lambda i: tvm.tir.if_then_else(tvm.tir.any(i < 2, i > 10), 0.0, A[i]),
                   name="C")
    D = te.compute((N,), lambda i: te.if_then_else(tvm.tir.all(i >= 2, A[i] > 0), A[i], 1.0),
                   name="D")
    a, ii = randn(N), np.arange(N)
    b, c, d = run([A, B, C, D], [a], [B, C, D])
    np.testing.assert_array_equal(b, np.where(a > np.float32(0.1), a, 2))
    np.testing.assert_array_equal(c, np.where((ii < 2) | (ii > 10), 0, a))
    np.testing.assert_array_equal(d, np.where((ii >= 2) & (a > 0), a, 1))


@pytest.mark.parametrize("dtype", ["int32", "int8", "int64"])
def test_floordiv_floormod_indexdiv_truncdiv(dtype):
    A = te.placeholder((17,), dtype, name="A")
    B = te.placeholder((17,), dtype, name="B")
    outs = [te.compute((17,), lambda i: A[i] // B[i], name="C"),
            te.compute((17,), lambda i: A[i] % B[i], name="D"),
            te.compute((17,), lambda i: tvm.tir.indexdiv(A[i], B[i]), name="E"),
            te.compute((17,), lambda i: tvm.tir.indexmod(A[i], B[i]), name="F"),
            te.compute((17,), lambda i: tvm.tir.truncdiv(A[i], B[i]), name="G"),
            te.compute((17,), lambda i: tvm.tir.truncmod(A[i], B[i]), name="H"),
            te.compute((17,), lambda i: te.floordiv(A[i], 3) + te.floormod(A[i], 3), name="I")]
    a = RNG.integers(-60, 60, 17).astype(dtype)
    b = (RNG.integers(1, 7, 17) * RNG.choice([-1, 1], 17)).astype(dtype)
    c, d, e, f, g, h, k = run([A, B] + outs, [a, b], outs)
    for got, ref in ((c, a // b), (d, a % b), (e, a // b), (f, a % b),
                     (g, np.fix(a / b)), (h, np.fmod(a, b)), (k, a // 3 + a % 3)):
        np.testing.assert_array_equal(got, ref.astype(dtype))


def test_float_floordiv_and_mod():
    A, B = te.placeholder((N,), name="A"), te.placeholder((N,), name="B")
    C = te.compute((N,), lambda i: A[i] // B[i], name="C")
    D = te.compute((N,), lambda i: A[i] % B[i], name="D")
    a = randn(N) * 10
    b = (RNG.uniform(0.5, 2, N) * RNG.choice([-1, 1], N)).astype("float32")
    c, d = run([A, B, C, D], [a, b], [C, D])
    np.testing.assert_allclose(c, np.floor(a / b), rtol=1e-6)
    np.testing.assert_allclose(d, a - np.floor(a / b) * b, rtol=1e-4, atol=1e-4)


def test_shifts_and_bitwise():
    A = te.placeholder((N,), "int32", name="A")
    U = te.placeholder((N,), "uint8", name="U")
    B = te.compute((N,), lambda i: (A[i] << 2) + (A[i] >> 1), name="B")
    C = te.compute((N,), lambda i: tvm.tir.shift_left(A[i], 3) - tvm.tir.shift_right(A[i], 2),
                   name="C")
    V = te.compute((N,), lambda i: (U[i] >> 2) | (U[i] << 1), name="V")
    W = te.compute((N,), lambda i: (A[i] & 7) ^ (A[i] | 1), name="W")
    a = RNG.integers(-1000, 1000, N).astype("int32")
    u = RNG.integers(0, 256, N).astype("uint8")
    b, c, v, w = run([A, U, B, C, V, W], [a, u], [B, C, V, W])
    np.testing.assert_array_equal(b, (a << 2) + (a >> 1))
    np.testing.assert_array_equal(c, (a << 3) - (a >> 2))
    np.testing.assert_array_equal(v, (u >> 2) | (u << 1).astype("uint8"))
    np.testing.assert_array_equal(w, (a & 7) ^ (a | 1))


MATH = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "abs": np.abs, "floor": np.floor,
        "ceil": np.ceil}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_math_functions(dtype):
    A = te.placeholder((N,), dtype, name="A")
    outs = [unary(A, getattr(te, nm), "O_" + nm) for nm in MATH]
    outs.append(te.compute((N,), lambda i: te.power(A[i], 2.5), name="P"))
    outs.append(te.compute((N,), lambda i: tvm.tir.power(A[i], A[i]), name="PP"))
    pos = RNG.uniform(0.1, 3, N).astype(dtype)
    res = run([A] + outs, [pos], outs)
    for (nm, ref), got in zip(MATH.items(), res):
        np.testing.assert_allclose(got, ref(pos), rtol=1e-5, err_msg=nm)
    np.testing.assert_allclose(res[-2], pos ** 2.5, rtol=1e-5)
    np.testing.assert_allclose(res[-1], pos ** pos, rtol=1e-5)
    neg = RNG.uniform(-3, 3, N).astype(dtype)  # abs/floor/ceil on negative values
    res = run([A] + outs[5:8], [neg], outs[5:8])
    for ref, got in zip((np.abs, np.floor, np.ceil), res):
        np.testing.assert_array_equal(got, ref(neg))


def test_integer_abs():
    A = te.placeholder((N,), "int32", name="A")
    B = te.compute((N,), lambda i: te.abs(A[i]), name="B")
    a = RNG.integers(-50, 50, N).astype("int32")
    np.testing.assert_array_equal(run([A, B], [a], [B])[0], np.abs(a))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "uint8", "int16",
                                   "int32", "int64"])
def test_min_value_max_value(dtype):
    lo, hi = te.min_value(dtype), te.max_value(dtype)
    assert lo.dtype == dtype and hi.dtype == dtype
    A = te.compute((3,), lambda i: tvm.tir.Select(i == 0, lo, hi), name="A")
    info = np.finfo(dtype) if dtype.startswith("float") else np.iinfo(dtype)
    np.testing.assert_array_equal(run([A], [], [A])[0], [info.min, info.max, info.max])


def test_tensor_arithmetic_broadcasts():
    A = te.placeholder((3, 1, 5), name="A")
    B = te.placeholder((4, 1), name="B")
    outs = [A + B, A * B, A - 2.0, 1.0 / (B + 1.0), A / B, B - A]
    assert [t.op.name for t in outs] == ["T_add", "T_multiply", "T_subtract", "T_divide",
                                         "T_divide", "T_subtract"]
    a, b = randn(3, 1, 5), RNG.uniform(1, 2, (4, 1)).astype("float32")
    res = run([A, B] + outs, [a, b], outs)
    for got, ref in zip(res, (a + b, a * b, a - 2, 1 / (b + 1), a / b, b - a)):
        np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_topi_sqrt_and_nn_pad():
    A = te.placeholder((3, 5, 6), name="A")
    S = topi.sqrt(A)
    P = topi.nn.pad(A, [0, 1, 2], [0, 2, 1], pad_value=0.5)
    P2 = topi.nn.pad(A, [1, 1, 1])
    a = RNG.uniform(0, 4, (3, 5, 6)).astype("float32")
    s, p, p2 = run([A, S, P, P2], [a], [S, P, P2])
    np.testing.assert_allclose(s, np.sqrt(a), rtol=1e-6)
    np.testing.assert_array_equal(p, np.pad(a, ((0, 0), (1, 2), (2, 1)), constant_values=0.5))
    np.testing.assert_array_equal(p2, np.pad(a, 1))


def test_extern_call_packed_two_inputs_feeding_a_compute():
    @tvm.register_func("tvmlite.test.te_build.add", override=True)
    def add(x, y, z):
        z.copyfrom(x.numpy() + y.numpy())

    A, B = te.placeholder((7, 3), name="A"), te.placeholder((7, 3), name="B")
    C = te.extern((7, 3), [A, B], lambda ins, outs: tvm.tir.call_packed(
        "tvmlite.test.te_build.add", ins[0], ins[1], outs[0]), name="C")
    D = te.compute((7, 3), lambda i, j: C[i, j] * 2.0, name="D")
    a, b = randn(7, 3), randn(7, 3)
    np.testing.assert_allclose(run([A, B, D], [a, b], [D])[0], (a + b) * 2, rtol=1e-6)


def test_decl_buffer_binds_runs():
    A = te.placeholder((6, 5), name="A")
    B = te.compute((6, 5), lambda i, j: A[i, j] * 3.0, name="B")
    Ab = tvm.tir.decl_buffer(A.shape, A.dtype, name="Ab", offset_factor=1)
    Bb = tvm.tir.decl_buffer(B.shape, B.dtype, name="Bb")
    a = randn(6, 5)
    (b,) = run([A, B], [a], [B], binds={A: Ab, B: Bb})
    np.testing.assert_allclose(b, a * 3, rtol=1e-6)


@pytest.mark.parametrize("target", ["llvm", "c"])
def test_create_prim_func_builds(target):
    A = te.placeholder((7, 5), name="A")
    k = te.reduce_axis((0, 5), "k")
    B = te.compute((7,), lambda i: te.sum(A[i, k], axis=k), name="B")
    f = te.create_prim_func([A, B])
    mod = tvm.build(tvm.IRModule({"main": f}), target=target)
    a, b = randn(7, 5), tvm.nd.empty((7,))
    mod["main"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(1), rtol=1e-5, atol=1e-6)
    b2 = tvm.nd.empty((7,))
    tvm.build(f, target=target)(tvm.nd.array(a), b2)
    np.testing.assert_array_equal(b2.numpy(), b.numpy())
