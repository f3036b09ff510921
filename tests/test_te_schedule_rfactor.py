"""Classic TE rfactor: factored reductions equal the plain ones."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


@pytest.mark.parametrize("n,factor,factor_axis", [(64, 16, 0), (37, 8, 0), (50, 7, 1)])
def test_rfactor_row_sum(n, factor, factor_axis):
    m = 5
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((m,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=factor)
    BF = s.rfactor(B, ki, factor_axis=factor_axis)
    assert tuple(int(x) for x in BF.shape) == ((factor, m) if factor_axis == 0 else (m, factor))
    s[BF].parallel(BF.op.axis[0])
    f = tvm.build(s, [A, B])
    a = np.random.rand(m, n).astype("float32")
    b = tvm.nd.empty((m,), "float32")
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(axis=1), rtol=1e-5)


def test_rfactor_outer_axis_and_compute_at():
    n = 100
    A = te.placeholder((n,), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((1,), lambda i: te.max(A[k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, nparts=8)
    BF = s.rfactor(B, ko)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    f = tvm.build(s, [A, B])
    a = np.random.rand(n).astype("float32")
    b = tvm.nd.empty((1,), "float32")
    f(tvm.nd.array(a), b)
    np.testing.assert_equal(b.numpy(), [a.max()])


def test_rfactor_rejects_spatial_axis():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(tvm.TVMError, match="rfactor"):
        s.rfactor(B, B.op.axis[0])
