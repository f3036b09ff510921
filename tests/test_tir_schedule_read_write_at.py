"""read_at / write_at: the scheduled build against the unscheduled one and numpy at odd sizes
(non-divisible splits included), the copy block's shape, the trace round trip, and the
refusals."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip

N, M, K = 13, 11, 9


def _matmul():
    A = te.placeholder((N, K), name="A")
    B = te.placeholder((K, M), name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def _run(mod):
    rng = np.random.default_rng(11)
    a = rng.random((N, K), dtype=np.float32)
    b = rng.random((K, M), dtype=np.float32)
    c = tvm.nd.array(np.zeros((N, M), "float32"))
    tvm.build(mod, target="llvm")(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)
    return c.numpy()


def _index_of(block, name, writes=False):
    regions = block.writes if writes else block.reads
    return next(k for k, r in enumerate(regions) if r.buffer.name == name)


@pytest.mark.parametrize("factor", [3, 9])
def test_read_at_both_operands(factor):
    func = _matmul()
    expect = _run(tvm.IRModule({"main": func}))
    sch = Schedule(func, debug_mask="all")
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    k0, k1 = sch.split(k, [None, factor])
    ra = sch.read_at(k0, c, _index_of(sch.get(c), "A"), "local")
    rb = sch.read_at(k0, c, _index_of(sch.get(c), "B"), "shared")
    blk = sch.get(ra)
    assert blk.annotations == {"auto_copy": 1}
    assert len(blk.iter_vars) == (2 if factor == 3 else 1)  # i and k0 (unless k0 is unit)
    assert sch.get(rb).name_hint == "B_shared"
    assert {r.buffer.name for r in sch.get(c).reads} >= {"A_local", "B_shared"}
    np.testing.assert_allclose(_run(sch.mod), expect, rtol=1e-5)
    verify_trace_roundtrip(sch, func)
    assert "sch.read_at(loop=" in str(sch.trace)


def test_write_at_tile():
    func = _matmul()
    sch = Schedule(func, debug_mask="all")
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    i0, i1 = sch.split(i, [None, 5])  # 13 = 5 + 5 + 3: the writer gets a predicate
    j0, j1 = sch.split(j, [None, 11])
    sch.reorder(i0, j0, i1, j1, k)
    with pytest.raises(ScheduleError, match=r"write_at: block \"C\".*predicate"):
        sch.write_at(i0, c, 0, "local")
    sch2 = Schedule(func, debug_mask="all")
    c = sch2.get_block("C")
    i, j, k = sch2.get_loops(c)
    wb = sch2.write_at(i, c, 0, "local")
    assert sch2.get(c).writes[0].buffer.name == "C_local"
    assert sch2.get(wb).writes[0].buffer.name == "C"
    _run(sch2.mod)
    verify_trace_roundtrip(sch2, func)


def test_refusals():
    func = _matmul()
    sch = Schedule(func)
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    n = len(sch.trace)
    with pytest.raises(ScheduleError, match=r"read_at: block \"C\": read_buffer_index 7"):
        sch.read_at(k, c, 7, "local")
    with pytest.raises(ScheduleError, match=r"write_at: block \"C\": .*not a storage scope"):
        sch.write_at(k, c, 0, "nowhere")
    # the reduction loop k is the target: its iterations would each start from garbage
    with pytest.raises(ScheduleError, match=r"write_at: block \"C\": .*without initialising"):
        sch.write_at(k, c, 0, "local")
    A = te.placeholder((N,), name="A")
    B = te.compute((N,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((N,), lambda i: B[i] + A[i], name="C")
    s2 = Schedule(te.create_prim_func([A, C]))
    (bi,) = s2.get_loops("B")
    c2 = s2.get_block("C")
    n2 = len(s2.trace)
    with pytest.raises(ScheduleError, match=r'read_at: block "C": the block is not under'):
        s2.read_at(bi, c2, 0, "local")
    assert len(sch.trace) == n and len(s2.trace) == n2  # refusals leave no record


@T.prim_func
def _accumulate(A: T.Buffer((13,), "float32"), B: T.Buffer((13,), "float32")):
    for i in range(13):
        with T.block("B"):
            vi = T.axis.spatial(13, i)
            B[vi] = B[vi] + A[vi]


def test_in_place_update_refused():
    sch = Schedule(_accumulate)
    b = sch.get_block("B")
    (i,) = sch.get_loops(b)
    bi = _index_of(sch.get(b), "B")
    with pytest.raises(ScheduleError, match=r'read_at: block "B": "B" is written under'):
        sch.read_at(i, b, bi, "local")
    with pytest.raises(ScheduleError, match=r'write_at: block "B": .*without initialising'):
        sch.write_at(i, b, 0, "local")


def test_write_at_strided_writes_refused():
    A = te.placeholder((2 * N,), name="A")
    B = te.compute((2 * N,), lambda i: A[i] * 2.0, name="B")
    func = te.create_prim_func([A, B])
    sch = Schedule(func)
    b = sch.get_block("B")
    (i,) = sch.get_loops(b)
    io, ii = sch.split(i, [None, 2])
    sch.reorder(ii, io)  # under ii, B is written every other element
    with pytest.raises(ScheduleError, match="write_at: block \"B\": .*holes"):
        sch.write_at(ii, b, 0, "local")


def test_read_at_predicated_reader_refused():
    sch = Schedule(_matmul())
    c = sch.get_block("C")
    _, _, k = sch.get_loops(c)
    k0, _ = sch.split(k, [None, 4])  # 9 = 4 + 4 + 1: C gets a predicate
    with pytest.raises(ScheduleError, match=r'read_at: block "C": block "C" under .*predicate'):
        sch.read_at(k0, c, 0, "local")


def test_read_at_guarded_access_refused():
    P = te.placeholder((3, 4), name="P")
    Pad = te.compute((3, 8), lambda i, j: te.if_then_else(
        te.all(j >= 2, j < 6), P[i, j - 2], 1.0), name="Pad")
    sch = Schedule(te.create_prim_func([P, Pad]))
    b = sch.get_block("Pad")
    _, j = sch.get_loops(b)
    with pytest.raises(ScheduleError, match=r'read_at: block "Pad": .*under a condition'):
        sch.read_at(j, b, 0, "shared")
