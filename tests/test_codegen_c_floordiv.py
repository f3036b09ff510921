"""Integer floor division in the generated C: plain ``/`` and ``%`` where the enclosing loops'
ranges keep the dividend non-negative (cheaper for GCC), the floor helpers elsewhere; both
compared with numpy at odd sizes and with negative dividends."""

import re

import numpy as np

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.codegen.build_c import build
from tvmlite.ir import IRModule


def _build(n, shift, divisor, parallel):
    A = te.placeholder((n,), name="A", dtype="int32")
    B = te.compute((n,), lambda i: (A[i] + i - shift) // divisor * 7 + (A[i] - i) % divisor,
                   name="B")
    C = te.compute((n,), lambda i: A[i // divisor] + i % divisor, name="C")
    s = te.create_schedule([B.op, C.op])
    if parallel:
        s[B].parallel(B.op.axis[0])
        s[C].parallel(C.op.axis[0])
    return tvm.build(s, [A, B, C], target="llvm")


def _want(a, n, shift, divisor):
    i = np.arange(n, dtype=np.int64)
    b = (a + i - shift) // divisor * 7 + (a - i) % divisor
    c = a[i // divisor] + i % divisor
    return b.astype("int32"), c.astype("int32")


def test_floordiv_truncates_only_when_provably_nonnegative():
    rng = np.random.default_rng(3)
    for n, shift, divisor, parallel in ((37, 11, 5, False), (53, 20, 3, True)):
        f = _build(n, shift, divisor, parallel)
        a = rng.integers(-40, 40, n).astype("int32")
        outs = [tvm.nd.array(np.zeros(n, "int32")) for _ in range(2)]
        f(tvm.nd.array(a), *outs)
        for got, want in zip(outs, _want(a, n, shift, divisor)):
            np.testing.assert_array_equal(got.numpy(), want)
        src = f.get_source()
        # i // d and i % d over i >= 0 print as C operators; A[i] + i - shift and A[i] - i
        # may be negative and keep the floor helpers
        assert re.search(rf"\bi_?\d* / {divisor}\b", src)
        assert re.search(rf"\bi_?\d* % {divisor}\b", src)
        assert "tvml_floordiv_int32(" in src and "tvml_floormod_int32(" in src


def test_one_loop_variable_on_two_loops_keeps_each_loops_range():
    # loop partition leaves one Var on several loops; the same expression object under a
    # loop of [1, 8) (non-negative: plain C) and under one of [0, 1) (negative: floor helper)
    n = 8
    A = tir.decl_buffer((n,), "int32", "A")
    B = tir.decl_buffer((n,), "int32", "B")
    j = tir.Var("j", "int32")
    store = tir.BufferStore(B, tir.floordiv(j - 1, 4) * 10 + tir.floormod(j - 1, 4) + A[j],
                            (j,))
    body = tir.SeqStmt([
        tir.For(j, tir.const(1), tir.const(n - 1), tir.ForKind.SERIAL, store),
        tir.For(j, tir.const(0), tir.const(1), tir.ForKind.SERIAL, store),
    ])
    params = [tir.Var("A", "handle"), tir.Var("B", "handle")]
    f = tir.PrimFunc(tuple(params), body, buffer_map=dict(zip(params, [A, B])),
                     attrs={"global_symbol": "two_loops", "tir.noalias": True})
    mod = build(IRModule({"two_loops": f}), "llvm")
    a = np.arange(n, dtype="int32") * 3 - 5
    b = tvm.nd.array(np.zeros(n, "int32"))
    mod(tvm.nd.array(a), b)
    i = np.arange(n)
    np.testing.assert_array_equal(b.numpy(), ((i - 1) // 4 * 10 + (i - 1) % 4 + a)
                                  .astype("int32"))
