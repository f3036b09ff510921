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


def test_long_axis_and_symbolic_extents():
    """A 200,000-long walk (linear: the old quadratic form took minutes) and symbolic
    extents, an empty axis included."""
    x = RNG.uniform(-1, 1, (2, 100_003)).astype("float64")
    X = te.placeholder(x.shape, "float64", "X")
    np.testing.assert_allclose(run(topi.cumsum(X, 1), X, x), np.cumsum(x, 1), rtol=1e-9)
    np.testing.assert_allclose(run(topi.cumsum(X), X, x), np.cumsum(x), rtol=1e-9)
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    out = topi.cumsum(X, 1, exclusive=True)
    f = tvm.build(topi.generic.schedule_extern([out]), [X, out], "llvm")
    for shape in [(3, 5), (1, 1), (4, 0), (0, 3)]:
        x = RNG.uniform(-1, 1, shape).astype("float32")
        res = tvm.nd.array(np.full(shape, 7, "float32"))
        f(tvm.nd.array(x), res)
        np.testing.assert_allclose(res.numpy(), np.cumsum(x, 1) - x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape,axis", [((7,), 0), ((5, 300), 1), ((300, 3), 0), ((2, 3, 4), 1)])
def test_gpu_scan_binds_a_thread_per_line(shape, axis, monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")
    x = RNG.uniform(0.5, 1.5, shape).astype("float32")
    X = te.placeholder(shape, name="X")
    with tvm.target.Target("cuda"):
        out = topi.cuda.cumprod(X, axis, exclusive=True)
        s = topi.cuda.schedule_scan([out])
    f = tvm.build(s, [X, out], "cuda")
    dev = tvm.cuda(0)
    res = tvm.nd.empty(shape, "float32", dev)
    f(tvm.nd.array(x, dev), res)
    np.testing.assert_allclose(res.numpy(), exclusive_of(np.cumprod(x, axis), x, axis, 1),
                               rtol=1e-5)
    if x.size > shape[axis]:  # several lines: several threads
        assert "threadIdx.x" in f.imported_modules[0].get_source()


def test_a_stage_read_by_the_extern_walk_stays_in_memory():
    """The flattening reshape of ``axis=None`` feeds the extern walk: the default inlining
    schedules leave it a stage, and inlining it by hand is an error naming both."""
    x = RNG.uniform(-1, 1, (3, 4)).astype("float32")
    X = te.placeholder(x.shape, name="X")
    out = topi.cumsum(X)
    f = tvm.build(topi.generic.schedule_reduce([out]), [X, out], "llvm")
    res = tvm.nd.empty((12,))
    f(tvm.nd.array(x), res)
    np.testing.assert_allclose(res.numpy(), np.cumsum(x), rtol=1e-5)
    s = te.create_schedule(out.op)
    with pytest.raises(tvm.TVMError, match="compute_inline: cannot inline T_reshape: "
                                           "T_cumsum .*reads it from memory"):
        s[out.op.input_tensors[0]].compute_inline()
