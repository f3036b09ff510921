"""ScheduleState._get_cached_flags (affine_binding, region_cover, stage_pipeline) and the
stage-pipeline condition of rfactor, with the factored program compared with numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import tir
from tvmlite.script import tir as T
from tvmlite.tir.schedule.state import CachedFlags


def _flags(func, name):
    s = tir.ScheduleState(func)
    found = []
    tvm.tir.stmt_functor.post_order_visit(
        s.mod["main"].body,
        lambda n: found.append(n) if isinstance(n, tir.Block) and n.name_hint == name else None)
    return s._get_cached_flags(s.get_sref(found[0]))


@T.prim_func
def concat(A: T.Buffer((13,), "float32"), B: T.Buffer((13,), "float32")):
    X = T.alloc_buffer((13,))
    for i in range(6):
        with T.block("X0"):
            vi = T.axis.S(6, i)
            X[vi] = A[vi] + T.float32(1)
    for i in range(7):
        with T.block("X1"):
            vi = T.axis.S(13, i + 6)
            X[vi] = A[vi] * T.float32(2)
    for i in range(13):
        with T.block("Y"):
            vi = T.axis.S(13, i)
            B[vi] = X[vi]


@T.prim_func
def concat_gap(A: T.Buffer((13,), "float32"), B: T.Buffer((13,), "float32")):
    X = T.alloc_buffer((13,))
    for i in range(5):
        with T.block("X0"):
            vi = T.axis.S(5, i)
            X[vi] = A[vi]
    for i in range(7):
        with T.block("X1"):
            vi = T.axis.S(13, i + 6)
            X[vi] = A[vi]
    for i in range(13):
        with T.block("Y"):
            vi = T.axis.S(13, i)
            B[vi] = X[vi]


@T.prim_func
def write_after_read(A: T.Buffer((9,), "float32"), B: T.Buffer((9,), "float32"),
                     C: T.Buffer((9,), "float32")):
    for i in range(9):
        with T.block("C"):
            vi = T.axis.S(9, i)
            C[vi] = B[vi]
    for i in range(9):
        with T.block("B"):
            vi = T.axis.S(9, i)
            B[vi] = A[vi]


@T.prim_func
def padded_tiles(X: T.Buffer((30,), "float32"), Y: T.Buffer((30,), "float32")):
    # each tile caches its 3-point halo, clipped to the buffer by the predicate
    cache = T.alloc_buffer((30,))
    for t in range(6):
        for a in range(7):
            with T.block("cache"):
                h = T.axis.S(30, t * 5 - 1 + a)
                T.where(1 <= t * 5 + a and t * 5 + a < 31)
                cache[h] = X[h]
        for b, k in T.grid(5, 3):
            with T.block("compute"):
                h = T.axis.S(30, t * 5 + b)
                vk = T.axis.R(3, k)
                with T.init():
                    Y[h] = T.float32(0)
                Y[h] = Y[h] + T.if_then_else(1 <= h + vk and h + vk < 31,
                                             cache[h + vk - 1], T.float32(0))


def _shared_transposed(scope):
    @T.prim_func
    def f(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.alloc_buffer((16, 16), scope=scope)
        for i in T.thread_binding(16, thread="threadIdx.x"):
            for j in range(16):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj]
            for j in range(16):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vj, vi] = B[vj, vi]
    return f


def test_flags_of_covered_and_uncovered_concatenation():
    assert _flags(concat, "Y") == CachedFlags(True, True, True)
    assert _flags(concat, "root") == CachedFlags(True, True, True)
    assert _flags(concat_gap, "Y") == CachedFlags(True, False, True)  # X[5] is never written
    assert _flags(concat_gap, "root").stage_pipeline is False


def test_write_after_read_is_not_a_stage_pipeline():
    assert _flags(write_after_read, "root") == CachedFlags(True, True, False)
    assert _flags(write_after_read, "B") == CachedFlags(True, True, True)


def test_predicate_clips_the_produced_region_to_the_buffer():
    assert _flags(padded_tiles, "compute") == CachedFlags(True, True, True)
    assert _flags(padded_tiles, "root").stage_pipeline


def test_thread_loops_are_relaxed_for_shared_memory_only():
    # each thread writes a row of B and reads a column: only shared memory is seen whole
    assert _flags(_shared_transposed("shared"), "C").region_cover
    assert not _flags(_shared_transposed("local"), "C").region_cover


@T.prim_func
def rowsum_partial(A: T.Buffer((7, 12), "float32"), D: T.Buffer((7,), "float32")):
    P = T.alloc_buffer((7, 12))
    S = T.alloc_buffer((7,))
    for i, k in T.grid(7, 11):  # column 11 of P is never produced
        with T.block("P"):
            vi, vk = T.axis.remap("SS", [i, k])
            P[vi, vk] = A[vi, vk] * T.float32(2)
    for i, k in T.grid(7, 12):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + P[vi, vk]
    for i in range(7):
        with T.block("D"):
            vi = T.axis.S(7, i)
            D[vi] = S[vi]


def test_rfactor_needs_a_stage_pipeline():
    s = tir.Schedule(rowsum_partial)
    _, k = s.get_loops(s.get_block("S"))
    with pytest.raises(tir.ScheduleError, match="not a stage pipeline"):
        s.rfactor(k, 0)
    assert s.mod["main"].same_as(rowsum_partial)  # nothing changed


@T.prim_func
def rowsum_full(A: T.Buffer((7, 13), "float32"), D: T.Buffer((7,), "float32")):
    P = T.alloc_buffer((7, 13))
    S = T.alloc_buffer((7,))
    for i, k in T.grid(7, 13):
        with T.block("P"):
            vi, vk = T.axis.remap("SS", [i, k])
            P[vi, vk] = A[vi, vk] * T.float32(2)
    for i, k in T.grid(7, 13):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + P[vi, vk]
    for i in range(7):
        with T.block("D"):
            vi = T.axis.S(7, i)
            D[vi] = S[vi] + T.float32(1)


def test_rfactor_of_a_stage_pipeline_with_a_non_divisible_split():
    s = tir.Schedule(rowsum_full)
    _, k = s.get_loops(s.get_block("S"))
    _, k1 = s.split(k, [None, 4])
    s.rfactor(k1, 0)
    a = np.random.default_rng(5).standard_normal((7, 13)).astype("float32")
    d = tvm.nd.empty((7,), "float32")
    tvm.build(s.mod["main"])(tvm.nd.array(a), d)
    np.testing.assert_allclose(d.numpy(), (a * 2).sum(1) + 1, rtol=1e-5)
