"""te.extern_primfunc: a TVMScript PrimFunc inlined into a TE extern op, scheduled and built
with the TE around it, compared with numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T


@T.prim_func
def scale_add(A: T.Buffer((13, 7), "float32"), B: T.Buffer((7,), "float32"),
              C: T.Buffer((13, 7), "float32")):
    for i, j in T.grid(13, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * T.float32(2) + B[vj]


@T.prim_func
def accumulate(X: T.Buffer((5,), "float32"), S: T.Buffer((1,), "float32")):
    for i in range(5):
        with T.block("acc"):
            vi = T.axis.remap("R", [i])
            S[0] = S[0] + X[vi]
            X[vi] = X[vi] * T.float32(3)


def test_extern_primfunc_inside_te_graph():
    rng = np.random.default_rng(0)
    A = te.placeholder((13, 7), name="A")
    B = te.placeholder((7,), name="B")
    C = te.extern_primfunc([A, B], scale_add, name="ext")
    assert C.shape[0].value == 13 and C.op.input_tensors == [A, B]
    D = te.compute((13, 7), lambda i, j: C[i, j] - 1.0, name="D")
    s = te.create_schedule(D.op)
    xo, xi = s[D].split(D.op.axis[0], factor=4)  # non-divisible split of the consumer
    f = tvm.build(s, [A, B, D])
    a = rng.standard_normal((13, 7)).astype("float32")
    b = rng.standard_normal(7).astype("float32")
    d = tvm.nd.empty((13, 7), "float32")
    f(tvm.nd.array(a), tvm.nd.array(b), d)
    np.testing.assert_allclose(d.numpy(), a * 2 + b - 1, rtol=1e-6)


def test_extern_primfunc_in_place_output_is_last_read_written_buffer():
    # X and S are both read and written: S (the last) is the output, X the only input
    X = te.placeholder((5,), name="X")
    S = te.extern_primfunc([X], accumulate)
    assert S.shape[0].value == 1 and S.op.input_tensors == [X]
    f = tvm.build(te.create_prim_func([X, S]))
    x = np.arange(5, dtype="float32") + 0.5
    xs, ss = tvm.nd.array(x), tvm.nd.array(np.array([10.0], "float32"))
    f(xs, ss)
    np.testing.assert_allclose(ss.numpy(), [10 + x.sum()])
    np.testing.assert_allclose(xs.numpy(), x * 3)


def test_extern_primfunc_bad_inputs():
    A = te.placeholder((13, 7), name="A")
    with pytest.raises(tvm.TVMError, match="2 input buffers"):
        te.extern_primfunc([A], scale_add)
    B = te.placeholder((8,), name="B")
    with pytest.raises(tvm.TVMError, match="shape"):
        te.extern_primfunc([A, B], scale_add)
    with pytest.raises(TypeError, match="PrimFunc"):
        te.extern_primfunc([A], None)
