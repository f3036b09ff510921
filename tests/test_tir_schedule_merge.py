"""merge: sibling nests of the same shape run under one shared nest; the merged build equals
the unscheduled one, and nests that depend on each other, are not adjacent or differ in shape
are refused."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import tir
from tvmlite.script import tir as T
from tvmlite.tir.schedule import ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def two_nests(A: T.Buffer((15, 7), "float32"), C: T.Buffer((15, 7), "float32"),
              D: T.Buffer((5, 7), "float32")):
    for i_0, j, i_1 in T.grid(5, 7, 3):
        with T.block("C"):
            vi = T.axis.spatial(15, i_0 * 3 + i_1)
            vj = T.axis.spatial(7, j)
            C[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j, k in T.grid(5, 7, 2):
        with T.block("D"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                D[vi, vj] = T.float32(0)
            D[vi, vj] = D[vi, vj] + A[vi * 3 + vk, vj]


@T.prim_func
def dependent(A: T.Buffer((9,), "float32"), C: T.Buffer((9,), "float32")):
    B = T.alloc_buffer((9,))
    for i in range(9):
        with T.block("B"):
            vi = T.axis.spatial(9, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(9):
        with T.block("C"):
            vi = T.axis.spatial(9, i)
            C[vi] = B[8 - vi]
    for i in range(9):
        with T.block("E"):
            vi = T.axis.spatial(9, i)
            A[vi] = T.float32(0)


def _run(mod):
    rng = np.random.default_rng(3)
    a = rng.random((15, 7), dtype=np.float32)
    c, d = np.zeros((15, 7), "float32"), np.zeros((5, 7), "float32")
    args = [tvm.nd.array(x) for x in (a, c, d)]
    tvm.build(mod, target="llvm")(*args)
    return [x.numpy() for x in args[1:]]


@pytest.mark.parametrize("level", [0, 1])
def test_merge_matches_unscheduled(level):
    sch = tir.Schedule(two_nests, debug_mask="all")
    lc, ld = sch.get_loops("C")[level], sch.get_loops("D")[level]
    inner = sch.merge(lc, ld)
    assert sch.get(inner).loop_var.name == ("i_0_m" if level == 0 else "j_m")
    loops_c, loops_d = sch.get_loops("C"), sch.get_loops("D")
    assert loops_c[:level + 1] == loops_d[:level + 1]  # shared outer loops
    for got, want in zip(_run(sch.mod), _run(two_nests)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    verify_trace_roundtrip(sch, mod=two_nests)
    sch.parallel(sch.get_loops("C")[0])  # the merged nest keeps being schedulable
    np.testing.assert_allclose(_run(sch.mod)[1], _run(two_nests)[1], rtol=1e-6)


def test_merge_refusals():
    sch = tir.Schedule(two_nests)
    (c0, c1, c2), (d0, d1, d2) = sch.get_loops("C"), sch.get_loops("D")
    cases = [
        ((c2, d2), "extents differ"),
        ((c0, d1), "different depths"),
        ((c0,), "at least two"),
        ((c0, c0), "given twice"),
        ((c0, c1), "nested in another"),
    ]
    for loops, text in cases:
        with pytest.raises(ScheduleError, match=text):
            sch.merge(*loops)
    sch.annotate(d0, "pragma_x", 1)
    with pytest.raises(ScheduleError, match=r'merge: loop "i": only serial loops'):
        sch.merge(c0, d0)
    assert len([i for i in sch.trace.insts if i.name == "merge"]) == 0

    dep = tir.Schedule(dependent)
    b, c, e = (dep.get_loops(n)[0] for n in "BCE")
    with pytest.raises(ScheduleError, match='writes "B", which the nest of loop "i" accesses'):
        dep.merge(b, c)
    with pytest.raises(ScheduleError, match="adjacent"):
        dep.merge(b, e)
    dep.merge(c, e)  # C reads B only, E writes A only: independent, so merged
    assert dep.get_loops("C") == dep.get_loops("E")
