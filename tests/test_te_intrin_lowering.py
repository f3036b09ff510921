"""Op attributes and intrinsic lowering rules (``tvm.ir.register_op_attr``,
``register_intrin_lowering``) applied by ``tvm.build``; CUDA device math in the CPU emulation;
the OpenCL source of a GPU schedule."""
import itertools

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import TVMError
from tvmlite.ir import Op, register_intrin_lowering, register_op_attr

_fresh = itertools.count()


def _op_name() -> str:
    return f"tir.te2_test_op{next(_fresh)}"  # the registry is global: one op per test


def _build(op_name: str, n, target="llvm"):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: tvm.tir.call_intrin("float32", op_name, A[i]), name="B")
    s = te.create_schedule(B.op)
    return tvm.build(s, [A, B], target)


def _run(f, n):
    a = np.random.uniform(0.5, 2.0, n).astype("float32")
    b = tvm.nd.array(np.zeros(n, "float32"))
    f(tvm.nd.array(a), b)
    return a, b.numpy()


def test_cpu_rule_rewrites_a_custom_intrinsic():
    name = _op_name()
    seen = []

    def rule(call):
        assert isinstance(call, tvm.tir.Call)
        seen.append(call.op.name)
        return tvm.tir.call_pure_extern("float32", "logf", call.args[0])

    register_op_attr(name, "TCallEffectKind", tvm.tir.CallEffectKind.Pure)
    register_intrin_lowering(name, target="llvm", f=rule, level=99)
    assert Op.get(name).get_attr("TCallEffectKind").value == 1
    a, b = _run(_build(name, 37), 37)
    np.testing.assert_allclose(b, np.log(a), rtol=1e-6)
    assert seen == [name]
    # "c" is the same CPU backend: it finds the llvm rule
    a, b = _run(_build(name, 19, "c"), 19)
    np.testing.assert_allclose(b, np.log(a), rtol=1e-6)


def test_a_higher_level_rule_wins_and_the_build_cache_sees_it():
    name = _op_name()
    register_intrin_lowering(name, "default", f=lambda c: tvm.tir.call_pure_extern(
        "float32", "sqrtf", c.args[0]), level=10)
    a, b = _run(_build(name, 23), 23)
    np.testing.assert_allclose(b, np.sqrt(a), rtol=1e-6)

    @register_intrin_lowering(name, "llvm", level=20)
    def rule(call):
        return tvm.tir.call_pure_extern("float32", "expf", call.args[0])

    a, b = _run(_build(name, 23), 23)  # the same schedule again: rebuilt with the new rule
    np.testing.assert_allclose(b, np.exp(a), rtol=1e-6)
    register_intrin_lowering(name, "llvm", f=lambda c: None, level=5)  # lower level: ignored
    a, b = _run(_build(name, 23), 23)
    np.testing.assert_allclose(b, np.exp(a), rtol=1e-6)
    with pytest.raises(TVMError, match="same priority level 20"):
        register_intrin_lowering(name, "llvm", f=rule, level=20)


def test_rule_returning_the_call_keeps_it_and_a_bad_rule_is_named():
    name = _op_name()
    register_intrin_lowering(name, "llvm", f=lambda c: c)
    exp = tvm.tir.exp(te.var("x", "float32"))
    assert tvm.tir.transform.LowerIntrin("llvm")(
        tvm.tir.PrimFunc([], tvm.tir.Evaluate(exp))).body.value is exp
    bad = _op_name()
    register_intrin_lowering(bad, "llvm", f=lambda c: "logf")
    with pytest.raises(TVMError, match=f"lowering rule of {bad} for llvm returned 'logf'"):
        _build(bad, 7)


def test_cuda_device_math_runs_in_the_emulation(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: tvm.tir.call_pure_extern("float32", "__expf", A[i]) +
                   tvm.tir.call_pure_extern("float32", "__fdividef", A[i], 3.0), name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=64)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    f = tvm.build(s, [A, B], "cuda")
    assert "__expf(" in f.imported_modules[0].get_source()
    dev = tvm.cuda(0)
    a = np.random.rand(131).astype("float32")
    b = tvm.nd.array(np.zeros(131, "float32"), dev)
    f(tvm.nd.array(a, dev), b)
    np.testing.assert_allclose(b.numpy(), np.exp(a) + a / 3, rtol=1e-5)


def test_opencl_source():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: te.exp(A[i]), name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=64)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    f = tvm.build(s, [A, B], "opencl", name="myexp")
    dev_mod = f.imported_modules[0]
    src = dev_mod.get_source()
    assert dev_mod.type_key == "opencl"
    assert "__kernel void myexp_kernel0(__global float* restrict B" in src
    assert "get_group_id(0)) * 64) + ((int)get_local_id(0))" in src
    assert "= exp(A[" in src and "__builtin_expect" not in src
    with pytest.raises(TVMError, match="OpenCL runtime"):
        dev_mod()
