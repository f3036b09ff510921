"""The C backend on hand-built lowered PrimFuncs, compared with numpy.

The builders here (``make_func``, ``vadd``) are shared with the other runtime/codegen tests.
"""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import tir
from tvmlite.codegen.build_c import build
from tvmlite.error import TVMError
from tvmlite.ir import IRModule
from tvmlite.tir import (
    Allocate,
    AssertStmt,
    BufferStore,
    Call,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    SeqStmt,
    StringImm,
    Var,
    decl_buffer,
)

I32 = "int32"


def c(v, dtype=I32):
    return tir.const(v, dtype)


def make_func(args, body, name="default_function", noalias=True):
    """A lowered PrimFunc; ``args`` are Buffers (tensor params) or Vars (scalars)."""
    params, bmap = [], {}
    for a in args:
        if isinstance(a, tir.Buffer):
            p = Var(a.name, "handle")
            params.append(p)
            bmap[p] = a
        else:
            params.append(a)
    return tir.PrimFunc(tuple(params), body, buffer_map=bmap,
                        attrs={"global_symbol": name, "tir.noalias": noalias})


def flat(buf):
    """The flat 1-D view of a param buffer (same data Var)."""
    size = c(1)
    for s in buf.shape:
        size = size * s
    return decl_buffer((size,), buf.dtype, buf.name + "_flat", data=buf.data)


def loop(var, extent, body, kind=ForKind.SERIAL, start=0):
    return For(var, c(start, var.dtype), tir.op.convert(extent), kind, body)


def vadd(n=100, dtype="float32", name="default_function", kind=ForKind.SERIAL):
    A, B, C = (decl_buffer((n,), dtype, x) for x in "abc")
    i = Var("i", I32)
    body = loop(i, A.shape[0], BufferStore(C, A[i] + B[i], (i,)), kind)
    return make_func([A, B, C], body, name)


def build_one(func, target="llvm"):
    return build(IRModule({func.attrs["global_symbol"]: func}), target)


def rand(shape, dtype, lo=-100, hi=100):
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-10, 10, shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(lo, info.min), min(hi, info.max), shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                   "int64", "uint8"])
def test_vector_add_every_dtype(dtype):
    n = 37
    mod = build_one(vadd(n, dtype))
    a, b = rand(n, dtype, -50, 50), rand(n, dtype, 0, 50)
    out = tvm.nd.empty((n,), dtype)
    mod(tvm.nd.array(a), tvm.nd.array(b), out)
    np.testing.assert_array_equal(out.numpy(), a + b)


def test_int8_arithmetic_wraps_like_numpy():
    n = 16
    mod = build_one(vadd(n, "int8"))
    a = np.full(n, 100, "int8")
    out = tvm.nd.empty((n,), "int8")
    mod(tvm.nd.array(a), tvm.nd.array(a), out)
    np.testing.assert_array_equal(out.numpy(), a + a)  # wraps to -56


def test_2d_loops_flat_indexing_transpose_add():
    m, n = 7, 13
    A, B = decl_buffer((m, n), "float32", "A"), decl_buffer((n, m), "float32", "B")
    Af, Bf = flat(A), flat(B)
    i, j = Var("i", I32), Var("j", I32)
    body = loop(i, m, loop(j, n, BufferStore(Bf, Af[i * n + j] * 2.0 + 1.0, (j * m + i,))))
    mod = build_one(make_func([A, B], body))
    a = rand((m, n), "float32")
    b = tvm.nd.empty((n, m))
    mod(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), (a * 2 + 1).T, rtol=1e-6)


def test_symbolic_shape_binds_and_checks():
    n = Var("n", I32)
    A, B, C = (decl_buffer((n,), "float32", x) for x in "abc")
    i = Var("i", I32)
    mod = build_one(make_func([A, B, C], loop(i, n, BufferStore(C, A[i] + B[i], (i,)))))
    for size in (1, 10, 1000):
        a, b = rand(size, "float32"), rand(size, "float32")
        out = tvm.nd.empty((size,))
        mod(tvm.nd.array(a), tvm.nd.array(b), out)
        np.testing.assert_allclose(out.numpy(), a + b)
    with pytest.raises(TVMError, match=r"b\.shape\[0\] has an unsatisfied constraint: "
                                       r"n == b\.shape\[0\], got 5 \(n = 4\)"):
        mod(tvm.nd.empty((4,)), tvm.nd.empty((5,)), tvm.nd.empty((4,)))


def test_symbolic_2d_and_scalar_param():
    m, n = Var("m", I32), Var("n", I32)
    alpha = Var("alpha", "float32")
    A, B = decl_buffer((m, n), "float32", "A"), decl_buffer((m, n), "float32", "B")
    Af, Bf = flat(A), flat(B)
    i, j = Var("i", I32), Var("j", I32)
    body = loop(i, m, loop(j, n, BufferStore(Bf, Af[i * n + j] * alpha, (i * n + j,))))
    mod = build_one(make_func([A, B, alpha], body))
    a = rand((5, 9), "float32")
    b = tvm.nd.empty((5, 9))
    mod(tvm.nd.array(a), b, 2.5)
    np.testing.assert_allclose(b.numpy(), a * 2.5, rtol=1e-6)
    mod(tvm.nd.array(a), b, 3)  # an int for a float parameter is accepted
    np.testing.assert_allclose(b.numpy(), a * 3, rtol=1e-6)


@pytest.mark.parametrize("cols", [64, 4096])  # 256 B on the stack, 16 KiB on the heap
def test_row_sum_with_allocate_workspace(cols):
    rows = 6
    A, S = decl_buffer((rows, cols), "float32", "A"), decl_buffer((rows,), "float32", "S")
    Af = flat(A)
    buf = Var("tmp", "handle")
    T = decl_buffer((cols,), "float32", "tmp", data=buf)
    acc = Var("acc", "handle")
    Acc = decl_buffer((1,), "float32", "acc", data=acc)
    i, j, k = Var("i", I32), Var("j", I32), Var("k", I32)
    body = loop(i, rows, SeqStmt((
        loop(j, cols, BufferStore(T, Af[i * cols + j] * 2.0, (j,))),
        BufferStore(Acc, tir.const(0.0, "float32"), (c(0),)),
        loop(k, cols, BufferStore(Acc, Acc[c(0)] + T[k], (c(0),))),
        BufferStore(S, Acc[c(0)], (i,)),
    )))
    body = Allocate(acc, "float32", (c(1),), tir.const(True), body)
    body = Allocate(buf, "float32", (c(cols),), tir.const(True), body)
    mod = build_one(make_func([A, S], body))
    src = mod.get_source()
    assert ("tvml_alloc" in src.split("int32_t default_function")[1]) == (cols * 4 > 4096)
    a = rand((rows, cols), "float32")
    s = tvm.nd.empty((rows,))
    mod(tvm.nd.array(a), s)
    np.testing.assert_allclose(s.numpy(), (a * 2).sum(axis=1), rtol=1e-4)


def test_symbolic_size_allocate_is_heap():
    n = Var("n", I32)
    A, B = decl_buffer((n,), "float32", "a"), decl_buffer((n,), "float32", "b")
    buf = Var("rev", "handle")
    T = decl_buffer((n,), "float32", "rev", data=buf)
    i, j = Var("i", I32), Var("j", I32)
    body = Allocate(buf, "float32", (n,), tir.const(True), SeqStmt((
        loop(i, n, BufferStore(T, A[n - 1 - i], (i,))),
        loop(j, n, BufferStore(B, T[j], (j,))))))
    mod = build_one(make_func([A, B], body))
    a = rand(50, "float32")
    b = tvm.nd.empty((50,))
    mod(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), a[::-1])


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
def test_floordiv_floormod_truncdiv_negative(dtype):
    n = 64
    A, B = decl_buffer((n,), dtype, "a"), decl_buffer((n,), dtype, "b")
    outs = [decl_buffer((n,), dtype, x) for x in ("fd", "fm", "td", "tm")]
    i = Var("i", I32)
    x, y = A[i], B[i]
    ops = [tir.floordiv(x, y), tir.floormod(x, y), tir.truncdiv(x, y), tir.truncmod(x, y)]
    body = loop(i, n, SeqStmt(tuple(BufferStore(o, e, (i,)) for o, e in zip(outs, ops))))
    mod = build_one(make_func([A, B] + outs, body))
    rng = np.random.default_rng(1)
    a = rng.integers(-100, 100, n).astype(dtype)
    b = rng.integers(1, 9, n).astype(dtype) * rng.choice([-1, 1], n).astype(dtype)
    res = [tvm.nd.empty((n,), dtype) for _ in outs]
    mod(tvm.nd.array(a), tvm.nd.array(b), *res)
    ai, bi = a.astype(np.int64), b.astype(np.int64)
    np.testing.assert_array_equal(res[0].numpy(), ai // bi)
    np.testing.assert_array_equal(res[1].numpy(), ai % bi)
    np.testing.assert_array_equal(res[2].numpy(), np.trunc(ai / bi).astype(np.int64))
    np.testing.assert_array_equal(res[3].numpy(), np.fmod(ai, bi))


def test_floordiv_by_constant_on_negative_index():
    n = 40
    A = decl_buffer((n,), "int32", "a")
    B, C = decl_buffer((n,), "int32", "b"), decl_buffer((n,), "int32", "c")
    i = Var("i", I32)
    body = loop(i, n, SeqStmt((BufferStore(B, tir.floordiv(A[i], 8), (i,)),
                               BufferStore(C, tir.floormod(A[i], 8), (i,)))))
    mod = build_one(make_func([A, B, C], body))
    a = np.arange(-20, 20, dtype="int32")
    b, cc = tvm.nd.empty((n,), "int32"), tvm.nd.empty((n,), "int32")
    mod(tvm.nd.array(a), b, cc)
    np.testing.assert_array_equal(b.numpy(), a // 8)
    np.testing.assert_array_equal(cc.numpy(), a % 8)


def test_if_then_else_guards_out_of_range_load():
    n = 20
    A = decl_buffer((n,), "float32", "a")
    B = decl_buffer((n + 4,), "float32", "b")
    i = Var("i", I32)
    # padded copy: b[i] = a[i - 2] if 2 <= i < n + 2 else 0; must never read a[-2] or a[n]
    val = tir.if_then_else(tir.all(i >= 2, i < n + 2), A[i - 2], tir.const(0.0, "float32"))
    mod = build_one(make_func([A, B], loop(i, n + 4, BufferStore(B, val, (i,)))))
    assert "?" in mod.get_source()
    a = rand(n, "float32")
    b = tvm.nd.empty((n + 4,))
    mod(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), np.pad(a, 2))


def test_parallel_loop_and_nested_parallel_runs_serial():
    m, n = 64, 33
    A, B = decl_buffer((m, n), "float32", "A"), decl_buffer((m, n), "float32", "B")
    Af, Bf = flat(A), flat(B)
    i, j = Var("i", I32), Var("j", I32)
    body = loop(i, m, loop(j, n, BufferStore(Bf, tir.sqrt(Af[i * n + j]) + 1.0, (i * n + j,)),
                           ForKind.PARALLEL), ForKind.PARALLEL)
    mod = build_one(make_func([A, B], body))
    assert mod.get_source().count("#pragma omp parallel for") == 1
    a = np.abs(rand((m, n), "float32"))
    b = tvm.nd.empty((m, n))
    mod(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.sqrt(a) + 1, rtol=1e-6)


def test_unrolled_and_vectorized_loop_kinds():
    n = 16
    A, B = decl_buffer((n,), "float32", "a"), decl_buffer((n,), "float32", "b")
    i, j = Var("i", I32), Var("j", I32)
    body = loop(i, 4, loop(j, 4, BufferStore(B, A[i * 4 + j] * 3.0, (i * 4 + j,)),
                           ForKind.VECTORIZED), ForKind.UNROLLED)
    mod = build_one(make_func([A, B], body))
    src = mod.get_source()
    assert "#pragma GCC unroll 4" in src and "#pragma GCC ivdep" in src
    a = rand(n, "float32")
    b = tvm.nd.empty((n,))
    mod(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 3, rtol=1e-6)


def test_math_intrinsics_float32_float64_float16():
    n = 32
    rng = np.random.default_rng(2)
    for dtype, tol in (("float32", 1e-5), ("float64", 1e-12), ("float16", 2e-3)):
        A = decl_buffer((n,), dtype, "a")
        outs = [decl_buffer((n,), dtype, f"o{k}") for k in range(9)]
        i = Var("i", I32)
        x = A[i]
        exprs = [tir.exp(x), tir.sigmoid(x), tir.power(tir.fabs(x), tir.const(1.5, dtype)),
                 tir.fabs(x), tir.floor(x), tir.ceil(x), tir.round(x), tir.trunc(x),
                 tir.tanh(x)]
        body = loop(i, n, SeqStmt(tuple(BufferStore(o, e, (i,)) for o, e in zip(outs, exprs))))
        mod = build_one(make_func([A] + outs, body))
        a = rng.uniform(-3, 3, n).astype(dtype)
        a[:4] = [0.5, 1.5, -2.5, -0.5]  # round half to even, as numpy
        res = [tvm.nd.empty((n,), dtype) for _ in outs]
        mod(tvm.nd.array(a), *res)
        x64 = a.astype("float64")
        want = [np.exp(x64), 1 / (1 + np.exp(-x64)), np.abs(x64) ** 1.5, np.abs(x64),
                np.floor(x64), np.ceil(x64), np.round(x64), np.trunc(x64), np.tanh(x64)]
        for r, w in zip(res, want):
            np.testing.assert_allclose(r.numpy().astype("float64"), w, rtol=tol, atol=tol)


def test_min_max_select_let_cast_and_bitwise():
    n = 50
    A, B = decl_buffer((n,), "int32", "a"), decl_buffer((n,), "int32", "b")
    outs = [decl_buffer((n,), "int32", f"o{k}") for k in range(6)]
    F = decl_buffer((n,), "float32", "f")
    i = Var("i", I32)
    x, y = A[i], B[i]
    t = Var("t", I32)
    exprs = [tir.Min(x, y), tir.Max(x, y), tir.Select(x > y, x - y, y - x),
             tir.Let(t, x * 3, t + t), (x << 2) ^ (y & 7), tir.shift_right(x, 1)]
    body = loop(i, n, SeqStmt(tuple(BufferStore(o, e, (i,)) for o, e in zip(outs, exprs))
                              + (BufferStore(F, tir.Cast("float32", x) / 4.0, (i,)),)))
    mod = build_one(make_func([A, B] + outs + [F], body))
    a, b = rand(n, "int32", -1000, 1000), rand(n, "int32", -1000, 1000)
    res = [tvm.nd.empty((n,), "int32") for _ in outs]
    f = tvm.nd.empty((n,))
    mod(tvm.nd.array(a), tvm.nd.array(b), *res, f)
    want = [np.minimum(a, b), np.maximum(a, b), np.abs(a - b), a * 6, (a << 2) ^ (b & 7), a >> 1]
    for r, w in zip(res, want):
        np.testing.assert_array_equal(r.numpy(), w)
    np.testing.assert_allclose(f.numpy(), a / 4.0)


def test_float_constants_exact_inf_nan():
    vals = [0.1, 1e-30, 3.4e38, float("inf"), float("-inf"), float("nan"), -0.0]
    for dtype in ("float32", "float64"):
        out = decl_buffer((len(vals),), dtype, "o")
        body = SeqStmt(tuple(BufferStore(out, tir.FloatImm(dtype, v), (c(k),))
                             for k, v in enumerate(vals)))
        mod = build_one(make_func([out], body))
        o = tvm.nd.empty((len(vals),), dtype)
        mod(o)
        np.testing.assert_array_equal(o.numpy(), np.array(vals, dtype))
        assert np.signbit(o.numpy()[-1])


def test_let_stmt_while_if_and_assert():
    n = 10
    A = decl_buffer((n,), "int32", "a")
    k = Var("k", I32)
    Kb = decl_buffer((1,), "int32", "kbuf", data=Var("kbuf", "handle"))
    i = Var("i", I32)
    # a[i] = number of halvings of (i + 100) until below 3
    inner = SeqStmt((
        BufferStore(Kb, k, (c(0),)),
        BufferStore(A, c(0), (i,)),
        tir.While(Kb[c(0)] >= 3, SeqStmt((
            BufferStore(Kb, tir.floordiv(Kb[c(0)], 2), (c(0),)),
            BufferStore(A, A[i] + 1, (i,))))),
        IfThenElse(A[i] > 5, BufferStore(A, A[i] * 10, (i,)), None),
    ))
    body = loop(i, n, LetStmt(k, i + 100, inner))
    body = Allocate(Kb.data, "int32", (c(1),), tir.const(True), body)
    mod = build_one(make_func([A], body))
    out = tvm.nd.empty((n,), "int32")
    mod(out)

    def halvings(v):
        cnt = 0
        while v >= 3:
            v //= 2
            cnt += 1
        return cnt * 10 if cnt > 5 else cnt
    np.testing.assert_array_equal(out.numpy(), [halvings(i + 100) for i in range(n)])


def test_assert_failure_returns_error_and_frees_workspace():
    n = Var("n", I32)
    A = decl_buffer((n,), "float32", "a")
    buf = Var("big", "handle")
    Big = decl_buffer((n,), "float32", "big", data=buf)
    i = Var("i", I32)
    body = Allocate(buf, "float32", (n,), tir.const(True), SeqStmt((
        loop(i, n, BufferStore(Big, A[i], (i,))),
        AssertStmt(n < 100, StringImm("n must be below 100"),
                   loop(i, n, BufferStore(A, Big[i] + 1.0, (i,)))))))
    mod = build_one(make_func([A], body))
    src = mod.get_source()
    fail_block = src[src.index('"%s", "n must be below 100"'):]
    assert fail_block.index("free(big)") < fail_block.index("return -1")
    a = tvm.nd.array(np.ones(10, "float32"))
    mod(a)
    np.testing.assert_array_equal(a.numpy(), 2)
    with pytest.raises(TVMError, match="n must be below 100"):
        mod(tvm.nd.empty((200,)))


def test_assert_inside_parallel_loop():
    n = 64
    A = decl_buffer((n,), "int32", "a")
    i = Var("i", I32)
    body = loop(i, n, AssertStmt(A[i] >= 0, StringImm("negative input"),
                                 BufferStore(A, A[i] * 2, (i,))), ForKind.PARALLEL)
    mod = build_one(make_func([A], body))
    a = tvm.nd.array(np.arange(n, dtype="int32"))
    mod(a)
    np.testing.assert_array_equal(a.numpy(), np.arange(n) * 2)
    bad = np.arange(n, dtype="int32")
    bad[17] = -1
    with pytest.raises(TVMError, match="negative input"):
        mod(tvm.nd.array(bad))


def test_call_extern_libm_and_pure_extern():
    n = 16
    A, B, C = (decl_buffer((n,), "float64", x) for x in "abc")
    i = Var("i", I32)
    body = loop(i, n, SeqStmt((
        BufferStore(B, tir.call_extern("float64", "hypot", A[i], tir.const(3.0, "float64")),
                    (i,)),
        BufferStore(C, tir.call_pure_extern("float64", "cbrt", A[i]), (i,)))))
    mod = build_one(make_func([A, B, C], body))
    a = rand(n, "float64")
    b, cc = tvm.nd.empty((n,), "float64"), tvm.nd.empty((n,), "float64")
    mod(tvm.nd.array(a), b, cc)
    np.testing.assert_allclose(b.numpy(), np.hypot(a, 3.0))
    np.testing.assert_allclose(cc.numpy(), np.cbrt(a))


def test_bool_buffers_and_comparisons():
    n = 30
    A = decl_buffer((n,), "float32", "a")
    M = decl_buffer((n,), "bool", "m")
    i = Var("i", I32)
    body = loop(i, n, BufferStore(M, tir.all(A[i] > 0.0, A[i] < 5.0), (i,)))
    mod = build_one(make_func([A, M], body))
    a = rand(n, "float32")
    m = tvm.nd.empty((n,), "bool")
    mod(tvm.nd.array(a), m)
    np.testing.assert_array_equal(m.numpy(), (a > 0) & (a < 5))


def test_multiple_functions_and_entry():
    f1, f2 = vadd(8, name="add_a"), vadd(8, name="add_b")
    mod = build(IRModule({"add_a": f1, "add_b": f2}), "llvm")
    assert set(mod.function_names) == {"add_a", "add_b"}
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    out = tvm.nd.empty((8,))
    mod["add_b"](a, a, out)
    np.testing.assert_array_equal(out.numpy(), np.arange(8) * 2)
    assert mod[mod.entry_name].name == "add_a"


def test_thread_binding_loop_raises():
    n = 8
    A = decl_buffer((n,), "float32", "a")
    tx = Var("threadIdx_x", I32)
    iv = tir.IterVar(None, tx, tir.IterVar.ThreadIndex, "threadIdx.x")
    body = For(tx, c(0), c(n), ForKind.THREAD_BINDING, BufferStore(A, A[tx] + 1.0, (tx,)), iv)
    with pytest.raises(TVMError, match="threadIdx_x"):
        build_one(make_func([A], body))


def test_unsupported_intrinsic_and_vector_raise_clearly():
    A = decl_buffer((4,), "float32", "a")
    i = Var("i", I32)
    bad = loop(i, 4, BufferStore(A, Call("float32", "no_such_op", (A[i],)), (i,)))
    with pytest.raises(TVMError, match="no_such_op"):
        build_one(make_func([A], bad))
    vec = BufferStore(A, tir.Broadcast(tir.const(1.0), 3), (tir.Ramp(c(0), c(1), 3),))
    with pytest.raises(TVMError, match="power of two"):
        build_one(make_func([A], vec))
    undefined = BufferStore(A, tir.const(1.0), (Var("ghost", I32),))
    with pytest.raises(TVMError, match="ghost"):
        build_one(make_func([A], undefined))


def test_workspace_inside_parallel_loop_is_per_iteration_heap():
    rows, cols = 16, 32
    A, B = decl_buffer((rows, cols), "float32", "A"), decl_buffer((rows, cols), "float32", "B")
    Af, Bf = flat(A), flat(B)
    buf = Var("row", "handle")
    R = decl_buffer((cols,), "float32", "row", data=buf)
    i, j, k = Var("i", I32), Var("j", I32), Var("k", I32)
    # reverse each row through a private workspace
    inner = Allocate(buf, "float32", (c(cols),), tir.const(True), SeqStmt((
        loop(j, cols, BufferStore(R, Af[i * cols + j], (j,))),
        loop(k, cols, BufferStore(Bf, tir.if_then_else(tir.likely(k < cols), R[cols - 1 - k],
                                                       tir.const(0.0)), (i * cols + k,))))))
    mod = build_one(make_func([A, B], loop(i, rows, inner, ForKind.PARALLEL)))
    src = mod.get_source()
    assert "tvml_alloc" in src and "__builtin_expect" in src
    a = rand((rows, cols), "float32")
    b = tvm.nd.empty((rows, cols))
    mod(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), a[:, ::-1])
