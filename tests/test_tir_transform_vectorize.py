"""VectorizeLoop: expected IR (TVMScript) and vectorized-vs-serial results against numpy."""
import re

import numpy as np
import pytest
from programs import conv1d_v4

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T
from tvmlite.tir.transform import vectorize_loop


def _check(before, expected, **kw):
    got = before.with_body(vectorize_loop(before.body, **kw))
    tvm.ir.assert_structural_equal(got.with_attr("global_symbol", "expected"),
                                   expected.with_attr("global_symbol", "expected"))


def test_inner_loop_stays_inside_the_vector_body():
    @T.prim_func
    def before(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(8):
            for j in T.vectorized(8):
                for _k in range(3):
                    B[i * 8 + j] = B[i * 8 + j] + A[i * 8 + j] * T.float32(2)

    @T.prim_func
    def expected(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(8):
            for _k in range(3):
                B[i * 8:i * 8 + 8] = B[i * 8:i * 8 + 8] \
                    + A[i * 8:i * 8 + 8] * T.Broadcast(T.float32(2), 8)

    _check(before, expected)


def test_allocation_under_the_vector_loop_is_widened():
    @T.prim_func
    def before(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for j in T.vectorized(4):
            t = T.allocate([2], "float32", "global")
            t_1 = T.Buffer((2,), data=t)
            for r in range(2):
                t_1[r] = A[r * 4 + j]
            B[j] = t_1[0] + t_1[1]

    @T.prim_func
    def expected(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        t = T.allocate([8], "float32", "global")
        t_1 = T.Buffer((2,), data=t)
        for r in range(2):
            t_1[r * 4:r * 4 + 4] = A[r * 4:r * 4 + 4]
        B[0:4] = t_1[0:4] + t_1[4:8]

    _check(before, expected)


def test_lane_varying_if_then_else_becomes_a_vector_select():
    @T.prim_func
    def before(A: T.Buffer((10,), "float32"), B: T.Buffer((8,), "float32")):
        for j in T.vectorized(8):
            B[j] = T.if_then_else(j < 5, A[j + 5], T.float32(0))

    @T.prim_func
    def expected(A: T.Buffer((10,), "float32"), B: T.Buffer((8,), "float32")):
        B[0:8] = T.if_then_else(T.Ramp(0, 1, 8) < T.Broadcast(5, 8), A[5:13],
                                T.Broadcast(T.float32(0), 8))

    _check(before, expected)


def test_lane_varying_if_statement_falls_back_to_a_serial_loop():
    @T.prim_func
    def before(B: T.Buffer((8,), "float32")):
        for j in T.vectorized(8):
            if j < 5:
                B[j] = T.float32(1)

    @T.prim_func
    def expected(B: T.Buffer((8,), "float32")):
        for j_s in range(8):
            if j_s < 5:
                B[j_s] = T.float32(1)

    _check(before, expected)
    got = vectorize_loop(before.body)
    assert got.loop_var.name == "j_s"


def test_disable_vectorize_makes_serial_loops():
    @T.prim_func
    def before(B: T.Buffer((8,), "float32")):
        for j in T.vectorized(8):
            B[j] = T.float32(1)

    @T.prim_func
    def expected(B: T.Buffer((8,), "float32")):
        for j in range(8):
            B[j] = T.float32(1)

    with tvm.transform.PassContext(config={"tir.disable_vectorize": True}):
        _check(before, expected)


def test_odd_lane_count_is_split_into_power_of_two_pieces():
    @T.prim_func
    def before(A: T.Buffer((11,), "float32"), B: T.Buffer((11,), "float32")):
        for j in T.vectorized(11):
            B[j] = A[j] + T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((11,), "float32"), B: T.Buffer((11,), "float32")):
        B[0:8] = A[0:8] + T.Broadcast(T.float32(1), 8)
        B[8:10] = A[8:10] + T.Broadcast(T.float32(1), 2)
        B[10] = A[10] + T.float32(1)

    _check(before, expected)


# ----------------------------------------------------------------------------- differential
def _run(s, args, inputs, out_shape, disable=False):
    cfg = {"tir.disable_vectorize": True} if disable else {}
    with tvm.transform.PassContext(config=cfg):
        f = tvm.build(s, args, target="llvm")
    arrs = [tvm.nd.array(x) for x in inputs] + [tvm.nd.array(np.zeros(out_shape, "float32"))]
    f(*arrs)
    return arrs[-1].numpy(), f


@pytest.mark.parametrize("n,factor", [(37, 8), (64, 16), (100, 41), (13, 7), (5, 8), (10, 3),
                                      (301, 100), (450, 200)])
def test_vectorized_elementwise_with_guards_matches_numpy(n, factor):
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: te.exp(A[i]) * B[i] + tvm.tir.if_then_else(
        i % 3 == 0, A[i], B[i]), name="C")
    s = te.create_schedule(C.op)
    o, i = s[C].split(C.op.axis[0], factor=factor)
    s[C].vectorize(i)
    rng = np.random.default_rng(n)
    a, b = rng.random(n, dtype="float32"), rng.random(n, dtype="float32")
    want = np.exp(a) * b + np.where(np.arange(n) % 3 == 0, a, b)
    got, f = _run(s, [A, B, C], [a, b], (n,))
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert "tvml_float32x" in f.get_source()  # any lane count compiles to vector code
    serial, _ = _run(s, [A, B, C], [a, b], (n,), disable=True)
    np.testing.assert_allclose(got, serial, rtol=1e-6)


@pytest.mark.parametrize("M,N,factor", [(37, 5, 8), (4096, 128, 8), (50, 9, 41), (3, 11, 4)])
def test_guarded_loads_never_touch_inactive_lanes(M, N, factor):
    """Seed 000's v4: the if_then_else guards A[n - k]; the vector code must not read past A."""
    s, (A, W, B) = conv1d_v4(M, N, factor)
    rng = np.random.default_rng(M)
    a, w = rng.random(M, dtype="float32"), rng.random(N, dtype="float32")
    got, f = _run(s, [A, W, B], [a, w], (M + N - 1,))
    np.testing.assert_allclose(got, np.convolve(a, w), rtol=1e-4)
    if factor in (4, 8):
        assert f"tvml_float32x{factor}" in f.get_source()  # really vector code
        assert "tvml_mload_float32" in f.get_source()  # masked loads under the guard


def test_vector_code_uses_explicit_vector_types():
    n = 64
    A = te.placeholder((n,), name="A")
    C = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="C")
    s = te.create_schedule(C.op)
    o, i = s[C].split(C.op.axis[0], factor=16)
    s[C].vectorize(i)
    a = np.random.rand(n).astype("float32")
    got, f = _run(s, [A, C], [a], (n,))
    np.testing.assert_allclose(got, a * 2 + 1, rtol=1e-6)
    src = f.get_source()
    assert "vector_size(64)" in src and "tvml_float32x16_u" in src


def test_float16_vector_loop_falls_back_to_serial():
    import numpy as np

    import tvmlite as tvm
    from tvmlite import te

    A = te.placeholder((37,), name="A", dtype="float16")
    B = te.compute((37,), lambda i: A[i] * 2 + 1, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    s[B].vectorize(xi)
    assert "_s" in str(tvm.lower(s, [A, B]))
    f = tvm.build(s, [A, B])
    a = np.random.rand(37).astype("float16")
    b = tvm.nd.empty((37,), "float16")
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2 + 1, rtol=1e-3)


@pytest.mark.parametrize("n,factor", [(37, 16), (13, 8), (100, 41)])
def test_fast_exp_reinterpret_and_shifts_vectorize(n, factor):
    """fast_exp builds 2**n with a shift and a reinterpret: the loop stays a vector loop
    (no ``_s`` fallback) and its results equal the serial loop's bit for bit."""
    from tvmlite import topi

    X = te.placeholder((3, n), name="X")
    Y = topi.fast_exp(X)
    Z = te.compute((3, n), lambda i, j: tvm.tir.reinterpret(
        "float32", (tvm.tir.reinterpret("int32", X[i, j]) >> 1) ^ 5), name="Z")
    x = np.random.default_rng(n).uniform(-90, 90, (3, n)).astype("float32")
    for out in (Y, Z):
        s = te.create_schedule(out.op)
        _, ji = s[out].split(out.op.axis[1], factor=factor)
        s[out].vectorize(ji)
        got, f = _run(s, [X, out], [x], (3, n))
        # a vector reinterpret, not the serial fallback's per-element memcpy
        assert re.search(r"\(\(tvml_(float|int)32x\d+\)\(", f.get_source())
        serial, _ = _run(s, [X, out], [x], (3, n), disable=True)
        np.testing.assert_array_equal(got, serial)
    x = np.clip(x, -80, 80)
    got, _ = _run(te.create_schedule(Y.op), [X, Y], [x], (3, n))
    np.testing.assert_allclose(got, np.exp(x), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vector_floor_min_max_match_the_scalar_code_on_special_values(dtype):
    """floor, min and max print as vector operations (no per-lane libm call): the results
    equal numpy's bit for bit on signed zeros, halves, huge values, infinities and NaN."""
    big = 2.0 ** (23 if dtype == "float32" else 52)
    special = [0.0, -0.0, -0.5, 0.5, -1.0, 1.5, -2.5, big + 1, -big - 1, big / 2 + 0.5,
               -big / 2 - 0.5, 1e30, -1e30, np.inf, -np.inf, np.nan, -1e-40, 3e9, -3e9]
    rng = np.random.default_rng(7)
    n = 67
    x = np.concatenate([special, rng.uniform(-100, 100, n - len(special))]).astype(dtype)
    y = rng.permutation(x)
    X, Y = te.placeholder((n,), dtype, name="X"), te.placeholder((n,), dtype, name="Y")
    outs = {
        "floor": (te.compute((n,), lambda i: te.floor(X[i]), name="F"), np.floor(x)),
        "max": (te.compute((n,), lambda i: te.max(X[i], Y[i]), name="M"),
                np.where(x > y, x, y)),
        "min": (te.compute((n,), lambda i: te.min(X[i], Y[i]), name="N"),
                np.where(x < y, x, y)),
    }
    for name, (out, want) in outs.items():
        s = te.create_schedule(out.op)
        _, vi = s[out].split(out.op.axis[0], factor=16)
        s[out].vectorize(vi)
        f = tvm.build(s, [X, Y, out], target="llvm")
        if name == "floor":
            assert "floor" not in f.get_source().split("default_function")[-1]
        got = tvm.nd.array(np.zeros(n, dtype))
        f(tvm.nd.array(x), tvm.nd.array(y), got)
        np.testing.assert_array_equal(got.numpy().view(f"u{x.itemsize}"),
                                      want.view(f"u{x.itemsize}"), err_msg=name)
