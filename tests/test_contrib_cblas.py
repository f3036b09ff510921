"""tvm.contrib.cblas: BLAS gemm as a TE extern op, checked against numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.contrib import cblas

pytestmark = pytest.mark.skipif(not cblas.library_found(), reason="no CBLAS library here")


def _run(out, ins, arrays, extra=()):
    s = te.create_schedule(out.op)
    f = tvm.build(s, [*ins, out, *extra[0:1]] if extra else [*ins, out])
    res = tvm.nd.empty(tuple(int(x) for x in out.shape), out.dtype)
    f(*[tvm.nd.array(a) for a in arrays], res, *extra[1:2])
    return res.numpy()


@pytest.mark.parametrize("transa,transb", [(False, False), (True, False), (False, True),
                                           (True, True)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matmul_matches_numpy(transa, transb, dtype):
    rng = np.random.default_rng(7)
    n, k, m = 37, 19, 23
    a = rng.standard_normal((k, n) if transa else (n, k)).astype(dtype)
    b = rng.standard_normal((m, k) if transb else (k, m)).astype(dtype)
    A = te.placeholder(a.shape, dtype=dtype, name="A")
    B = te.placeholder(b.shape, dtype=dtype, name="B")
    C = cblas.matmul(A, B, transa, transb)
    assert [int(x) for x in C.shape] == [n, m]
    got = _run(C, [A, B], [a, b])
    want = (a.T if transa else a) @ (b.T if transb else b)
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


def test_matmul_feeds_a_compute_with_a_scalar_argument():
    rng = np.random.default_rng(1)
    a, b = rng.random((31, 9), dtype="float32"), rng.random((9, 13), dtype="float32")
    A, B = te.placeholder(a.shape, name="A"), te.placeholder(b.shape, name="B")
    bias = te.var("bias", dtype="float32")
    C = cblas.matmul(A, B)
    D = te.compute(C.shape, lambda i, j: C[i, j] + bias, name="D")
    f = tvm.build(te.create_schedule(D.op), [A, B, D, bias])
    d = tvm.nd.empty((31, 13), "float32")
    f(tvm.nd.array(a), tvm.nd.array(b), d, 2.5)
    np.testing.assert_allclose(d.numpy(), a @ b + 2.5, rtol=1e-5)


def test_registered_packed_function_by_classic_name():
    assert tvm.get_global_func("tvm.contrib.cblas.matmul", allow_missing=True) is not None


@pytest.mark.parametrize("rhs_batch", [1, 3])
def test_batch_matmul(rhs_batch):
    rng = np.random.default_rng(3)
    a = rng.random((3, 5, 7), dtype="float32")
    b = rng.random((rhs_batch, 11, 7), dtype="float32")
    A, B = te.placeholder(a.shape, name="A"), te.placeholder(b.shape, name="B")
    C = cblas.batch_matmul(A, B, transb=True)
    got = _run(C, [A, B], [a, b])
    np.testing.assert_allclose(got, a @ np.swapaxes(b, 1, 2), rtol=1e-5)


def test_integer_dtype_is_a_clear_error():
    A = te.placeholder((4, 4), dtype="int32", name="A")
    B = te.placeholder((4, 4), dtype="int32", name="B")
    C = cblas.matmul(A, B)
    f = tvm.build(te.create_schedule(C.op), [A, B, C])
    x = tvm.nd.array(np.ones((4, 4), "int32"))
    with pytest.raises(tvm.TVMError, match="int32 is not supported"):
        f(x, x, tvm.nd.empty((4, 4), "int32"))


def test_missing_library_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(cblas, "_candidate_libraries", lambda: [])
    cblas._gemm.cache_clear()
    try:
        with pytest.raises(tvm.TVMError, match="no CBLAS library found"):
            cblas._gemm("float32")
        assert not cblas.library_found()
    finally:
        cblas._gemm.cache_clear()
