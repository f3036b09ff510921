"""UnrollLoop: unroll loops, auto_unroll_max_step / unroll_explicit pragmas; results vs numpy."""
import numpy as np

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T
from tvmlite.tir.transform import unroll_loop


def _check(before, expected):
    got = before.with_body(unroll_loop(before.body, auto_max_step=0, explicit_unroll=True))
    tvm.ir.assert_structural_equal(got.with_attr("global_symbol", "expected"),
                                   expected.with_attr("global_symbol", "expected"))


def test_auto_unroll_max_step_unrolls_small_nests():
    @T.prim_func
    def before(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in T.serial(2, annotations={"pragma_auto_unroll_max_step": 16}):
            for j in range(2):
                B[i * 2 + j] = A[i * 2 + j] + T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        B[0] = A[0] + T.float32(1)
        B[1] = A[1] + T.float32(1)
        B[2] = A[2] + T.float32(1)
        B[3] = A[3] + T.float32(1)

    _check(before, expected)


def test_auto_unroll_respects_the_step_limit_and_explicit_flag():
    @T.prim_func
    def before(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in T.serial(16, annotations={"pragma_auto_unroll_max_step": 8,
                                           "pragma_unroll_explicit": 0}):
            for j in range(4):
                B[i * 4 + j] = A[i * 4 + j]

    @T.prim_func
    def expected(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(16):
            for j in T.unroll(4):
                B[i * 4 + j] = A[i * 4 + j]

    _check(before, expected)


def test_unroll_loop_is_copied():
    @T.prim_func
    def before(B: T.Buffer((3,), "float32")):
        for j in T.unroll(3):
            B[j] = T.float32(0)

    @T.prim_func
    def expected(B: T.Buffer((3,), "float32")):
        B[0] = T.float32(0)
        B[1] = T.float32(0)
        B[2] = T.float32(0)

    _check(before, expected)


def test_unroll_counts_a_vectorized_loop_once():
    # the vector loop becomes one vector statement: an unrolled 4 x 4 nest over 16 lanes is
    # 16 statements (not 256), within the explicit limit, and is copied in the IR
    @T.prim_func
    def before(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        for i in T.unroll(4):
            for j in T.unroll(4):
                for k in T.vectorized(16):
                    B[i * 64 + j * 16 + k] = A[i * 64 + j * 16 + k]

    got = unroll_loop(before.body, auto_max_step=0, explicit_unroll=True)
    loops = []
    tvm.tir.stmt_functor.post_order_visit(
        got, lambda n: loops.append(n.kind) if isinstance(n, tvm.tir.For) else None)
    assert loops == [tvm.tir.ForKind.VECTORIZED] * 16
    a = te.placeholder((256,), name="A")
    b = te.compute((256,), lambda i: a[i] * 2.0, name="B")
    s = te.create_schedule(b.op)
    io, ii = s[b].split(b.op.axis[0], factor=64)
    jo, ji = s[b].split(ii, factor=16)
    s[b].unroll(io)
    s[b].unroll(jo)
    s[b].vectorize(ji)
    f = tvm.build(s, [a, b])
    x = np.random.randn(256).astype("float32")
    y = tvm.nd.empty((256,))
    f(tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), x * 2)
    assert "pragma GCC unroll" not in f.get_source()


def test_te_pragma_reaches_the_ir_and_builds():
    n = 37
    A = te.placeholder((n, 6), name="A")
    k = te.reduce_axis((0, 6), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="B")
    s = te.create_schedule(B.op)
    o, i = s[B].split(B.op.axis[0], factor=4)
    s[B].pragma(o, "auto_unroll_max_step", 16)
    s[B].pragma(o, "unroll_explicit", True)
    from tvmlite.te.schedule import schedule_to_prim_func

    text = schedule_to_prim_func(s, [A, B]).script()
    assert '"pragma_auto_unroll_max_step": 16' in text
    assert "pragma_auto_unroll_max_step" not in tvm.lower(s, [A, B]).script()
    f = tvm.build(s, [A, B])
    assert "pragma_auto_unroll_max_step" not in f.get_source()
    a = np.random.rand(n, 6).astype("float32")
    b = tvm.nd.array(np.zeros(n, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), (a * 2).sum(1), rtol=1e-5)
