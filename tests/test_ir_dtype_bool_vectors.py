"""Boolean vectors are spelt ``uint1xN`` as classic TVM prints them (a scalar stays ``bool``);
``boolxN`` is read as the same type, and vectorized comparisons still compute like numpy."""
import numpy as np

import tvmlite as tvm
from tvmlite import te
from tvmlite.ir import dtype as _dt


def test_spellings():
    assert _dt.with_lanes("bool", 4) == "uint1x4"
    assert _dt.with_lanes("uint1x4", 1) == "bool"
    assert _dt.element("uint1x4") == "bool" and _dt.lanes("uint1x4") == 4
    assert _dt.canonical("boolx4") == "uint1x4" and _dt.canonical("uint1") == "bool"
    assert _dt.parse("uint1x2") == _dt.parse("boolx2") and _dt.is_bool("uint1x2")
    assert _dt.canonical("bool") == "bool"


def test_vector_predicates_have_the_classic_dtype():
    k = te.var("k", "int8x2")
    assert str(tvm.tir.isnan(k).dtype) == "uint1x2"
    a = te.var("a", "int32x4")
    assert (a < a + 1).dtype == "uint1x4"
    assert tvm.tir.Broadcast(tvm.tir.const(True, "bool"), 4).dtype == "uint1x4"


def test_vectorized_compare_and_select_compute_like_numpy():
    n = 64
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: tvm.tir.Select(A[i] < B[i], A[i] * 2.0, B[i] - 1.0),
                   name="C")
    s = te.create_schedule(C.op)
    _, xi = s[C].split(C.op.axis[0], factor=8)
    s[C].vectorize(xi)
    f = tvm.build(s, [A, B, C], "llvm")
    a, b = (np.random.rand(n).astype("float32") for _ in range(2))
    c = tvm.nd.empty((n,))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), np.where(a < b, a * 2, b - 1), rtol=1e-6)
