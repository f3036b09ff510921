"""reindex: the scheduled build against numpy at odd sizes, the trace round trip, and the
refusals."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.tir.schedule import Schedule, ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip

N, M, K = 13, 11, 7


def _matmul_bt():
    A = te.placeholder((N, K), name="A")
    B = te.placeholder((M, K), name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def _check(mod):
    rng = np.random.default_rng(5)
    a, b = rng.random((N, K), dtype=np.float32), rng.random((M, K), dtype=np.float32)
    c = tvm.nd.array(np.zeros((N, M), "float32"))
    tvm.build(mod, target="llvm")(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b.T, rtol=1e-5)


@pytest.mark.parametrize("buffer", [("read", 1), "B"])
def test_reindex_read(buffer):
    func = _matmul_bt()
    sch = Schedule(func, debug_mask="all")
    rb = sch.reindex("C", buffer)
    copy = sch.get(rb)
    assert [int(iv.dom.extent) for iv in copy.iter_vars] == [M, K]
    assert sch.get_consumers(rb) == [sch.get_block("C")]
    _check(sch.mod)
    verify_trace_roundtrip(sch, func)


def test_reindex_write():
    func = _matmul_bt()
    sch = Schedule(func)
    wb = sch.reindex(sch.get_block("C"), ("write", 0))
    assert sch.get_producers(wb) == [sch.get_block("C")]
    _check(sch.mod)
    verify_trace_roundtrip(sch, func)


def test_refuses_two_access_patterns():
    A = te.placeholder((N, N), name="A")
    B = te.compute((N, N), lambda i, j: A[i, j] + A[j, i], name="B")
    sch = Schedule(te.create_prim_func([A, B]))
    with pytest.raises(ScheduleError, match=r'reindex: block "B".*more than one index'):
        sch.reindex("B", "A")
    assert len(sch.trace) == 0
