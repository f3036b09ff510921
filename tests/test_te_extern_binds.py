"""te.extern with registered Python functions, decl_buffer/binds, and small runtime helpers,
through tvm.build."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


def test_extern_call_packed_into_registered_python_function():
    @tvm.register_func("tvmlite.test.addone", override=True)
    def addone(x, y):
        y.copyfrom(x.numpy() + 1)

    n = 10
    A = te.placeholder((n,), name="A")
    B = te.extern(A.shape, [A], lambda ins, outs: tvm.tir.call_packed(
        "tvmlite.test.addone", ins[0], outs[0]), name="B")
    C = te.compute((n,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    f = tvm.build(s, [A, C])
    a = tvm.nd.array(np.arange(n, dtype="float32"))
    c = tvm.nd.empty((n,), "float32")
    f(a, c)
    np.testing.assert_equal(c.numpy(), (np.arange(n) + 1) * 2)


def test_extern_python_exception_becomes_tvmerror():
    @tvm.register_func("tvmlite.test.fails", override=True)
    def fails(x, y):
        raise ValueError("boom from python")

    A = te.placeholder((4,), name="A")
    B = te.extern(A.shape, [A], lambda ins, outs: tvm.tir.call_packed(
        "tvmlite.test.fails", ins[0], outs[0]), name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    with pytest.raises(tvm.TVMError, match="boom from python"):
        f(tvm.nd.array(np.zeros(4, "float32")), tvm.nd.empty((4,), "float32"))


def test_decl_buffer_binds_with_strides():
    n, m = 6, 5
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 3, name="B")
    s = te.create_schedule(B.op)
    Ab = tvm.tir.decl_buffer(A.shape, A.dtype, name="A", strides=[8, 1])
    f = tvm.build(s, [A, B], binds={A: Ab})
    base = np.arange(n * 8, dtype="float32").reshape(n, 8)
    # a strided view is rejected (the kernel expects the strides it was built for)
    with pytest.raises(tvm.TVMError):
        f(tvm.nd.array(base[:, :m]), tvm.nd.empty((n, m), "float32"))


def test_assert_allclose_and_target_context():
    tvm.testing.assert_allclose(tvm.nd.array(np.ones(3, "float32")), np.ones(3))
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose(np.ones(3), np.zeros(3))
    with tvm.target.Target("llvm") as t:
        assert tvm.target.Target.current() is t
        A = te.placeholder((3,), name="A")
        B = te.compute((3,), lambda i: A[i] + 1, name="B")
        f = tvm.build(te.create_schedule(B.op), [A, B])  # target taken from the context
    assert tvm.target.Target.current(allow_none=True) is None
    b = tvm.nd.empty((3,), "float32")
    f(tvm.nd.array(np.zeros(3, "float32")), b)
    np.testing.assert_equal(b.numpy(), np.ones(3))
