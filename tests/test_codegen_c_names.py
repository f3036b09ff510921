"""User names can never break the C: variables are made unique and legal, function names that
C cannot take are TVMErrors naming them (never raw compiler output)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import from_source


@pytest.mark.parametrize("name", ["A", "int", "for", "my var", "1x", "restrict", "ä", "",
                                  "__tvmlite_get_last_error", "tvml_x", "A-B", "printf"])
def test_any_tensor_name_builds_and_is_right(name):
    A = te.placeholder((7,), name=name)
    B = te.placeholder((7,), name=name)          # two placeholders with the same name
    C = te.compute((7,), lambda i: A[i] - B[i] * 2.0, name=name)
    f = tvm.build(te.create_schedule(C.op), [A, B, C])
    a, b = np.random.rand(7).astype("float32"), np.random.rand(7).astype("float32")
    c = tvm.nd.empty((7,))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a - b * 2, rtol=1e-6)


@pytest.mark.parametrize("name, match", [("int", "reserved"), ("NULL", "reserved"),
                                         ("tvml_f", "reserved"), ("malloc", "clashes"),
                                         ("printf", "clashes"), ("my func", "C identifier"),
                                         ("__tvmlite_metadata", "reserved")])
def test_function_names_c_cannot_take_are_tvmerrors(name, match):
    A = te.placeholder((7,), name="A")
    C = te.compute((7,), lambda i: A[i] + 1.0, name="C")
    with pytest.raises(tvm.TVMError, match=match) as info:
        tvm.build(te.create_schedule(C.op), [A, C], name=name)
    assert name in str(info.value) and "Compiler output" not in str(info.value)


@pytest.mark.parametrize("name", ["exp", "isfinite", "isnan", "floor", "pow", "sqrtf"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kernel_named_after_a_c_library_function_builds_and_is_right(name, dtype):
    # classic tests name a kernel after its op; the kernel's own exp/isfinite calls must
    # still reach the C library's
    A = te.placeholder((19,), name="A", dtype=dtype)
    C = te.compute((19,), lambda i: te.exp(A[i]) + te.isfinite(A[i]).astype(dtype), name="C")
    f = tvm.build(te.create_schedule(C.op), [A, C], name=name)
    a = np.random.uniform(-3, 3, 19).astype(dtype)
    a[4] = np.inf
    c = tvm.nd.empty((19,), dtype)
    f[name](tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), np.exp(a) + np.isfinite(a), rtol=1e-6)
    assert f"int32_t {name}(" not in f.get_source()  # the C function is named apart


def test_kernel_named_exp_survives_export_and_load(tmp_path):
    A = te.placeholder((5,), name="A", dtype="float64")
    C = te.compute((5,), lambda i: te.exp(A[i]), name="C")
    path = str(tmp_path / "exp.so")
    tvm.build(te.create_schedule(C.op), [A, C], name="exp").export_library(path)
    f = tvm.runtime.load_module(path)
    a = np.linspace(-1, 1, 5)
    c = tvm.nd.empty((5,), "float64")
    f["exp"](tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), np.exp(a), rtol=1e-12)


def test_handle_buffer_given_floats_is_a_clear_error():
    f = from_source('''
@T.prim_func
def f(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "handle")):
    for i in range(10):
        B[i] = A[i]
''')
    with pytest.raises(tvm.TVMError, match="stores a float32 value into a buffer of dtype "
                                           "handle"):
        tvm.build(f)
