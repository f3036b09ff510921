"""reindex_cache_read / reindex_cache_write: the scheduled build against numpy at odd sizes,
the cache's layout, the trace round trip, and the refusals."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.tir.schedule import Schedule, ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip

N, M, K = 13, 11, 7


def _matmul():
    A = te.placeholder((N, K), name="A")
    B = te.placeholder((K, M), name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((N, M), lambda i, j: C[i, j] + 1.0, name="D")
    return te.create_prim_func([A, B, D])


def _run(mod):
    rng = np.random.default_rng(7)
    a, b = rng.random((N, K), dtype=np.float32), rng.random((K, M), dtype=np.float32)
    d = tvm.nd.array(np.zeros((N, M), "float32"))
    tvm.build(mod, target="llvm")(tvm.nd.array(a), tvm.nd.array(b), d)
    np.testing.assert_allclose(d.numpy(), a @ b + 1, rtol=1e-5)


def test_read_and_write_caches():
    func = _matmul()
    sch = Schedule(func, debug_mask="all")
    c = sch.get_block("C")
    ra = sch.reindex_cache_read(c, 0, "local", lambda i, j, k: (k, i))  # A transposed
    wb = sch.reindex_cache_write(c, 0, "local", lambda i, j, k: (j // 4, i, j % 4))
    assert sch.get(ra).writes[0].buffer.shape[0].value == K
    assert [int(x) for x in sch.get(wb).reads[0].buffer.shape] == [3, N, 4]
    rd = sch.reindex_cache_read("D", 0, "global", lambda i, j: (j, i))
    assert sch.get_producers(rd) == [wb]
    _run(sch.mod)
    verify_trace_roundtrip(sch, func)
    assert "index_map=lambda" in str(sch.trace)


def test_inside_a_shared_loop():
    # D's copy goes under the loop it shares with C's write-back, after it
    func = _matmul()
    sch = Schedule(func)
    i, _, _ = sch.get_loops("C")
    sch.reverse_compute_at("D", i)
    r = sch.reindex_cache_read("D", 0, "local", lambda i, j: (j, i))
    loops = sch.get_loops(r)
    assert len(loops) == 2 and loops[0] == i
    _run(sch.mod)


def test_refusals():
    func = _matmul()
    sch = Schedule(func)
    c = sch.get_block("C")
    n = len(sch.trace)
    with pytest.raises(ScheduleError, match=r'reindex_cache_read: block "C": iterator "v_k"'):
        sch.reindex_cache_read(c, 0, "local", lambda i, j, k: (i,))
    with pytest.raises(ScheduleError, match="reindex_cache_read: block \"C\": .*not injective"):
        sch.reindex_cache_read(c, 0, "local", lambda i, j, k: (i + k,))
    with pytest.raises(ScheduleError, match="reindex_cache_write: .*out of range"):
        sch.reindex_cache_write(c, 3, "local", lambda i, j, k: (i, j))
    with pytest.raises(ScheduleError, match="reindex_cache_read: .*not a storage scope"):
        sch.reindex_cache_read(c, 0, "nowhere", lambda i, j, k: (i, k))
    assert len(sch.trace) == n
    _, j, _ = sch.get_loops(c)
    sch.split(j, [None, 4])  # 11 is not a multiple of 4: C gets a predicate
    with pytest.raises(ScheduleError, match="reindex_cache_read: .*predicate"):
        sch.reindex_cache_read(c, 0, "local", lambda i, j, k: (i, k))


def test_guarded_access_past_the_buffer_refused():
    A = te.placeholder((N, M), name="A")
    C = te.compute((N, M), lambda i, j: te.if_then_else(j + 1 < M, A[i, j + 1], 0.0), name="C")
    sch = Schedule(te.create_prim_func([A, C]))
    with pytest.raises(ScheduleError, match='reindex_cache_read: block "C": .*leaves the buffer'):
        sch.reindex_cache_read("C", 0, "local", lambda i, j: (j, i))


def test_reindex_cache_write_of_an_update_initialized_outside_is_refused():
    """Fuzz seed 16 case 3153: after blockize the inner update block has no init (the outer
    block's init fills C); a write cache of it started from values nobody put there."""
    A = te.placeholder((5, 7), name="A")
    k = te.reduce_axis((0, 7), name="k")
    C = te.compute((5,), lambda i: te.sum(A[i, k], axis=k), name="C")
    sch = Schedule(te.create_prim_func([A, C]))
    sch.blockize(sch.get_loops(sch.get_block("C"))[0])
    with pytest.raises(ScheduleError, match="without an init of its own"):
        sch.reindex_cache_write(sch.get_block("C"), 0, "global", lambda i, k: [i])
    a = np.random.default_rng(3).uniform(-1, 1, (5, 7)).astype("float32")
    out = tvm.nd.array(np.full(5, np.nan, "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), a.sum(1), rtol=1e-5)
