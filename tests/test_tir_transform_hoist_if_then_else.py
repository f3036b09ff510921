"""HoistIfThenElse: loop-invariant guards move above the loops they guard (expected IR in
TVMScript), what must stay stays, and built results match numpy."""
import numpy as np

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T
from tvmlite.tir.transform import hoist_if_then_else


def _check(before, expected):
    got = before.with_body(hoist_if_then_else(before.body))
    tvm.ir.assert_structural_equal(got.with_attr("global_symbol", "expected"),
                                   expected.with_attr("global_symbol", "expected"))


def test_guard_moves_above_the_loops_it_does_not_use():
    @T.prim_func
    def before(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        for xo, xi, y in T.grid(4, 5, 16):
            if T.likely(xo * 5 + xi < 16):
                B[xo * 80 + xi * 16 + y] = A[xo * 80 + xi * 16 + y]

    @T.prim_func
    def expected(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        for xo, xi in T.grid(4, 5):
            if T.likely(xo * 5 + xi < 16):
                for y in range(16):
                    B[xo * 80 + xi * 16 + y] = A[xo * 80 + xi * 16 + y]

    _check(before, expected)


def test_else_branch_gets_its_own_loops():
    @T.prim_func
    def before(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), n: T.int32):
        for i, j in T.grid(8, 8):
            if n > 3:
                B[i, j] = A[i, j]
            else:
                B[i, j] = A[i, j] * T.float32(2)

    @T.prim_func
    def expected(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), n: T.int32):
        if n > 3:
            for i, j in T.grid(8, 8):
                B[i, j] = A[i, j]
        else:
            for i, j in T.grid(8, 8):
                B[i, j] = A[i, j] * T.float32(2)

    _check(before, expected)


def test_loads_divisions_sequences_and_thread_bindings_keep_the_guard_in_place():
    @T.prim_func
    def loads(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"),
              F: T.Buffer((1,), "int32")):
        for i in range(8):   # F may be written by the loop (a load is not hoisted)
            if F[0] > 0:
                B[i] = A[i]

    @T.prim_func
    def divides(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), n: T.int32,
                m: T.int32):
        for i in range(m):   # m may be 0: n // 0 must not run before the loop
            if 8 // n > 1:
                B[i] = A[i]

    @T.prim_func
    def sequence(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), n: T.int32):
        for i in range(8):
            B[i] = T.float32(0)
            if n > 3:
                B[i] = A[i]

    @T.prim_func
    def threads(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), n: T.int32):
        for i in T.thread_binding(8, thread="threadIdx.x"):
            if n > 3:
                B[i] = A[i]

    for f in (loads, divides, sequence, threads):
        _check(f, f)


def test_split_uneven_lowers_to_one_guard_per_row_and_computes_like_numpy():
    a = te.placeholder((16, 16), name="a")
    b = te.placeholder((16, 16), name="b")
    c = te.compute((16, 16), lambda x, y: a[x, y] + b[x, y], name="c")
    s = te.create_schedule(c.op)
    s[c].split(c.op.axis[0], 5)
    body = tvm.lower(s, [a, b, c])["main"].body
    assert isinstance(body.body.body, tvm.tir.IfThenElse)   # above the y loop
    assert isinstance(body.body.body.then_case, tvm.tir.For)
    f = tvm.build(s, [a, b, c], "llvm")
    an, bn = (np.random.rand(16, 16).astype("float32") for _ in range(2))
    cn = tvm.nd.empty((16, 16))
    f(tvm.nd.array(an), tvm.nd.array(bn), cn)
    np.testing.assert_allclose(cn.numpy(), an + bn, rtol=1e-6)


def test_hoisted_branches_compute_like_numpy():
    @T.prim_func
    def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), n: T.int32):
        for i, j in T.grid(8, 8):
            if n > 3:
                B[i, j] = A[i, j] + T.float32(1)
            else:
                B[i, j] = A[i, j] * T.float32(2)

    lowered = tvm.lower(f)["f"].body
    assert isinstance(lowered, tvm.tir.IfThenElse)
    m = tvm.build(f, target="llvm")
    a = np.random.rand(8, 8).astype("float32")
    for n, want in ((5, a + 1), (2, a * 2)):
        out = tvm.nd.empty((8, 8))
        m(tvm.nd.array(a), out, n)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
