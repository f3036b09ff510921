"""parallel / vectorize / bind refuse what classic TVM refuses: a block under the loop whose
binding is not quasi-affine, or a reduction block writing at indices that depend on its
reduction iterator. A valid loop of the same block is parallelized and gives the numpy result."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func
def rowsum_square_index(A: T.Buffer((9, 50), "float32"), B: T.Buffer((9,), "float32")):
    for i, k in T.grid(9, 10):
        with T.block("B"):
            vi = T.axis.S(9, i)
            vk = T.axis.R(50, k * k // 2)
            with T.init():
                B[vi] = 0.0
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def rowsum_write_by_reduce(A: T.Buffer((9, 9), "float32"), B: T.Buffer((9,), "float32")):
    for i, k in T.grid(9, 9):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vk] = 0.0
            B[vk] = B[vk] + A[vi, vk]


@T.prim_func
def rowsum(A: T.Buffer((9, 13), "float32"), B: T.Buffer((9,), "float32")):
    for i, k in T.grid(9, 13):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = 0.0
            B[vi] = B[vi] + A[vi, vk]


@pytest.mark.parametrize("func, why", [(rowsum_square_index, "not quasi-affine"),
                                       (rowsum_write_by_reduce, "not compact")])
@pytest.mark.parametrize("prim", ["parallel", "vectorize"])
def test_refusals(func, why, prim):
    sch = Schedule(func)
    i, _ = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match=f'{prim}: loop "i".*{why}'):
        getattr(sch, prim)(i)
    sch.unroll(i)  # unrolling changes no order: allowed


def test_parallel_rowsum_matches_numpy():
    sch = Schedule(rowsum)
    i, _ = sch.get_loops(sch.get_block("B"))
    sch.parallel(i)
    a = np.random.default_rng(2).random((9, 13), dtype=np.float32)
    b = tvm.nd.array(np.zeros(9, "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(axis=1), rtol=1e-5)


@T.prim_func
def shift_in_place(A: T.Buffer((17,), "float32"), B: T.Buffer((17,), "float32")):
    for i in T.serial(16):
        with T.block("shift"):
            A[i + 1] = A[i + 1] + A[i]
    for i in T.serial(17):
        with T.block("copy"):
            vi = T.axis.S(17, i)
            B[vi] = A[vi]


@pytest.mark.parametrize("prim", ["parallel", "vectorize"])
def test_block_reading_what_it_writes_refused(prim):
    """Iteration i reads what iteration i - 1 wrote: running them apart is wrong."""
    sch = Schedule(shift_in_place)
    (i,) = sch.get_loops(sch.get_block("shift"))
    before = sch.mod.script()
    with pytest.raises(ScheduleError, match=f'{prim}: loop "i": block "shift" reads and writes '
                       '"A"'):
        getattr(sch, prim)(i)
    assert sch.mod.script() == before
    (j,) = sch.get_loops(sch.get_block("copy"))
    getattr(sch, prim)(j)
    a = np.random.default_rng(5).random(17, dtype=np.float32)
    b = tvm.nd.array(np.zeros(17, "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.cumsum(a), rtol=1e-5)


def test_bind_reduction_loop_only_to_thread_idx():
    """A reduction loop bound to blockIdx would split the sum among blocks that never meet;
    threadIdx makes it a cross-thread reduction."""
    sch = Schedule(rowsum)
    _, k = sch.get_loops(sch.get_block("B"))
    for tag in ("blockIdx.x", "vthread"):
        with pytest.raises(ScheduleError, match='bind: loop "k": the loop bound to .* is a '
                           'reduction loop of B: blocks cannot reduce .*iterator "vk"'):
            sch.bind(k, tag)
    sch.bind(k, "threadIdx.x")
    assert str(sch.get(k).thread_binding.thread_tag) == "threadIdx.x"


def test_parallel_refuses_a_write_back_every_iteration_repeats():
    # write_at under a loop bound to a virtual thread copies every thread's elements back;
    # re-kinding that loop to parallel would make each iteration copy elements it never
    # computed (found by the schedule fuzzer: half the output was zero)
    from tvmlite import te
    A = te.placeholder((2, 3), name="A")
    B = te.placeholder((3, 1), name="B")
    k = te.reduce_axis((0, 3), name="k")
    C = te.compute((2, 1), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    sch = Schedule(te.create_prim_func([A, B, C]))
    sch.bind(sch.get_loops(sch.get_block("C"))[0], "vthread.x")
    sch.write_at(sch.get_loops(sch.get_block("C"))[1], sch.get_block("C"), 0, "shared")
    with pytest.raises(ScheduleError, match=r'parallel: loop "i": block "C_shared" writes '
                                            r'"C"\[0:2, 0:1\] in every iteration'):
        sch.parallel(sch.get_loops(sch.get_block("C_shared"))[0])
    # the virtual-thread schedule itself is right
    a = np.random.rand(2, 3).astype("float32")
    b = np.random.rand(3, 1).astype("float32")
    f = tvm.build(sch.mod, target="llvm")
    c = tvm.nd.empty((2, 1))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)
