"""rolling_buffer: the scheduled build against the unscheduled one on random inputs at odd
sizes (stride 1 and 2, 1-D and 2-D tiles, non-perfect tiles, a cascade), the trace round trip,
the shape of the result, and the refusals."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.tir.schedule import Schedule, ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip


def _pool(h, w, k, stride=1, layers=1):
    """``layers`` max pools of window ``k`` and ``stride`` in a cascade, on an (h, w) input."""
    X = te.placeholder((h, w), name="X")
    cur, names = X, []
    for n in range(layers):
        ho, wo = (int(cur.shape[0]) - k) // stride + 1, (int(cur.shape[1]) - k) // stride + 1
        ri = te.reduce_axis((0, k), name=f"ri{n}")
        rj = te.reduce_axis((0, k), name=f"rj{n}")
        cur = _max_pool(cur, ho, wo, ri, rj, stride, f"P{n}")
        names.append(f"P{n}")
    return te.create_prim_func([X, cur]), names


def _max_pool(src, ho, wo, ri, rj, stride, name):
    return te.compute((ho, wo), lambda i, j: te.max(
        src[i * stride + ri, j * stride + rj], axis=[ri, rj]), name=name)


def _run(mod, func):
    rng = np.random.default_rng(11)
    xshape = [int(d) for d in func.buffer_map[func.params[0]].shape]
    oshape = [int(d) for d in func.buffer_map[func.params[1]].shape]
    x = tvm.nd.array(rng.uniform(-8, 8, xshape).astype("float32"))
    got = tvm.nd.array(np.zeros(oshape, "float32"))
    want = tvm.nd.array(np.zeros(oshape, "float32"))
    tvm.build(mod, target="llvm")(x, got)
    tvm.build(func, target="llvm")(x, want)
    np.testing.assert_allclose(got.numpy(), want.numpy())


def _alloc_shape(sch, name):
    root = sch.mod["main"].body.block
    return [int(d) for b in root.alloc_buffers if b.name == name for d in b.shape]


@pytest.mark.parametrize("tile", [4, 3, 5])
def test_rows_tiled(tile):
    func, (p0, p1) = _pool(17, 13, 3, layers=2)
    sch = Schedule(func, debug_mask="all")
    i, j, *_ = sch.get_loops(p1)
    io, _ = sch.split(i, [None, tile])
    sch.compute_at(sch.get_block(p0), io)
    sch.rolling_buffer(p0, 0)
    # the window of one tile of P1 rows: tile + 2 rows of P0
    assert _alloc_shape(sch, p0) == [tile + 2, 13 - 2]
    _run(sch.mod, func)
    verify_trace_roundtrip(sch, func)


def test_rows_and_columns_tiled():
    func, (p0, p1) = _pool(19, 15, 3, layers=2)
    sch = Schedule(func, debug_mask="all")
    i, j, *_ = sch.get_loops(p1)
    io, ii = sch.split(i, [None, 4])
    jo, ji = sch.split(j, [None, 5])
    sch.reorder(io, jo, ii, ji)
    sch.compute_at(sch.get_block(p0), jo)
    sch.rolling_buffer(p0, 0)
    assert _alloc_shape(sch, p0)[0] == 6
    _run(sch.mod, func)
    verify_trace_roundtrip(sch, func)


def test_cascade_with_stride():
    func, (p0, p1, p2) = _pool(27, 11, 3, stride=2, layers=3)
    sch = Schedule(func, debug_mask="all")
    i, *_ = sch.get_loops(p2)
    io, _ = sch.split(i, [None, 1])
    sch.compute_at(sch.get_block(p1), io)
    sch.compute_at(sch.get_block(p0), io)
    sch.rolling_buffer(p0, 0)
    sch.rolling_buffer(p1, 0)
    _run(sch.mod, func)
    verify_trace_roundtrip(sch, func)


def test_refuses_without_tiling():
    func, (p0, _) = _pool(9, 9, 3, layers=2)
    sch = Schedule(func)
    with pytest.raises(ScheduleError, match=r'rolling_buffer: block "P0".*not a loop'):
        sch.rolling_buffer(p0, 0)


def test_refuses_non_overlapping_tiles():
    func, (p0, p1) = _pool(16, 16, 2, stride=2, layers=2)
    sch = Schedule(func)
    io, _ = sch.split(sch.get_loops(p1)[0], [None, 2])
    sch.compute_at(sch.get_block(p0), io)
    with pytest.raises(ScheduleError, match="rolling pattern"):
        sch.rolling_buffer(p0, 0)


def test_refuses_parallel_tile_loop():
    func, (p0, p1) = _pool(17, 13, 3, layers=2)
    sch = Schedule(func)
    io, _ = sch.split(sch.get_loops(p1)[0], [None, 4])
    sch.compute_at(sch.get_block(p0), io)
    sch.parallel(io)
    with pytest.raises(ScheduleError, match="must be serial"):
        sch.rolling_buffer(p0, 0)


def test_refuses_output_and_bad_index():
    func, (p0, p1) = _pool(9, 9, 3, layers=2)
    sch = Schedule(func)
    with pytest.raises(ScheduleError, match="function parameter"):
        sch.rolling_buffer(p1, 0)
    with pytest.raises(ScheduleError, match="out of range"):
        sch.rolling_buffer(p0, 3)
    assert tir.Schedule is Schedule
