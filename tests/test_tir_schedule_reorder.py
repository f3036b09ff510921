"""reorder checks what classic TVM checks on the blocks under the loops: data-parallel or
reduction iterators, bound to affine maps of the reordered loops (loops above the range count
as constants; overlapping windows pass), and no predicate fusing loops that no binding fuses.
What it accepts builds the same result as the unscheduled function."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func
def windows(A: T.Buffer((15, 7), "float32"), B: T.Buffer((15, 7), "float32")):
    for v0, v1, v2 in T.grid(6, 5, 7):
        with T.block("B"):
            i = T.axis.spatial(15, v0 * 2 + v1)
            j = T.axis.spatial(7, v2)
            B[i, j] = A[i, j] * 3.0


@T.prim_func
def square_window(A: T.Buffer((30, 7), "float32"), B: T.Buffer((30, 7), "float32")):
    for v0, v1, v2 in T.grid(5, 5, 7):
        with T.block("B"):
            i = T.axis.spatial(30, v0 * v0 + v1)
            j = T.axis.spatial(7, v2)
            B[i, j] = A[i, j] * 3.0


@T.prim_func
def strided(A: T.Buffer((9, 40), "float32"), B: T.Buffer((9, 40), "float32")):
    for i, l in T.grid(9, 5):
        with T.block("B"):
            vi = T.axis.spatial(9, i)
            vl = T.axis.spatial(40, l * 8)
            B[vi, vl] = A[vi, vl] * 3.0


@T.prim_func
def fused_predicate(A: T.Buffer((6, 7), "float32"), B: T.Buffer((6, 7), "float32")):
    for i, j in T.grid(6, 7):
        with T.block("B"):
            T.where(i * 7 + j < 30)
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 3.0


@T.prim_func
def scan_iter(A: T.Buffer((6, 7), "float32"), B: T.Buffer((6, 7), "float32")):
    for i, j in T.grid(6, 7):
        with T.block("B"):
            vi = T.axis.spatial(6, i)
            vj = T.axis.scan(7, j)
            B[vi, vj] = A[vi, vj] * 3.0


def _run(func, shape):
    a = np.random.default_rng(11).random(shape, dtype=np.float32)
    b = tvm.nd.array(np.zeros(shape, "float32"))
    tvm.build(func, target="llvm")(tvm.nd.array(a), b)
    return b.numpy()


def _same_as_unscheduled(sch, func, shape):
    np.testing.assert_allclose(_run(sch.mod["main"], shape), _run(func, shape), rtol=1e-6)


def test_overlapping_windows_reorder():
    sch = Schedule(windows)
    v0, v1, v2 = sch.get_loops(sch.get_block("B"))
    sch.reorder(v0, v2, v1)
    assert [sch.get(lp).loop_var.name for lp in sch.get_loops(sch.get_block("B"))] == [
        "v0", "v2", "v1"]
    _same_as_unscheduled(sch, windows, (15, 7))


def test_non_affine_binding_refused_unless_its_loop_stays_outside():
    sch = Schedule(square_window)
    v0, v1, v2 = sch.get_loops(sch.get_block("B"))
    before = sch.mod.script()
    with pytest.raises(ScheduleError, match=r'reorder: block "B".*binding v0 \* v0 \+ v1'):
        sch.reorder(v0, v2, v1)
    assert sch.mod.script() == before
    sch.reorder(v2, v1)  # v0 is above the range: a constant there
    _same_as_unscheduled(sch, square_window, (30, 7))


@pytest.mark.parametrize("func, why", [
    (strided, "not an affine map"),
    (fused_predicate, "predicate .* constrains loops i, j together"),
    (scan_iter, 'iterator "vj" is neither data-parallel nor a reduction'),
])
def test_refusals(func, why):
    sch = Schedule(func)
    i, j = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match=f'reorder: block "B".*{why}'):
        sch.reorder(j, i)


def test_split_predicate_reorders():
    """A non-dividing split's predicate fuses the two halves the binding fuses: accepted."""
    sch = Schedule(windows)
    _, _, v2 = sch.get_loops(sch.get_block("B"))
    o, i = sch.split(v2, [None, 3])
    v0 = sch.get_loops(sch.get_block("B"))[0]
    sch.reorder(i, v0, o)
    _same_as_unscheduled(sch, windows, (15, 7))


@T.prim_func
def plain(A: T.Buffer((9, 13), "float32"), B: T.Buffer((9, 13), "float32")):
    for i, j in T.grid(9, 13):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 3.0


def test_fused_then_split_reorders():
    """fuse + non-dividing splits leave bindings like ``(f0 * 8 + f1) // 13``: accepted."""
    sch = Schedule(plain)
    f = sch.fuse(*sch.get_loops(sch.get_block("B")))
    f0, f1 = sch.split(f, [None, 16])
    f10, f11 = sch.split(f1, [None, 5])
    sch.reorder(f11, f0, f10)
    _same_as_unscheduled(sch, plain, (9, 13))


def test_loops_below_the_range_count_in_the_bindings():
    """``j_0 * 4 + j_1`` with ``j_1`` below the loops given is an affine map."""
    sch = Schedule(plain)
    i, j = sch.get_loops(sch.get_block("B"))
    j0, _ = sch.split(j, [None, 4])
    sch.reorder(j0, i)
    _same_as_unscheduled(sch, plain, (9, 13))
