"""Classic TE: a stage whose tensor is also a function argument may be attached or inlined."""
import numpy as np

import tvmlite as tvm
from tvmlite import te


def _chain(n):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    C = te.compute((n,), lambda i: B[i] * 2, name="C")
    return A, B, C


def _run(s, args, n):
    f = tvm.build(s, args)
    a = np.random.rand(n).astype("float32")
    nds = [tvm.nd.array(a)] + [tvm.nd.array(np.full(n, -7, "float32")) for _ in args[1:]]
    f(*nds)
    return a, [x.numpy() for x in nds[1:]]


def test_compute_at_of_an_argument_stage_writes_it():
    m = te.var("m")
    A, B, C = _chain(m)
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    text = str(tvm.lower(s, [A, B, C], simple_mode=True))
    assert "var_B" in text
    a, (b, c) = _run(s, [A, B, C], 13)
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)
    np.testing.assert_allclose(c, (a + 1) * 2, rtol=1e-6)


def test_argument_order_is_kept_when_the_attached_tensor_comes_last():
    A, B, C = _chain(11)
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    f = tvm.build(s, [A, C, B])
    a = np.random.rand(11).astype("float32")
    c, b = tvm.nd.array(np.zeros(11, "float32")), tvm.nd.array(np.zeros(11, "float32"))
    f(tvm.nd.array(a), c, b)
    np.testing.assert_allclose(b.numpy(), a + 1, rtol=1e-6)
    np.testing.assert_allclose(c.numpy(), (a + 1) * 2, rtol=1e-6)


def test_inlined_argument_stage_is_left_unwritten():
    A, B, C = _chain(9)
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    a, (b, c) = _run(s, [A, B, C], 9)
    np.testing.assert_allclose(c, (a + 1) * 2, rtol=1e-6)
    np.testing.assert_array_equal(b, np.full(9, -7, "float32"))  # classic: B is not computed
