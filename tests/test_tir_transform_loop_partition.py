"""LoopPartition: expected IR (TVMScript) and partitioned builds against numpy."""
import numpy as np
import pytest
from programs import conv1d_v4

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T
from tvmlite.tir.transform import loop_partition


def _check(before, expected):
    got = before.with_body(loop_partition(before.body))
    tvm.ir.assert_structural_equal(got.with_attr("global_symbol", "expected"),
                                   expected.with_attr("global_symbol", "expected"))


def test_split_tail_is_peeled():
    @T.prim_func
    def before(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
        for i in range(3):
            for j in range(4):
                if T.likely(i * 4 + j < 10):
                    B[i * 4 + j] = A[i * 4 + j]

    @T.prim_func
    def expected(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
        for i, j in T.grid(2, 4):
            B[i * 4 + j] = A[i * 4 + j]
        for j in range(2):
            B[j + 8] = A[j + 8]

    _check(before, expected)


def test_parallel_loop_stays_one_loop_and_dispatches():
    @T.prim_func
    def before(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
        for i in T.parallel(3):
            for j in range(4):
                if T.likely(i * 4 + j < 10):
                    B[i * 4 + j] = A[i * 4 + j]

    @T.prim_func
    def expected(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
        for i in T.parallel(3):
            if i < 2:
                for j in range(4):
                    B[i * 4 + j] = A[i * 4 + j]
            else:
                for j in range(2):
                    B[j + 8] = A[j + 8]

    _check(before, expected)


def test_if_then_else_condition_partitions_the_loop():
    @T.prim_func
    def before(A: T.Buffer((10,), "float32"), B: T.Buffer((14,), "float32")):
        for i in range(14):
            B[i] = T.if_then_else(2 <= i and i < 12, A[i - 2], T.float32(0))

    @T.prim_func
    def expected(A: T.Buffer((10,), "float32"), B: T.Buffer((14,), "float32")):
        for i in range(2):
            B[i] = T.float32(0)
        for i in range(2, 12):
            B[i] = A[i - 2]
        for i in range(12, 14):
            B[i] = T.float32(0)

    _check(before, expected)


def test_condition_never_provable_leaves_the_loop_alone():
    @T.prim_func
    def before(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            if i % 2 == 0:
                B[i] = A[i]

    got = loop_partition(before.body)
    assert got is before.body


def test_seed_v4_main_body_is_guard_free():
    """Most n_outer iterations of seed 000's v4 run without guard or if_then_else."""
    s, (A, W, B) = conv1d_v4(4096, 128, 8)
    with tvm.transform.PassContext(config={"tir.LoopPartition": {"partition_const_loop": True},
                                           "tir.disable_vectorize": True}):
        text = tvm.lower(s, [A, W, B]).script()
    assert "if n_outer < 512:" in text.replace("elif", "if")
    main = text.split("n_outer < 512:")[1].split("else:")[0]
    assert "likely" not in main and "if_then_else" not in main
    # plain tvm.lower keeps the classic form (the seed prints the guard)
    assert "T.likely" in tvm.lower(s, [A, W, B]).script()


@pytest.mark.parametrize("n,factor", [(10, 4), (33, 8), (7, 16), (64, 8)])
def test_partitioned_builds_match_numpy(n, factor):
    A = te.placeholder((n,), name="A")
    C = te.compute((n + 4,), lambda i: tvm.tir.if_then_else(
        tvm.tir.all(i >= 2, i < n + 2), A[i - 2] * 2.0, tvm.tir.const(-1.0, "float32")),
        name="C")
    s = te.create_schedule(C.op)
    o, i = s[C].split(C.op.axis[0], factor=factor)
    s[C].parallel(o)
    f = tvm.build(s, [A, C])
    a = np.random.rand(n).astype("float32")
    c = tvm.nd.array(np.zeros(n + 4, "float32"))
    f(tvm.nd.array(a), c)
    want = np.concatenate([[-1, -1], a * 2, [-1, -1]]).astype("float32")
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-6)


@T.prim_func
def _tail_37_by_8_parallel(A: T.Buffer((37,), "float32"), C: T.Buffer((37,), "float32")):
    T.func_attr({"from_legacy_te_schedule": T.bool(True), "tir.noalias": T.bool(True)})
    for i_outer in T.parallel(5):
        if i_outer < 4:
            C[i_outer * 8:i_outer * 8 + 8] = A[i_outer * 8:i_outer * 8 + 8] \
                * T.Broadcast(T.float32(2), 8)
        else:
            C[32:36] = A[32:36] * T.Broadcast(T.float32(2), 4)
            C[36] = A[36] * T.float32(2)


@T.prim_func
def _tail_17_by_8(A: T.Buffer((17,), "float32"), C: T.Buffer((17,), "float32")):
    T.func_attr({"from_legacy_te_schedule": T.bool(True), "tir.noalias": T.bool(True)})
    for i_outer in range(2):
        C[i_outer * 8:i_outer * 8 + 8] = A[i_outer * 8:i_outer * 8 + 8] \
            * T.Broadcast(T.float32(2), 8)
    C[16] = A[16] * T.float32(2)


@T.prim_func
def _tail_125_by_41(A: T.Buffer((125,), "float32"), C: T.Buffer((125,), "float32")):
    T.func_attr({"from_legacy_te_schedule": T.bool(True), "tir.noalias": T.bool(True)})
    for i_outer in range(3):
        C[i_outer * 41:i_outer * 41 + 16] = A[i_outer * 41:i_outer * 41 + 16] \
            * T.Broadcast(T.float32(2), 16)
        C[i_outer * 41 + 16:i_outer * 41 + 16 + 16] = A[i_outer * 41 + 16:i_outer * 41 + 16 + 16] \
            * T.Broadcast(T.float32(2), 16)
        C[i_outer * 41 + 32:i_outer * 41 + 32 + 8] = A[i_outer * 41 + 32:i_outer * 41 + 32 + 8] \
            * T.Broadcast(T.float32(2), 8)
        C[i_outer * 41 + 40] = A[i_outer * 41 + 40] * T.float32(2)
    C[123:125] = A[123:125] * T.Broadcast(T.float32(2), 2)


@pytest.mark.parametrize("n,factor,parallel,expected", [
    (37, 8, True, _tail_37_by_8_parallel), (17, 8, False, _tail_17_by_8),
    (125, 41, False, _tail_125_by_41)])
def test_vectorized_split_tail_is_peeled_into_guard_free_vector_code(n, factor, parallel,
                                                                     expected):
    """The vector body has no guard, and the tail of a non-divisible split, however short,
    is peeled into its own (narrower) guard-free vector code, not a guarded serial loop."""
    A = te.placeholder((n,), name="A")
    C = te.compute((n,), lambda i: A[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    o, i = s[C].split(C.op.axis[0], factor=factor)
    if parallel:
        s[C].parallel(o)
    s[C].vectorize(i)
    with tvm.transform.PassContext(config={"tir.LoopPartition": {"partition_const_loop": True}}):
        got = tvm.lower(s, [A, C])["main"]
    tvm.ir.assert_structural_equal(got.with_attr("global_symbol", "main"),
                                   expected.with_attr("global_symbol", "main"))
    f = tvm.build(s, [A, C])
    a = np.random.default_rng(n).random(n, dtype="float32")
    c = tvm.nd.array(np.zeros(n, "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2, rtol=1e-6)
