"""Tensor arithmetic operators scheduled with classic ``topi.testing``'s per-target schedule
lookup, against numpy; devices classic names without a runtime here."""
import numpy as np

import tvmlite as tvm
from tvmlite import te, topi


def test_schedule_lookup_follows_the_target_keys():
    assert tvm.topi.testing.get_elemwise_schedule("llvm") is topi.x86.schedule_injective
    assert tvm.topi.testing.get_broadcast_schedule("c") is topi.x86.schedule_injective
    assert tvm.topi.testing.get_reduce_schedule("llvm") is topi.x86.schedule_reduce
    assert tvm.topi.testing.get_conv2d_nchw_implement("llvm") == (
        topi.x86.conv2d_nchw, topi.x86.schedule_conv2d_nchw)
    assert tvm.topi.testing.get_injective_schedule("cuda") is topi.cuda.schedule_injective


def test_tensor_scalar_and_broadcast_ops_with_the_looked_up_schedule():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    B = te.placeholder((m,), name="B")
    k = te.var("k", "float32")
    C = (A - k) * 3 / B + B
    with tvm.target.Target("llvm"):
        s = tvm.topi.testing.get_broadcast_schedule("llvm")(C)
    f = tvm.build(s, [A, B, k, C], "llvm")
    a = np.random.uniform(size=(7, 13)).astype("float32")
    b = np.random.uniform(1, 2, size=(13,)).astype("float32")
    c = tvm.nd.array(np.zeros((7, 13), "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), 0.5, c)
    np.testing.assert_allclose(c.numpy(), (a - 0.5) * 3 / b + b, rtol=1e-5)


def test_conv2d_plus_scalar_with_the_looked_up_implementation():
    conv, sched = tvm.topi.testing.get_conv2d_nchw_implement("llvm")
    with tvm.target.Target("llvm"):
        A = te.placeholder((1, 3, 9, 9), name="A")
        W = te.placeholder((5, 3, 3, 3), name="W")
        C = conv(A, W, 1, 1, (1, 1), "float32") - 10.0
        s = sched([C])
    f = tvm.build(s, [A, W, C], "llvm")
    a = np.random.uniform(size=(1, 3, 9, 9)).astype("float32")
    w = np.random.uniform(size=(5, 3, 3, 3)).astype("float32")
    c = tvm.nd.array(np.zeros((1, 5, 9, 9), "float32"))
    f(tvm.nd.array(a), tvm.nd.array(w), c)
    ref = tvm.topi.testing.conv2d_nchw_python(a, w, 1, 1) - 10.0
    np.testing.assert_allclose(c.numpy(), ref, rtol=1e-4, atol=1e-4)


def test_devices_without_a_runtime_exist_as_names():
    d = tvm.device("rocm", 0)
    assert d.device_type == 10 and repr(d) == "rocm(0)" and not d.exist
