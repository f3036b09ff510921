"""Bad GPU schedules get a TVMError naming the kernel, the loop and the reason, never a wrong
answer: a thread axis bound twice in one loop nest (TensorIR, where the schedule cannot see it),
a parallel loop inside a kernel, a thread extent not known when compiling, too many threads per
block from a TensorIR schedule. (The TE forms of the first checks are in test_gpu_book_ch5.py.)
"""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import TVMError
from tvmlite.script import tir as T


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


@T.prim_func
def add_one(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
    for i in range(1000):
        with T.block("B"):
            vi = T.axis.spatial(1000, i)
            B[vi] = A[vi] + 1.0


def _split_bind(tags, factors=(8, 125)):
    sch = tvm.tir.Schedule(add_one)
    i, = sch.get_loops(sch.get_block("B"))
    loops = sch.split(i, list(factors))
    for lp, tag in zip(loops, tags):
        sch.bind(lp, tag)
    return sch


@pytest.mark.parametrize("tag", ["threadIdx.x", "blockIdx.x", "threadIdx.y"])
def test_tensorir_thread_axis_bound_twice_in_one_nest(tag):
    sch = _split_bind((tag, tag))
    with pytest.raises(TVMError, match=f"add_one_kernel0: loop i_1 is bound to {tag} inside "
                       f"loop i_0, also bound to {tag}, and its body uses i_0: a thread axis "
                       "bound twice"):
        tvm.build(sch.mod, target="cuda")


def test_tensorir_blocks_and_threads_run_right():
    """The same split bound to two different axes: the answer numpy gives."""
    mod = tvm.build(_split_bind(("blockIdx.x", "threadIdx.x")).mod, target="cuda")
    dev = tvm.cuda(0)
    a = np.random.rand(1000).astype("float32")
    b = tvm.nd.array(np.zeros(1000, "float32"), dev)
    mod(tvm.nd.array(a, dev), b)
    np.testing.assert_allclose(b.numpy(), a + 1)


def test_tensorir_too_many_threads_per_block():
    sch = _split_bind(("blockIdx.x", "threadIdx.x"), factors=(1, 1000))
    with pytest.raises(TVMError, match=r"add_one: 1000 threads per block \(threadIdx.x=1000\) "
                       "exceed the target's limit of 512"):
        tvm.build(sch.mod, target="cuda -max_num_threads=512")


def test_tensorir_unbound_loop_runs_on_host():
    sch = _split_bind(("blockIdx.x",), factors=(8, 125))
    mod = tvm.build(sch.mod, target="cuda")  # one thread per block, 125 serial iterations
    dev = tvm.cuda(0)
    a = np.random.rand(1000).astype("float32")
    b = tvm.nd.array(np.zeros(1000, "float32"), dev)
    mod(tvm.nd.array(a, dev), b)
    np.testing.assert_allclose(b.numpy(), a + 1)
    sch = tvm.tir.Schedule(add_one)
    with pytest.raises(TVMError, match="add_one: nothing is bound to a GPU thread"):
        tvm.build(sch.mod, target="cuda")


def test_parallel_loop_inside_a_kernel():
    n = 256
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    bx, xi = s[B].split(B.op.axis[0], factor=64)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].parallel(xi)
    with pytest.raises(TVMError, match=r"default_function_kernel0: loop i\.inner is marked "
                       "parallel inside a GPU kernel; bind it to a thread axis instead"):
        tvm.build(s, [A, B], "cuda")


def test_symbolic_threads_per_block():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    with pytest.raises(TVMError, match="the extent of the loop i bound to threadIdx.x is not a "
                       "constant .*threads per block must be known when compiling"):
        tvm.build(s, [A, B], "cuda")
