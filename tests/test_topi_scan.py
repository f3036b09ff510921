"""topi.cumsum / cumprod / scanop against numpy (every axis, exclusive, dtype conversions,
odd sizes)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir, topi

RNG = np.random.default_rng(19)


def run(out, inp, x):
    f = tvm.build(topi.generic.schedule_extern([out]), [inp, out], "llvm")
    res = tvm.nd.array(np.zeros([int(d) for d in out.shape], out.dtype))
    f(tvm.nd.array(x), res)
    return res.numpy()


def exclusive_of(inclusive, x, axis, identity):
    """Each position combines the elements before it: inclusive result shifted by one."""
    if axis is None:
        inclusive, axis = inclusive.reshape(-1), 0
    out = np.roll(inclusive, 1, axis=axis)
    idx = [slice(None)] * out.ndim
    idx[axis] = 0
    out[tuple(idx)] = identity
    return out


@pytest.mark.parametrize("name,npf,identity", [("cumsum", np.cumsum, 0),
                                               ("cumprod", np.cumprod, 1)])
@pytest.mark.parametrize("shape,axis", [((7,), None), ((5, 3), 0), ((5, 3), 1),
                                        ((3, 4, 5), -1), ((3, 4, 5), None), ((2, 9, 3), 1)])
@pytest.mark.parametrize("dtype,out_dtype", [("float32", None), ("int32", "int64"),
                                             ("float64", None), ("bool", "int32")])
@pytest.mark.parametrize("exclusive", [False, True])
def test_scan(name, npf, identity, shape, axis, dtype, out_dtype, exclusive):
    if dtype == "bool":
        x = RNG.random(shape) > 0.4
    elif dtype.startswith("int"):
        x = RNG.integers(-3, 4, shape).astype(dtype)
    else:
        x = RNG.uniform(0.5, 1.5, shape).astype(dtype)
    want = npf(x, axis=axis, dtype=out_dtype or dtype)
    if exclusive:
        want = exclusive_of(want, x, axis, identity)
    X = te.placeholder(shape, dtype, "X")
    out = getattr(topi, name)(X, axis, out_dtype, exclusive=exclusive)
    assert out.dtype == (out_dtype or dtype)
    np.testing.assert_allclose(run(out, X, x), want, rtol=1e-5)


def test_scanop_with_a_custom_binop():
    x = RNG.uniform(-5, 5, (4, 6)).astype("float32")
    X = te.placeholder(x.shape, name="X")
    out = topi.scanop(X, tir.max, -np.inf, "cummax", axis=1)
    np.testing.assert_allclose(run(out, X, x), np.maximum.accumulate(x, axis=1))
