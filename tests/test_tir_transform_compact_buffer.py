"""Buffer placement and compaction: caches shrink to their tile, but an allocation never moves
inside a loop that carries values between its iterations (a reduction, a scan, a consumer
reading what earlier iterations produced, a write skipped by a guard on that loop)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import from_source
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule
from tvmlite.tir.schedule.error import ScheduleError


@T.prim_func
def fused_reduction(A: T.Buffer((8, 3), "float32"), B: T.Buffer((3, 5), "float32"),
                    D: T.Buffer((8, 5), "float32")):
    C = T.alloc_buffer((8, 5))
    for i in T.parallel(8):
        for j_k_fused in range(15):
            with T.block("C"):
                v_i = T.axis.spatial(8, i)
                v_j = T.axis.spatial(5, j_k_fused // 3)
                v_k = T.axis.reduce(3, j_k_fused % 3)
                with T.init():
                    C[v_i, v_j] = T.float32(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
            with T.block("D"):
                v_i = T.axis.spatial(8, i)
                v_j = T.axis.spatial(5, j_k_fused // 3)
                D[v_i, v_j] = C[v_i, v_j] + T.float32(1)


@T.prim_func
def scan(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    S = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("S"):
            vi = T.axis.spatial(16, i)
            S[vi] = T.if_then_else(vi > 0, S[vi - 1], T.float32(0)) + A[vi]
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = S[vi]


def test_reduction_carried_by_a_fused_loop_keeps_its_buffer_outside_it():
    text = str(tvm.lower(fused_reduction))
    # never per iteration of the fused j/k loop, which carries the sums
    assert text.index("T.allocate") < text.index("for j_k_fused")
    a = np.random.rand(8, 3).astype("float32")
    b = np.random.rand(3, 5).astype("float32")
    d = tvm.nd.empty((8, 5), "float32")
    tvm.build(fused_reduction)(tvm.nd.array(a), tvm.nd.array(b), d)
    np.testing.assert_allclose(d.numpy(), a @ b + 1, rtol=1e-5)


def test_scan_buffer_stays_outside_the_loop():
    text = str(tvm.lower(scan))
    assert text.index("T.allocate([16]") < text.index("for i")
    a = np.random.rand(16).astype("float32")
    b = tvm.nd.empty((16,), "float32")
    tvm.build(scan)(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.cumsum(a), rtol=1e-5)


def test_per_tile_cache_is_shrunk_inside_the_tile_loop():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import book_ch4

    s, args = book_ch4.mm_cached_block(64)
    text = str(tvm.lower(s, list(args)))
    assert text.index("x_outer_y_outer_fused in T.parallel") < text.index(
        'C_local = T.allocate([1024], "float32", "local")')


@T.prim_func
def guarded_producer(A: T.Buffer((3, 8), "float32"), D: T.Buffer((3,), "float32")):
    C = T.alloc_buffer((3,))
    for i, j in T.grid(3, 5):
        with T.block("C"):
            vi = T.axis.spatial(3, i)
            T.where(j < 1)
            C[vi] = A[vi, 0] * T.float32(2)
        with T.block("D"):
            vi = T.axis.spatial(3, i)
            D[vi] = C[vi] + T.float32(1)


def test_write_skipped_by_a_guard_keeps_the_buffer_outside_the_loop():
    text = str(tvm.lower(guarded_producer))
    assert text.index("T.allocate([3]") < text.index("T.grid(3, 5)")
    a = np.random.rand(3, 8).astype("float32")
    d = tvm.nd.empty((3,), "float32")
    tvm.build(guarded_producer)(tvm.nd.array(a), d)
    np.testing.assert_allclose(d.numpy(), a[:, 0] * 2 + 1, rtol=1e-6)


@T.prim_func
def consumer_reads_earlier_iterations(A: T.Buffer((9,), "float32"), C: T.Buffer((8,), "float32")):
    P = T.alloc_buffer((9,))
    for i in range(9):
        with T.block("P"):
            vi = T.axis.spatial(9, i)
            P[vi] = A[vi] + T.float32(0.5)
        for ax0 in range(8):
            with T.block("C"):
                vi = T.axis.spatial(8, ax0)
                C[vi] = P[vi] + P[vi + 1]


def test_consumer_reading_other_iterations_keeps_the_buffer_outside_the_loop():
    text = str(tvm.lower(consumer_reads_earlier_iterations))
    assert text.index("T.allocate([9]") < text.index("for i")
    a = np.random.rand(9).astype("float32")
    c = tvm.nd.empty((8,), "float32")
    tvm.build(consumer_reads_earlier_iterations)(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), (a[:-1] + 0.5) + (a[1:] + 0.5), rtol=1e-6)


def _after_an_empty_loop(n: int, c: int) -> str:
    # X lives in a loop that runs only for j < c; Y carries values from iteration c to the
    # later ones (Y[min(j, c)] was written at iteration c)
    return f'''
@T.prim_func
def f(A: T.Buffer(({n},), "float32"), B: T.Buffer(({c},), "float32"),
      C: T.Buffer(({n},), "float32")):
    Y = T.alloc_buffer(({n},))
    X = T.alloc_buffer((1,))
    for j in range({n}):
        for k in range({c} - j):
            X[0] = A[k] + T.float32(1)
            B[k] = X[0]
        Y[j] = A[j] * T.float32(2)
        C[j] = Y[T.min(j, {c})]
'''


@pytest.mark.parametrize("n, c", [(5, 2), (7, 3), (4, 1), (9, 5)])
def test_a_loop_range_says_nothing_about_the_next_buffer(n, c):
    """Compacting X bound ``k in [0, c - j)``, and that range (``j < c``: the loop runs) was
    still assumed while Y was judged: ``Y[min(j, c)]`` looked like this iteration's element,
    Y moved inside the ``j`` loop with one element, and iterations past ``c`` read outside it
    (fuzz seed 11 case 3193's pattern, found in Simplify, here in compaction)."""
    f = from_source(_after_an_empty_loop(n, c))
    lowered = tvm.lower(f).script()
    assert lowered.index("Y = T.allocate") < lowered.index("for j")   # Y stays outside
    a = np.random.default_rng(n).standard_normal(n).astype("float32")
    b = tvm.nd.array(np.full(c, np.nan, "float32"))
    out = tvm.nd.array(np.full(n, np.nan, "float32"))
    tvm.build(f)(tvm.nd.array(a), b, out)
    np.testing.assert_array_equal(b.numpy(), a[:c] + 1)
    np.testing.assert_array_equal(out.numpy(), 2 * a[np.minimum(np.arange(n), c)])


# ---- shared memory under thread and virtual-thread loops (fuzz seed 12)
def _vthread_programs(n: int, m: int):
    A = te.placeholder((n, m), name="A")
    C = te.compute((n, m), lambda i, j: A[n - 1 - i, (j + 1) % m] * 2.0, name="C")
    yield [A, C], lambda a: 2 * np.roll(a[::-1], -1, axis=1)
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    C = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="C")
    yield [A, C], lambda a: a.sum(1)


@pytest.mark.parametrize("order", ["bind_first", "copy_first"])
@pytest.mark.parametrize("scope", ["local", "shared", "global"])
@pytest.mark.parametrize("op", ["read_at", "write_at"])
def test_read_write_at_copies_under_a_virtual_thread(op, scope, order):
    """A shared copy compacted under a virtual thread holds what every virtual thread
    accesses (one copy per thread block, as classic InferBound relaxes threads for shared
    storage); local and global copies are replicated per virtual thread. Before, the shared
    copy was sized for one virtual thread and shared by all: 81 of 552 such schedules gave
    wrong results."""
    n, m = 5, 3
    built = 0
    for args, ref in _vthread_programs(n, m):
        for at, bound in [(0, 0), (1, 0), (0, 1), (1, 1)]:
            sch = Schedule(te.create_prim_func(args))
            blk = sch.get_block("C")
            loops = sch.get_loops(blk)
            if max(at, bound) >= len(loops):
                continue
            try:
                if order == "bind_first":
                    sch.bind(loops[bound], "vthread.x")
                    getattr(sch, op)(sch.get_loops(blk)[at], blk, 0, scope)
                else:
                    getattr(sch, op)(loops[at], blk, 0, scope)
                    copy = sch.get_loops(sch.get_block(
                        ("C_" if op == "write_at" else "A_") + scope))
                    if bound >= len(copy):
                        continue
                    sch.bind(copy[bound], "vthread.x")
            except ScheduleError:
                continue   # e.g. a reduction loop cannot be bound
            a = np.random.default_rng(built).standard_normal((n, m)).astype("float32")
            want = ref(a)
            out = tvm.nd.array(np.full(want.shape, np.nan, "float32"))
            tvm.build(sch.mod)(tvm.nd.array(a), out)
            np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{at=} {bound=}\n{sch.mod.script()}")
            built += 1
    assert built >= 4


def test_shared_copy_under_a_virtual_thread_covers_every_virtual_thread():
    A = te.placeholder((4, 3), name="A")
    C = te.compute((4, 3), lambda i, j: A[3 - i, j] + 1.0, name="C")
    sch = Schedule(te.create_prim_func([A, C]))
    sch.write_at(sch.get_loops(sch.get_block("C"))[0], sch.get_block("C"), 0, "shared")
    sch.bind(sch.get_loops(sch.get_block("C_shared"))[0], "vthread.x")
    text = tvm.lower(sch.mod).script()
    assert 'T.allocate([12], "float32", "shared")' in text   # 4 virtual threads x 3, once


def test_fuzz_seed_12_virtual_thread_copies_in_fences():
    from fuzz.driver import make_cases, run_isolated

    cases = [c for k in (1141, 2323, 3231, 4173, 4183, 4907, 5015)
             for c in make_cases(1, 12, start=k)]
    for res in run_isolated(cases, jobs=2):
        assert res["status"] == "built", (res["id"], res["message"])
