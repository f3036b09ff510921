"""topi's inverse and hyperbolic trigonometry, float tests, reinterpret and the bool
reductions ``all`` / ``any``, built with the default schedule and compared with numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi

RNG = np.random.default_rng(7)


def run(out, inputs, arrays):
    s = te.create_schedule(out.op)
    f = tvm.build(s, list(inputs) + [out], "llvm")
    dev = tvm.cpu()
    res = tvm.nd.array(np.zeros([int(x) for x in out.shape], out.dtype), dev)
    f(*[tvm.nd.array(a, dev) for a in arrays], res)
    return res.numpy()


@pytest.mark.parametrize("name,npf,lo,hi", [
    ("tan", np.tan, -1.4, 1.4), ("sinh", np.sinh, -3, 3), ("cosh", np.cosh, -3, 3),
    ("asin", np.arcsin, -1, 1), ("acos", np.arccos, -1, 1), ("atan", np.arctan, -9, 9),
    ("asinh", np.arcsinh, -9, 9), ("acosh", np.arccosh, 1, 9), ("atanh", np.arctanh, -0.99, 0.99)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trig(name, npf, lo, hi, dtype):
    x = RNG.uniform(lo, hi, (3, 7)).astype(dtype)
    X = te.placeholder(x.shape, dtype, name="X")
    Y = getattr(topi, name)(X)
    assert Y.dtype == dtype and Y.op.tag == "elemwise" and Y.op.name == "compute"
    tol = 2e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(run(Y, [X], [x]), npf(x), rtol=tol, atol=tol)


def test_trig_intrinsics_print_in_c():
    X = te.placeholder((4,), "float32", name="X")
    Y = topi.atanh(topi.acosh(topi.asinh(X)))
    src = tvm.build(te.create_schedule(Y.op), [X, Y], "c").get_source()
    assert all(f"{n}f(" in src for n in ("asinh", "acosh", "atanh")), src
    assert tvm.te.isinf(tvm.tir.const(1, "int32")).value == 0
    assert tvm.tir.isfinite(tvm.tir.const(1, "int8")).value == 1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_isinf_isfinite(dtype):
    x = np.array([0.0, -1.5, np.inf, -np.inf, np.nan, 3e30], dtype)
    X = te.placeholder(x.shape, dtype, name="X")
    for name, npf in (("isinf", np.isinf), ("isfinite", np.isfinite), ("isnan", np.isnan)):
        Y = getattr(topi, name)(X)
        assert Y.dtype == "bool"
        np.testing.assert_array_equal(run(Y, [X], [x]), npf(x))


def test_isinf_isfinite_int():
    X = te.placeholder((3,), "int32", name="X")
    x = np.array([1, -2, 3], "int32")
    np.testing.assert_array_equal(run(topi.isinf(X), [X], [x]), [False] * 3)
    np.testing.assert_array_equal(run(topi.isfinite(X), [X], [x]), [True] * 3)


def test_reinterpret():
    x = RNG.standard_normal((5, 3)).astype("float32")
    X = te.placeholder(x.shape, "float32", name="X")
    Y = topi.reinterpret(X, "int32")
    assert Y.dtype == "int32" and Y.op.name == "tensor"
    np.testing.assert_array_equal(run(Y, [X], [x]), x.view("int32"))


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, True), (-1, False), ((0, 2), True)])
def test_all_any(name, axis, keepdims):
    x = RNG.random((3, 5, 4)) < (0.9 if name == "all" else 0.1)
    X = te.placeholder(x.shape, "bool", name="X")
    Y = getattr(topi, name)(X, axis, keepdims)
    assert Y.dtype == "bool" and Y.op.tag == "comm_reduce"
    want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
    np.testing.assert_array_equal(run(Y, [X], [x]), want)


@pytest.mark.parametrize("name, npf", [("fast_exp", np.exp), ("fast_tanh", np.tanh),
                                       ("fast_erf", None)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_fast_math_dtypes(name, npf, dtype):
    # classic: float32 by the polynomial, fast_erf float16 too, other dtypes the exact op
    from math import erf

    npf = npf or np.vectorize(erf)
    x = RNG.uniform(-3, 3, (5, 9)).astype(dtype)
    X = te.placeholder(x.shape, dtype, name="X")
    Y = getattr(topi, name)(X)
    assert Y.dtype == dtype and Y.op.name == "T_" + name
    tol = {"float16": 2e-3, "float32": 1e-5, "float64": 1e-12}[dtype]
    got = run(Y, [X], [x]).astype("float64")
    np.testing.assert_allclose(got, npf(x.astype("float64")), rtol=tol, atol=tol)
