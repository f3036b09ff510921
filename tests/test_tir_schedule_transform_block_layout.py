"""transform_block_layout: the scheduled build against numpy at odd sizes, the trace round
trip, and the refusals."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.tir.schedule import Schedule, ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip

N, M, K = 13, 11, 7


def _matmul():
    A = te.placeholder((N, K), name="A")
    B = te.placeholder((K, M), name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def _check(mod):
    rng = np.random.default_rng(3)
    a, b = rng.random((N, K), dtype=np.float32), rng.random((K, M), dtype=np.float32)
    c = tvm.nd.array(np.zeros((N, M), "float32"))
    tvm.build(mod, target="llvm")(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)


def test_fuse_spatial_iterators():
    func = _matmul()
    sch = Schedule(func, debug_mask="all")
    sch.transform_block_layout("C", lambda i, j, k: (i * M + j, k))
    block = sch.get(sch.get_block("C"))
    assert [int(iv.dom.extent) for iv in block.iter_vars] == [N * M, K]
    assert len(sch.get_loops("C")) == 2
    _check(sch.mod)
    verify_trace_roundtrip(sch, func)


def test_permute_and_fuse_reduction_last():
    func = _matmul()
    sch = Schedule(func)
    sch.transform_block_layout(sch.get_block("C"), lambda i, j, k: (j, i, k))
    _check(sch.mod)


@pytest.mark.parametrize("fmap, match", [
    (lambda i, j, k: (i + j, k), "not bijective"),
    (lambda i, j, k: (i, j * K + k), "mixes spatial and reduction"),
    (lambda i, j, k: (i * j, k), "not an affine combination"),
    (lambda i, j, k: (i, k), "exactly one output"),
])
def test_refusals(fmap, match):
    sch = Schedule(_matmul())
    with pytest.raises(ScheduleError, match=f'transform_block_layout: block "C".*{match}'):
        sch.transform_block_layout("C", fmap)
    assert len(sch.trace) == 0


def test_refuses_a_non_trivial_binding():
    sch = Schedule(_matmul())
    _, _, k = sch.get_loops("C")
    sch.split(k, [None, 7])
    with pytest.raises(ScheduleError, match="trivial"):
        sch.transform_block_layout("C", lambda i, j, k: (i * M + j, k))


def test_refuses_a_predicated_block():
    sch = Schedule(_matmul())
    i, _, _ = sch.get_loops("C")
    sch.split(i, [None, 4])
    with pytest.raises(ScheduleError, match="predicate"):
        sch.transform_block_layout("C", lambda i, j, k: (i * M + j, k))
