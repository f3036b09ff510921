"""``Stage.set_store_predicate``: the stage stores only where the predicate holds (elsewhere the
output keeps what it held), on CPU and in a cross-thread GPU reduction (CPU emulation)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import TVMError


def test_spatial_store_predicate_over_leaf_and_root_ivars():
    n, m = 37, 5
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2, name="B")
    s = te.create_schedule(B.op)
    _, ii = s[B].split(B.op.axis[0], factor=4)
    s[B].set_store_predicate(tvm.tir.all(ii < 2, B.op.axis[1] > 1))
    f = tvm.build(s, [A, B])
    a = np.random.rand(n, m).astype("float32")
    b = tvm.nd.array(np.full((n, m), -1, "float32"))
    f(tvm.nd.array(a), b)
    expect = np.full((n, m), -1, "float32")
    mask = (np.arange(n)[:, None] % 4 < 2) & (np.arange(m)[None] > 1)
    expect[mask] = (a * 2)[mask]
    np.testing.assert_allclose(b.numpy(), expect)


def test_reduction_store_predicate_on_a_spatial_axis():
    n, k = 23, 7
    A = te.placeholder((n, k), name="A")
    r = te.reduce_axis((0, k), name="r")
    B = te.compute((n,), lambda i: te.sum(A[i, r], axis=r), name="B")
    s = te.create_schedule(B.op)
    s[B].set_store_predicate(B.op.axis[0] % 3 == 1)
    f = tvm.build(s, [A, B])
    a = np.random.rand(n, k).astype("float32")
    b = tvm.nd.array(np.full(n, 5, "float32"))
    f(tvm.nd.array(a), b)
    expect = np.where(np.arange(n) % 3 == 1, a.sum(axis=1), 5).astype("float32")
    np.testing.assert_allclose(b.numpy(), expect, rtol=1e-5)


def test_predicate_on_the_threads_of_a_cross_thread_reduction(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    n = te.var("n")
    A = te.placeholder((n, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    _, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    xo, xi = s[B].split(s[B].op.axis[0], factor=32)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.y"))
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(s[B].op.reduce_axis[0], tx)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    s[B].set_store_predicate(tx.var.equal(0))
    f = tvm.build(s, [A, B], "cuda")
    assert "__global__" in f.imported_modules[0].get_source()
    dev = tvm.cuda(0)
    for nn in (45, 70):
        a = np.random.rand(nn, nn).astype("float32")
        b = tvm.nd.array(np.zeros(nn, "float32"), dev)
        f(tvm.nd.array(a, dev), b)
        np.testing.assert_allclose(b.numpy(), a.sum(axis=1), rtol=1e-4)


def test_bad_store_predicates():
    A = te.placeholder((9, 4), name="A")
    r = te.reduce_axis((0, 4), name="r")
    B = te.compute((9,), lambda i: te.sum(A[i, r], axis=r), name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TVMError, match="set_store_predicate: stage B needs a boolean"):
        s[B].set_store_predicate(B.op.axis[0] + 1)
    s[B].set_store_predicate(r.var < 2)
    with pytest.raises(TVMError, match="serial reduction IterVar r"):
        tvm.build(s, [A, B])
    other = te.var("other")
    s[B].set_store_predicate(other < 2)
    with pytest.raises(TVMError, match="other is neither an IterVar"):
        tvm.build(s, [A, B])
    io, _ = s[B].split(B.op.axis[0], factor=2)
    s[B].split(io, factor=2)
    s[B].set_store_predicate(io.var < 2)
    with pytest.raises(TVMError, match="split or fused"):
        tvm.build(s, [A, B])
