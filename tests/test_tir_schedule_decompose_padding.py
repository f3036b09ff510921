"""decompose_padding: the scheduled build against the unscheduled one on random inputs at odd
sizes, the trace round trip, the shape of the result, and the refusals."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.tir.schedule import Schedule, ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip

H, W, P, R = 13, 11, 2, 3  # input, padding each side, pooling window


def _pad_pool(pad_value=0.0, dtype="float32"):
    X = te.placeholder((H, W), dtype, name="X")
    Xp = te.compute(
        (H + 2 * P, W + 2 * P),
        lambda i, j: tir.if_then_else(
            tir.all(i >= P, i < H + P, j >= P, j < W + P), X[i - P, j - P],
            tir.const(pad_value, dtype)),
        name="pad")
    ri = te.reduce_axis((0, R), name="ri")
    rj = te.reduce_axis((0, R), name="rj")
    Y = te.compute((H + 2 * P - R + 1, W + 2 * P - R + 1),
                   lambda i, j: te.sum(Xp[i + ri, j + rj], axis=[ri, rj]), name="Y")
    return te.create_prim_func([X, Y])


def _run(mod, func):
    rng = np.random.default_rng(7)
    x = rng.uniform(-4, 4, (H, W)).astype("float32")
    oshape = [int(d) for d in func.buffer_map[func.params[1]].shape]
    got = tvm.nd.array(np.zeros(oshape, "float32"))
    want = tvm.nd.array(np.zeros(oshape, "float32"))
    tvm.build(mod, target="llvm")(tvm.nd.array(x), got)
    tvm.build(func, target="llvm")(tvm.nd.array(x), want)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    return got.numpy()


def test_decompose_at_outer_loop():
    func = _pad_pool()
    sch = Schedule(func, debug_mask="all")
    pad = sch.get_block("pad")
    const = sch.decompose_padding(pad, sch.get_loops(pad)[0])
    assert sch.get(const).name_hint == "pad_pad_const"
    assert sch.get(const).reads == ()
    # the in-bound block covers the input exactly: its loops shrank to H x W
    assert [int(sch.get(lp).extent) for lp in sch.get_loops(pad)] == [H, W]
    assert tir.schedule.ScheduleError is ScheduleError
    _run(sch.mod, func)
    verify_trace_roundtrip(sch, func)


@pytest.mark.parametrize("pad_value", [0.0, -1.5])
@pytest.mark.parametrize("where", [0, 2])
def test_decompose_under_tiles(pad_value, where):
    """Tiles of 4 rows (non-perfect: 13 output rows) with the pad computed per tile; the
    constant fill goes at the tile loop (where=0: lifted above every tile) or inside it."""
    func = _pad_pool(pad_value)
    sch = Schedule(func, debug_mask="all")
    y = sch.get_block("Y")
    i, j, ri, rj = sch.get_loops(y)
    io, ii = sch.split(i, [None, 4])
    sch.reorder(io, ii, j, ri, rj)
    sch.compute_at(sch.get_block("pad"), io)
    pad = sch.get_block("pad")
    loops = sch.get_loops(pad)
    sch.decompose_padding(pad, loops[where if where < len(loops) else -1])
    _run(sch.mod, func)
    verify_trace_roundtrip(sch, func)


def test_decompose_inner_loop_only():
    func = _pad_pool(2.0)
    sch = Schedule(func, debug_mask="all")
    pad = sch.get_block("pad")
    _, j = sch.get_loops(pad)
    assert sch.can_decompose_padding(pad, j)
    sch.decompose_padding("pad", j)
    _run(sch.mod, func)


def test_refusals_leave_the_schedule_unchanged():
    func = _pad_pool()
    sch = Schedule(func, debug_mask="all")
    y = sch.get_block("Y")
    pad = sch.get_block("pad")
    before = sch.mod["main"].script()
    with pytest.raises(ScheduleError, match=r'decompose_padding: block "Y".*not complete'):
        sch.decompose_padding(y, sch.get_loops(y)[0])
    with pytest.raises(ScheduleError, match=r'decompose_padding: block "pad".*not an ancestor'):
        sch.decompose_padding(pad, sch.get_loops(y)[0])
    assert not sch.can_decompose_padding(pad, sch.get_loops(y)[0])
    assert sch.mod["main"].script() == before
    assert "decompose_padding" not in str(sch.trace)


def test_refuses_trivial_predicate():
    X = te.placeholder((H, W), name="X")
    Xp = te.compute((H, W), lambda i, j: tir.if_then_else(
        tir.all(i >= 0, i < H), X[i, j], tir.const(0.0, "float32")), name="pad")
    sch = Schedule(te.create_prim_func([X, Xp]))
    pad = sch.get_block("pad")
    assert not sch.can_decompose_padding(pad, sch.get_loops(pad)[0])
    with pytest.raises(ScheduleError, match="trivial"):
        sch.decompose_padding(pad, sch.get_loops(pad)[0])


def test_refuses_dependent_condition():
    X = te.placeholder((H, W), name="X")
    Xp = te.compute((H, W), lambda i, j: tir.if_then_else(
        i + j < H, X[i, j], tir.const(0.0, "float32")), name="pad")
    sch = Schedule(te.create_prim_func([X, Xp]))
    pad = sch.get_block("pad")
    with pytest.raises(ScheduleError, match="not independent"):
        sch.decompose_padding(pad, sch.get_loops(pad)[0])


def test_refuses_block_without_padding_pattern():
    X = te.placeholder((H, W), name="X")
    Z = te.compute((H, W), lambda i, j: X[i, j] * 2.0, name="Z")
    sch = Schedule(te.create_prim_func([X, Z]))
    with pytest.raises(ScheduleError, match=r'block "Z".*padding pattern.*if_then_else'):
        sch.decompose_padding("Z", sch.get_loops("Z")[0])


def test_loop_holding_another_block_is_kept():
    """The innermost loop also holds a producer (compute_at): the in-bound block keeps the
    loop and its sibling, restricted by a predicate (fuzz seed 21 case 115 dropped the
    producer)."""
    X = te.placeholder((H, W), name="X")
    Q = te.compute((H, W), lambda i, j: X[i, j] * 2.0 + 1.0, name="Q")
    Xp = te.compute((H, W + 2 * P), lambda i, j: tir.if_then_else(
        tir.all(j >= P, j < W + P), Q[i, j - P], tir.const(0.0, "float32")), name="pad")
    func = te.create_prim_func([X, Xp])
    sch = Schedule(func, debug_mask="all")
    pad = sch.get_block("pad")
    sch.compute_at(sch.get_block("Q"), sch.get_loops(pad)[1], preserve_unit_loops=True)
    sch.decompose_padding(pad, sch.get_loops(pad)[1])
    assert sch.get_block("Q") is not None
    _run(sch.mod, func)
    verify_trace_roundtrip(sch, func)
