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


@pytest.mark.parametrize("n, pad", [(1, 1), (6, 2)])
def test_reverse_compute_at_of_one_of_two_writers_is_refused(n, pad):
    """Fuzz seed 16 case 691: after decompose_padding the fill block and the copy block both
    write Pad; moving the copy under its producer's loop put it before the fill, which then
    overwrote it. Classic requires a complete block (the only writer); so does tvmlite."""
    from tvmlite import te

    A = te.placeholder((n, n), name="A")
    P = te.compute((n, n), lambda i, j: A[i, j] * 2.0 + 1.0, name="P")
    Pad = te.compute((n, n + 2 * pad), lambda i, j: te.if_then_else(
        tvm.tir.all(j >= pad, j < n + pad), P[i, j - pad], 0.0), name="Pad")
    func = te.create_prim_func([A, Pad])
    sch = Schedule(func)
    sch.decompose_padding(sch.get_block("Pad"), sch.get_loops(sch.get_block("Pad"))[1])
    with pytest.raises(ScheduleError, match="another block also writes"):
        sch.reverse_compute_at(sch.get_block("Pad"), sch.get_loops(sch.get_block("P"))[0])
    a = np.random.default_rng(n).uniform(-1, 1, (n, n)).astype("float32")
    want = np.pad(a * 2 + 1, ((0, 0), (pad, pad)))
    out = tvm.nd.array(np.full(want.shape, np.nan, "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
