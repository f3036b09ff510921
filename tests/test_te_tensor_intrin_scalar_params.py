"""``te.decl_tensor_intrin(..., scalar_params=[...])``: the implementation receives the
scalar variables; tensorize binds them to the function's scalar arguments."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te

N = 8


def _axpb():
    x = te.placeholder((N,), name="x")
    v, w = te.var("v", "float32"), te.var("w", "float32")
    z = te.compute((N,), lambda i: x[i] * v + w, name="z")
    seen = {}

    def impl(ins, outs, sp):
        seen["sp"] = list(sp)
        ib = tvm.tir.ir_builder.create()
        with ib.for_range(0, N, "k") as k:
            ib.emit(outs[0].vstore(k, ins[0].vload(k) * sp[0] + sp[1]))
        return ib.get()

    intrin = te.decl_tensor_intrin(z.op, impl, scalar_params=[v, w],
                                   default_buffer_params={"offset_factor": 1})
    return intrin, v, w, seen


def test_scalar_params_reach_the_implementation():
    intrin, v, w, seen = _axpb()
    assert seen["sp"][0] is v and seen["sp"][1] is w
    assert tuple(intrin.scalar_params) == (v, w)
    assert intrin.buffers[0].shape[0].value == N


def test_tensorize_with_scalar_params_runs():
    intrin, v, w, _ = _axpb()
    A = te.placeholder((3, 24), name="A")
    C = te.compute((3, 24), lambda i, j: A[i, j] * v + w, name="C")
    s = te.create_schedule(C.op)
    _, ji = s[C].split(C.op.axis[1], factor=N)
    s[C].tensorize(ji, intrin)
    f = tvm.build(s, [A, C, v, w])
    a = np.random.rand(3, 24).astype("float32")
    c = tvm.nd.array(np.zeros((3, 24), "float32"))
    f(tvm.nd.array(a), c, 2.5, -0.5)
    np.testing.assert_allclose(c.numpy(), a * 2.5 - 0.5, rtol=1e-5, atol=1e-6)


def test_calling_an_intrin_inside_compute():
    """Classic TensorComputeOp: the call takes regions and the scalar inputs; a call missing
    the scalars is a clear error, a full one computes the intrinsic over each region."""
    intrin, *_ = _axpb()
    A = te.placeholder((5, N), name="A")
    with pytest.raises(tvm.TVMError, match="takes 2 scalar input"):
        te.compute((1,), lambda i: intrin(A[0, 0:N]), name="C")
    C = te.compute((5, N), lambda i: intrin(A[i, 0:N], i.astype("float32"), 0.5), name="C")
    f = tvm.build(te.create_schedule(C.op), [A, C])
    a = np.random.rand(5, N).astype("float32")
    c = tvm.nd.array(np.zeros((5, N), "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * np.arange(5, dtype="float32")[:, None] + 0.5,
                               rtol=1e-5)
