"""topi.nn.matmul (all transposes, bias, out_dtype) and topi.matmul, built and compared with
numpy on odd sizes; dense shares the compute."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite._classic import UnsupportedError
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(3)


def run(out, inputs, arrays):
    f = tvm.build(topi.generic.schedule_dense(out), list(inputs) + [out], "llvm")
    res = tvm.nd.array(np.zeros([int(x) for x in out.shape], out.dtype))
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 7, 5), (13, 2, 9)])
def test_nn_matmul(ta, tb, m, k, n):
    a = RNG.uniform(-1, 1, (k, m) if ta else (m, k)).astype("float32")
    b = RNG.uniform(-1, 1, (n, k) if tb else (k, n)).astype("float32")
    bias = RNG.uniform(-1, 1, n).astype("float32")
    A, B, C = (te.placeholder(x.shape, name=nm) for x, nm in ((a, "A"), (b, "B"), (bias, "C")))
    want = (a.T if ta else a) @ (b.T if tb else b)
    out = topi.nn.matmul(A, B, transpose_a=ta, transpose_b=tb)
    assert out.op.name == "T_matmul_" + "NT"[ta] + "NT"[tb]
    assert out.op.tag == ("dense" if (ta, tb) == (False, True) else "matmul")
    np.testing.assert_allclose(run(out, [A, B], [a, b]), want, rtol=1e-5, atol=1e-5)
    out = topi.nn.matmul(A, B, C, transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(run(out, [A, B, C], [a, b, bias]), want + bias, rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(run(topi.matmul(A, B, ta, tb), [A, B], [a, b]), want,
                               rtol=1e-5, atol=1e-5)


def test_nn_matmul_out_dtype_and_errors():
    a = RNG.integers(-100, 100, (5, 3)).astype("int8")
    b = RNG.integers(-100, 100, (3, 4)).astype("int8")
    A, B = te.placeholder(a.shape, "int8", "A"), te.placeholder(b.shape, "int8", "B")
    out = topi.nn.matmul(A, B, out_dtype="int32")
    assert out.dtype == "int32"
    np.testing.assert_array_equal(run(out, [A, B], [a, b]),
                                  a.astype("int32") @ b.astype("int32"))
    with pytest.raises(TopiError, match="reduced dimensions differ"):
        topi.nn.matmul(A, B, transpose_b=True)
    with pytest.raises(TopiError, match="must be 2-D"):
        topi.nn.matmul(te.placeholder((2, 3, 4)), B)
    with pytest.raises(TopiError, match="bias"):
        topi.nn.matmul(A, B, te.placeholder((5,), "int8"))
    with pytest.raises(UnsupportedError):
        topi.nn.matmul(A, B, auto_scheduler_rewritten_layout="NK4n")
