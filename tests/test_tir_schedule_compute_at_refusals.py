"""compute_at / reverse_compute_at refusals in classic TVM's words: a loop that is an ancestor
of the block, a block that is not complete, a consumer (producer) outside the loop. Where
one exists, the accepted counterpart is built and compared with the unscheduled function."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func
def two_producers(A: T.Buffer((9, 7), "float32"), D: T.Buffer((9, 7), "float32")):
    B = T.alloc_buffer((9, 7))
    C = T.alloc_buffer((9, 7))
    for i, j in T.grid(9, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(9, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + 1.0
    for i, j in T.grid(9, 7):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = B[vi, vj] + C[vi, vj]


@T.prim_func
def two_consumers(A: T.Buffer((9, 7), "float32"), D: T.Buffer((9, 7), "float32")):
    B = T.alloc_buffer((9, 7))
    C = T.alloc_buffer((9, 7))
    for i, j in T.grid(9, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(9, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + 1.0
    for i, j in T.grid(9, 7):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = B[vi, vj] * C[vi, vj]


@T.prim_func
def two_writers(A: T.Buffer((9, 7), "float32"), C: T.Buffer((9, 7), "float32")):
    B = T.alloc_buffer((9, 7))
    for i, j in T.grid(9, 7):
        with T.block("B0"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(9, 7):
        with T.block("B1"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = B[vi, vj] + A[vi, vj]
    for i, j in T.grid(9, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + 1.0


def _same(func, sch):
    a = np.random.default_rng(3).random((9, 7), dtype=np.float32)
    outs = []
    for f in (func, sch.mod["main"]):
        d = tvm.nd.array(np.zeros((9, 7), "float32"))
        tvm.build(f, target="llvm")(tvm.nd.array(a), d)
        outs.append(d.numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)


def test_loop_ancestor_of_block():
    sch = Schedule(two_consumers)
    i, _ = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match='ancestor of block "B"'):
        sch.compute_at(sch.get_block("B"), i)


def test_not_a_complete_block():
    sch = Schedule(two_writers)
    i, _ = sch.get_loops(sch.get_block("C"))
    with pytest.raises(ScheduleError, match="complete block"):
        sch.compute_at(sch.get_block("B0"), i)
    with pytest.raises(ScheduleError, match='block "B1".*complete block'):
        sch.compute_at(sch.get_block("B1"), i)


def test_all_consumers_under_the_loop():
    sch = Schedule(two_consumers)
    i, _ = sch.get_loops(sch.get_block("C"))
    with pytest.raises(ScheduleError, match="requires all the consumer"):
        sch.compute_at(sch.get_block("B"), i)
    sch.compute_at(sch.get_block("C"), sch.get_loops(sch.get_block("D"))[1])
    sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("D"))[1])
    _same(two_consumers, sch)


def test_all_producers_under_the_loop():
    sch = Schedule(two_producers)
    i, _ = sch.get_loops(sch.get_block("C"))
    with pytest.raises(ScheduleError, match="requires all the producer") as e:
        sch.reverse_compute_at(sch.get_block("D"), i)
    assert 'producer block "B"' in str(e.value)
    sch.compute_inline(sch.get_block("B"))
    sch.reverse_compute_at(sch.get_block("D"), sch.get_loops(sch.get_block("C"))[1])
    _same(two_producers, sch)
