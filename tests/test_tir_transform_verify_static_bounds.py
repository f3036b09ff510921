"""tir.VerifyStaticBounds: provable out-of-bounds accesses, division by zero and loop ranges
beyond their dtype are TVMErrors at build; guarded accesses are never flagged."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.script import from_source
from tvmlite.tir.transform import StaticCheckError


def _build_err(sch_or_func, args=None):
    with pytest.raises(tvm.TVMError) as info:
        tvm.build(sch_or_func, args)
    assert isinstance(info.value, StaticCheckError)
    return str(info.value)


def test_te_read_past_the_end_names_buffer_index_and_loop():
    A = te.placeholder((10,), name="A")
    B = te.compute((12,), lambda i: A[i] * 2.0, name="B")
    msg = _build_err(te.create_schedule(B.op), [A, B])
    assert "A[i]" in msg and "index 11" in msg and "extent 10" in msg and "i in [0, 12)" in msg


def test_tvmscript_loop_range_beyond_the_shape_is_refused():
    f = from_source('''
@T.prim_func
def f(A: T.Buffer((4, 5), "float32"), B: T.Buffer((4, 5), "float32")):
    for i, j in T.grid(4, 6):
        B[i, j] = A[i, j]
''')
    msg = _build_err(f)
    assert "dimension 1" in msg and "j = 5" in msg


def test_negative_index_is_refused():
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[i - 1], name="B")
    assert "index -1" in _build_err(te.create_schedule(B.op), [A, B])


def test_integer_division_and_modulo_by_a_provably_zero_divisor():
    A = te.placeholder((10,), "int32", name="A")
    for fn, what in ((lambda i: A[i] // (i - i), "division"),
                     (lambda i: A[i] % (i - i), "modulo"),
                     (lambda i: tir.truncdiv(A[i], i - i), "division")):
        B = te.compute((10,), fn, name="B")
        msg = _build_err(te.create_schedule(B.op), [A, B])
        assert f"{what} by zero" in msg
    with pytest.raises(ZeroDivisionError):  # a constant zero is refused at construction
        te.compute((10,), lambda i: A[i] % (i * 0))


def test_float_division_by_zero_is_allowed():
    A = te.placeholder((7,), name="A")
    B = te.compute((7,), lambda i: A[i] / (A[i] - A[i]), name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    b = tvm.nd.empty((7,))
    with np.errstate(all="ignore"):
        f(tvm.nd.array(np.ones(7, "float32")), b)
    assert np.isinf(b.numpy()).all()


def test_loop_range_beyond_its_int32_variable():
    i = tir.Var("i", "int32")
    buf = tir.decl_buffer((10,), "float32", name="A")
    body = tir.For(i, tir.const(0, "int32"), tir.const(2**31 + 5, "int64"),
                   tir.ForKind.SERIAL,
                   tir.IfThenElse(i < 10, tir.BufferStore(buf, tir.const(1.0, "float32"), (i,))))
    func = tir.PrimFunc([buf], body)
    with pytest.raises(tvm.TVMError, match="cannot be counted in its dtype int32"):
        tvm.build(func)


def test_tvmscript_loop_beyond_int32_is_promoted_and_runs():
    f = from_source('''
@T.prim_func
def f(A: T.Buffer((10,), "float32")):
    for i in T.serial(2**31 - 5, 2**31 + 5):
        A[i - (2**31 - 5)] = T.float32(1)
''')
    m = tvm.build(f)
    a = tvm.nd.array(np.zeros(10, "float32"))
    m(a)
    np.testing.assert_equal(a.numpy(), np.ones(10, "float32"))


# ---------------------------------------------------------------- no false positives
def test_guarded_padding_is_not_flagged():
    A = te.placeholder((6,), name="A")
    B = te.compute((8,), lambda i: te.if_then_else(te.all(i >= 1, i < 7), A[i - 1], 0.0),
                   name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    a, b = np.random.rand(6).astype("float32"), tvm.nd.empty((8,))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.pad(a, 1))


def test_non_divisible_split_predicate_is_not_flagged():
    A = te.placeholder((11,), name="A")
    B = te.compute((11,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=4)
    s[B].vectorize(xi)
    f = tvm.build(s, [A, B])
    a, b = np.random.rand(11).astype("float32"), tvm.nd.empty((11,))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1)


def test_block_predicate_and_likely_are_not_flagged():
    f = from_source('''
@T.prim_func
def f(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for i, j in T.grid(3, 4):
        with T.block("B"):
            vi = T.axis.spatial(10, i * 4 + j)
            T.where(i * 4 + j < 10)
            B[vi] = A[vi] * T.float32(3)
    for k in range(12):
        if T.likely(k < 10):
            B[k] = B[k] + T.float32(1)
''')
    m = tvm.build(f)
    a, b = np.random.rand(10).astype("float32"), tvm.nd.empty((10,))
    m(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 3 + 1, rtol=1e-6)


def test_symbolic_and_data_dependent_indices_are_left_to_run_time():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    I = te.placeholder((4,), "int32", name="I")
    B = te.compute((n + 2,), lambda i: A[i], name="B")
    C = te.compute((4,), lambda i: A[I[i]], name="C")
    tvm.build(te.create_schedule(B.op), [A, B])
    tvm.build(te.create_schedule(C.op), [A, I, C])


def test_instrument_bound_checkers_keeps_the_run_time_check():
    A = te.placeholder((16,), name="A")
    B = te.compute((18,), lambda i: A[i] * 2, name="B")
    with tvm.transform.PassContext(config={"tir.instrument_bound_checkers": True}):
        f = tvm.build(te.create_schedule(B.op), [A, B])
    with pytest.raises(tvm.TVMError, match="Out-of-bounds"):
        f(tvm.nd.array(np.ones(16, "float32")), tvm.nd.empty((18,), "float32"))


def test_int32_index_overflow_under_a_guard_is_refused():
    f = from_source('''
@T.prim_func
def f(A: T.Buffer((10,), "float32")):
    for i, j in T.grid(65536, 65536):
        if i * 65536 + j < 10:
            A[i * 65536 + j] = T.float32(1)
''')
    msg = _build_err(f)
    assert "overflows int32" in msg and "A[i * 65536 + j]" in msg


# ---------------------------------------------------------------- inner points, lowered loops
def test_access_out_of_bounds_only_inside_the_loop_ranges_is_refused():
    # the guard lets through i = 2 and 3 only; no corner of (i, j) is a witness
    f = from_source('''
@T.prim_func
def f(A: T.Buffer((6,), "float32"), B: T.Buffer((6, 3), "float32")):
    for i, j in T.grid(6, 3):
        if 2 <= i and i < 4:
            B[i, j] = A[i * 2 + j]
''')
    msg = _build_err(f)
    assert "A[i * 2 + j] reads index 6" in msg and "extent 6" in msg and "i = 2, j = 2" in msg


def test_a_loop_that_does_not_run_is_no_witness():
    # the copy loop runs only for j = 0: its index is outside A elsewhere, where it does not run
    f = from_source('''
@T.prim_func
def f(A: T.Buffer((1,), "float32"), B: T.Buffer((5,), "float32")):
    for j in range(5):
        for k in range(1 - j):
            B[j + k] = A[j + k]
        for k in range(T.max(1 - j, 0), 1):
            B[j + k] = T.float32(-1)
''')
    m = tvm.build(f)
    b = tvm.nd.array(np.full(5, np.nan, "float32"))
    m(tvm.nd.array(np.array([7.0], "float32")), b)
    np.testing.assert_array_equal(b.numpy(), [7, -1, -1, -1, -1])


def test_lowered_loops_are_checked_again():
    """An access a lowering pass puts out of bounds (as Simplify and LoopPartition did for fuzz
    seed 11 case 3193, dropping a guard) is a build error, never a write past the buffer."""
    def drop_guards(func, mod, ctx):
        body = tvm.tir.stmt_functor.ir_transform(
            func.body, None, lambda s: s.then_case if isinstance(s, tvm.tir.IfThenElse)
            else None, ["tir.IfThenElse"])
        return func.with_body(body)

    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4)
    bad = tvm.tir.transform.prim_func_pass(drop_guards, opt_level=0, name="drop_guards")
    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(2, bad)]}):
        msg = _build_err(s, [A, B])
    assert "lowered loops" in msg and "tvmlite bug" in msg and "extent 10" in msg
