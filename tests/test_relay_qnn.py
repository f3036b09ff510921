"""relay.qnn: each QNN op lowered by CanonicalizeOps (run by relay.build), against a numpy
reference of classic's integer semantics on random inputs of odd sizes (exact results), plus
the type relations' errors, requantize_config, Legalize per target and the lookup tables."""
import math

import numpy as np
import pytest
from relay_helpers import build_run, kernel_names

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.relay import qnn
from tvmlite.topi.testing import conv2d_nchw_python, conv2d_transpose_nchw_python


# ------------------------------------------------------------------ numpy references
def ref_multiplier_shift(x):
    """Q31 significand and exponent: ``x = m * 2**(e - 31)``."""
    if x == 0:
        return 0, 0
    sig, exp = math.frexp(x)
    m = int(math.floor(sig * 2 ** 31 + 0.5))
    if m == 2 ** 31:
        m, exp = m // 2, exp + 1
    return m, exp


def ref_fixed_mul(v, multiplier, rounding):
    """``round(v * multiplier)`` the way classic's fixed-point requantize computes it, in
    Python integers (no overflow)."""
    m, s = ref_multiplier_shift(float(multiplier))
    n = 31 + max(-s, 0)
    out = []
    for x in np.asarray(v, dtype=np.int64).reshape(-1).tolist():
        p = (x << max(s, 0)) * m
        half = 1 << (n - 1)
        if rounding == "TONEAREST" and p < 0:
            half -= 1
        out.append((p + half) >> n)
    return np.array(out, dtype=np.int64).reshape(np.shape(v))


def ref_requantize(q, in_scale, in_zp, out_scale, out_zp, out_dtype, rounding="UPWARD",
                   axis=-1):
    q = np.asarray(q, dtype=np.int64)
    in_scale = np.asarray(in_scale, dtype=np.float32).reshape(-1)
    in_zp = np.asarray(in_zp, dtype=np.int64).reshape(-1)
    axis = axis % q.ndim
    bshape = [1] * q.ndim
    bshape[axis] = -1
    x = q - (in_zp.reshape(bshape) if in_zp.size > 1 else in_zp[0])
    out = np.empty_like(x)
    for c in range(in_scale.size):
        sel = (slice(None),) * axis + (slice(c, c + 1) if in_scale.size > 1 else slice(None),)
        mult = float(in_scale[c]) / float(np.float32(out_scale))
        out[sel] = x[sel] if float(in_scale[c]) == float(np.float32(out_scale)) else \
            ref_fixed_mul(x[sel], mult, rounding)
    out = out + out_zp
    info = np.iinfo(out_dtype)
    return np.clip(out, info.min, info.max).astype(out_dtype)


def ref_quantize(x, scale, zp, dtype, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    bshape = [1] * x.ndim
    bshape[axis] = -1
    s = np.asarray(scale, np.float32)
    z = np.asarray(zp, np.float32)
    s = s.reshape(bshape) if s.size > 1 else s.reshape(())
    z = z.reshape(bshape) if z.size > 1 else z.reshape(())
    info = np.iinfo(dtype)
    return np.clip(np.round(x / s) + z, info.min, info.max).astype(dtype)  # ties to even


def ref_dequantize(q, scale, zp, axis=-1):
    q = np.asarray(q)
    bshape = [1] * q.ndim
    bshape[axis] = -1
    s = np.asarray(scale, np.float32)
    z = np.asarray(zp, np.int32)
    s = s.reshape(bshape) if s.size > 1 else s.reshape(())
    z = z.reshape(bshape) if z.size > 1 else z.reshape(())
    return (q.astype(np.int32) - z).astype(np.float32) * s


def rand_q(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape).astype(dtype)


def c(value, dtype):
    return relay.const(np.asarray(value, dtype=dtype))


def run(expr, inputs):
    func = relay.Function(relay.analysis.free_vars(expr), expr)
    return build_run(func, inputs)[0][0]


# ------------------------------------------------------------------------ fixed point
@pytest.mark.parametrize("x", [0.5, 0.3, 1.0, 1.7, 3e-5, 0.9999999999, 123.456])
def test_fixed_point_multiplier_shift(x):
    m, s = qnn.op.canonicalizations.fixed_point_multiplier_shift(x)
    assert 2 ** 30 <= m < 2 ** 31
    assert abs(m * 2.0 ** (s - 31) - x) <= x * 2.0 ** -30
    assert (m, s) == ref_multiplier_shift(x)
    # a significand that rounds up to 2**31 is halved and the exponent raised
    assert qnn.op.canonicalizations.fixed_point_multiplier_shift(1 - 2 ** -40) == (2 ** 30, 1)


# ------------------------------------------------------------------------ requantize
@pytest.mark.parametrize("rounding", ["UPWARD", "TONEAREST"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_requantize_matches_fixed_point_reference(rounding, per_channel):
    rng = np.random.default_rng(1)
    shape = (3, 5, 7)
    q = rng.integers(-2 ** 20, 2 ** 20, size=shape).astype("int32")
    in_scale = (rng.uniform(0.01, 0.5, 5) if per_channel else np.array(0.0371)).astype(
        "float32")
    in_zp, out_scale, out_zp = 3, np.float32(0.25), -7
    x = relay.var("x", shape=shape, dtype="int32")
    y = qnn.op.requantize(x, c(in_scale, "float32"), c(in_zp, "int32"), c(out_scale, "float32"),
                          c(out_zp, "int32"), axis=1, rounding=rounding, out_dtype="int8")
    got = run(y, {"x": q})
    want = ref_requantize(q, in_scale, in_zp, out_scale, out_zp, "int8", rounding, axis=1)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int8
    # and the fixed-point result is the real product rounded (within one step)
    s = in_scale.reshape(1, -1, 1) if per_channel else in_scale
    real = np.clip((q - in_zp) * (s / out_scale) + out_zp, -128, 127)
    assert np.abs(got - real).max() <= 1


def test_requantize_ties():
    """-0.5 rounds to 0 upward, to -1 to nearest (ties away from zero), in every
    compute_dtype."""
    want = {"UPWARD": np.repeat([-2, -1, 0, 1, 2], [8, 16, 16, 16, 8]),
            "TONEAREST": np.repeat([-2, -1, 0, 1, 2], [9, 16, 15, 16, 8])}
    x = relay.var("x", shape=(64,), dtype="int32")
    cases = [(r, d) for r in want for d in ("int64", "float32", "float64")]
    outs = [qnn.op.requantize(x, c(1.0, "float32"), c(0, "int32"), c(16.0, "float32"),
                              c(0, "int32"), rounding=r, compute_dtype=d, out_dtype="int8")
            for r, d in cases]
    got = build_run(relay.Function([x], relay.Tuple(outs)),
                    {"x": np.arange(-32, 32, dtype="int32")})[0]
    for (r, d), g in zip(cases, got):
        np.testing.assert_array_equal(g, want[r], err_msg=f"{r} {d}")


def test_requantize_config_scope_and_out_dtypes():
    data = np.arange(0, -32, -1, dtype="int32")
    x = relay.var("x", shape=(32,), dtype="int32")
    for rounding, counts in (("UPWARD", [9, 16, 7]), ("TONEAREST", [8, 16, 8])):
        with qnn.op.requantize_config(rounding=rounding):
            assert qnn.op.current_requantize_config().rounding == rounding
            for out_dtype in ("int8", "int32"):
                y = qnn.op.requantize(x, c(1.0, "float32"), c(0, "int32"), c(16.0, "float32"),
                                      c(0, "int32"), out_dtype=out_dtype)
                got = run(y, {"x": data})
                assert got.dtype == np.dtype(out_dtype)
                np.testing.assert_array_equal(got, np.repeat([0, -1, -2], counts))
    assert qnn.op.current_requantize_config().rounding == "UPWARD"
    with pytest.raises(TVMError, match="rounding"):
        qnn.op.requantize_config(rounding="DOWN")


def test_requantize_saturates_uint8_and_identity_scale():
    rng = np.random.default_rng(2)
    q = rng.integers(-1000, 1000, size=(4, 9)).astype("int32")
    x = relay.var("x", shape=q.shape, dtype="int32")
    y = qnn.op.requantize(x, c(0.5, "float32"), c(0, "int32"), c(0.5, "float32"),
                          c(100, "int32"), out_dtype="uint8")
    np.testing.assert_array_equal(run(y, {"x": q}), np.clip(q + 100, 0, 255).astype("uint8"))


# -------------------------------------------------------------- quantize / dequantize
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32"])
def test_quantize_per_tensor(dtype):
    rng = np.random.default_rng(3)
    xs = rng.uniform(-40, 40, size=(3, 7, 5)).astype("float32")
    xs[0, 0, :4] = [0.25, -0.25, 0.75, -0.75]  # ties (scale 0.5): to even
    zp = 0 if dtype == "int32" else (3 if dtype != "uint8" else 120)
    x = relay.var("x", shape=xs.shape)
    y = qnn.op.quantize(x, c(0.5, "float32"), c(zp, "int32"), out_dtype=dtype)
    got = run(y, {"x": xs})
    np.testing.assert_array_equal(got, ref_quantize(xs, 0.5, zp, dtype))
    assert got[0, 0, :4].tolist() == [zp, zp, 2 + zp, -2 + zp] or dtype == "uint8"


def test_quantize_dequantize_per_channel():
    rng = np.random.default_rng(4)
    xs = rng.uniform(-3, 3, size=(2, 5, 3)).astype("float32")
    scale = rng.uniform(0.01, 0.05, 5).astype("float32")
    zp = rng.integers(-10, 10, 5).astype("int32")
    x = relay.var("x", shape=xs.shape)
    q = qnn.op.quantize(x, c(scale, "float32"), c(zp, "int32"), axis=1, out_dtype="int8")
    np.testing.assert_array_equal(run(q, {"x": xs}), ref_quantize(xs, scale, zp, "int8", 1))
    qs = rand_q(rng, (2, 5, 3), "int8")
    v = relay.var("v", shape=qs.shape, dtype="int8")
    d = qnn.op.dequantize(v, c(scale, "float32"), c(zp, "int32"), axis=1)
    np.testing.assert_array_equal(run(d, {"v": qs}), ref_dequantize(qs, scale, zp, 1))


def test_dequantize_runtime_scale():
    """Scale and zero point computed at run time (DynamicQuantizeLinear's) are fine."""
    rng = np.random.default_rng(5)
    qs = rand_q(rng, (3, 11), "uint8")
    v = relay.var("v", shape=qs.shape, dtype="uint8")
    s = relay.var("s", shape=(), dtype="float32")
    z = relay.var("z", shape=(), dtype="int32")
    got = run(qnn.op.dequantize(v, s, z), {"v": qs, "s": np.float32(0.1),
                                             "z": np.int32(128)})
    np.testing.assert_array_equal(got, ref_dequantize(qs, 0.1, 128))


# ------------------------------------------------------------- add, subtract, mul
@pytest.mark.parametrize("name", ["add", "subtract", "mul"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_binary(name, dtype):
    rng = np.random.default_rng(6)
    a = rand_q(rng, (3, 5, 7), dtype)
    b = rand_q(rng, (5, 1), dtype)  # broadcast
    ls, rs, os_ = np.float32(0.043), np.float32(0.117), np.float32(0.09)
    lz, rz, oz = (5, -3, 2) if dtype == "int8" else (120, 131, 128)
    x, y = relay.var("a", shape=a.shape, dtype=dtype), relay.var("b", shape=b.shape, dtype=dtype)
    fn = getattr(qnn.op, name)
    out = fn(x, y, c(ls, "float32"), c(lz, "int32"), c(rs, "float32"), c(rz, "int32"),
             c(os_, "float32"), c(oz, "int32"))
    got = run(out, {"a": a, "b": b})
    info = np.iinfo(dtype)
    if name == "mul":
        prod = (a.astype(np.int64) - lz) * (b.astype(np.int64) - rz)
        want = ref_requantize(prod, np.float32(ls * rs), 0, os_, oz, dtype)
    else:
        ra = ref_requantize(a, ls, lz, os_, oz, "int32").astype(np.int64)
        rb = ref_requantize(b, rs, rz, os_, oz, "int32").astype(np.int64)
        want = ra + rb - oz if name == "add" else ra - rb + oz
        want = np.clip(want, info.min, info.max).astype(dtype)
    np.testing.assert_array_equal(got, want)
    real = {"add": np.add, "subtract": np.subtract, "mul": np.multiply}[name](
        ls * (a.astype(np.float64) - lz), rs * (b.astype(np.float64) - rz))
    expect = np.clip(np.round(real / os_) + oz, info.min, info.max)
    assert np.abs(got.astype(np.int64) - expect).max() <= 1


def test_mul_per_channel():
    rng = np.random.default_rng(7)
    a, b = rand_q(rng, (2, 3, 5), "int8"), rand_q(rng, (2, 3, 5), "int8")
    ls = rng.uniform(0.01, 0.1, 3).astype("float32")
    rs = rng.uniform(0.01, 0.1, 3).astype("float32")
    x, y = relay.var("a", shape=a.shape, dtype="int8"), relay.var("b", shape=b.shape,
                                                                   dtype="int8")
    out = qnn.op.mul(x, y, c(ls, "float32"), c(0, "int32"), c(rs, "float32"), c(0, "int32"),
                     c(0.01, "float32"), c(0, "int32"), lhs_axis=1, rhs_axis=1)
    prod = a.astype(np.int64) * b.astype(np.int64)
    want = ref_requantize(prod, (ls.astype(np.float64) * rs).astype(np.float32), 0,
                          np.float32(0.01), 0, "int8", axis=1)
    np.testing.assert_array_equal(run(out, {"a": a, "b": b}), want)


def test_concatenate():
    rng = np.random.default_rng(8)
    xs = [rand_q(rng, (2, n, 3), "uint8") for n in (3, 1, 4)]
    scales, zps = [0.5, 0.25, 0.125], [128, 100, 128]
    vs = [relay.var(f"x{i}", shape=x.shape, dtype="uint8") for i, x in enumerate(xs)]
    out = qnn.op.concatenate(vs, [c(s, "float32") for s in scales],
                             [c(z, "int32") for z in zps], c(0.125, "float32"),
                             c(128, "int32"), axis=1)
    got = run(out, {f"x{i}": x for i, x in enumerate(xs)})
    parts = [x if (s, z) == (0.125, 128) else ref_requantize(x, s, z, 0.125, 128, "uint8")
             for x, s, z in zip(xs, scales, zps)]
    np.testing.assert_array_equal(got, np.concatenate(parts, axis=1))


# ------------------------------------------------------------------ convolutions, dense
@pytest.mark.parametrize("data_dtype,kernel_dtype", [("uint8", "int8"), ("int8", "int8"),
                                                     ("uint8", "uint8")])
@pytest.mark.parametrize("per_channel", [False, True])
def test_conv2d(data_dtype, kernel_dtype, per_channel):
    rng = np.random.default_rng(9)
    data = rand_q(rng, (1, 4, 9, 7), data_dtype)
    kernel = rand_q(rng, (6, 2, 3, 3), kernel_dtype)  # groups=2
    izp = 7 if data_dtype == "int8" else 131
    kzp = rng.integers(-5, 5, 6).astype("int32") if per_channel else np.int32(3)
    kscale = rng.uniform(0.01, 0.1, 6).astype("float32") if per_channel else np.float32(0.05)
    x = relay.var("x", shape=data.shape, dtype=data_dtype)
    w = relay.var("w", shape=kernel.shape, dtype=kernel_dtype)
    out = qnn.op.conv2d(x, w, c(izp, "int32"), c(kzp, "int32"), c(0.1, "float32"),
                        c(kscale, "float32"), kernel_size=(3, 3), channels=6, strides=(2, 1),
                        padding=(1, 2), groups=2)
    got = run(out, {"x": data, "w": kernel})
    kz = np.asarray(kzp).reshape(-1, 1, 1, 1) if per_channel else kzp
    want = conv2d_nchw_python(data.astype(np.int64) - izp, kernel.astype(np.int64) - kz,
                              (2, 1), (1, 2, 1, 2), groups=2)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)


def test_conv2d_nhwc_and_requantize():
    rng = np.random.default_rng(10)
    data = rand_q(rng, (1, 5, 6, 3), "uint8")
    kernel = rand_q(rng, (3, 3, 3, 4), "int8")  # HWIO
    x = relay.var("x", shape=data.shape, dtype="uint8")
    w = relay.var("w", shape=kernel.shape, dtype="int8")
    acc = qnn.op.conv2d(x, w, c(128, "int32"), c(0, "int32"), c(0.02, "float32"),
                        c(0.01, "float32"), kernel_size=(3, 3), channels=4, padding=(1, 1),
                        data_layout="NHWC", kernel_layout="HWIO")
    out = qnn.op.requantize(acc, c(np.float32(0.02) * np.float32(0.01), "float32"),
                            c(0, "int32"), c(0.05, "float32"), c(10, "int32"),
                            out_dtype="uint8")
    got = run(out, {"x": data, "w": kernel})
    ref = conv2d_nchw_python(data.transpose(0, 3, 1, 2).astype(np.int64) - 128,
                             kernel.transpose(3, 2, 0, 1).astype(np.int64), 1, 1)
    want = ref_requantize(ref.transpose(0, 2, 3, 1), np.float32(0.02) * np.float32(0.01), 0,
                          np.float32(0.05), 10, "uint8")
    np.testing.assert_array_equal(got, want)


def test_conv2d_nchw_runs_packed():
    """The lowered int32 nn.conv2d runs packed (NCHWc, AlterOpLayout) as float ones do."""
    rng = np.random.default_rng(17)
    data, kernel = rand_q(rng, (1, 8, 7, 9), "uint8"), rand_q(rng, (16, 8, 3, 3), "int8")
    x = relay.var("x", shape=data.shape, dtype="uint8")
    w = relay.var("w", shape=kernel.shape, dtype="int8")
    out = qnn.op.conv2d(x, w, c(128, "int32"), c(0, "int32"), c(0.1, "float32"),
                        c(0.1, "float32"), kernel_size=(3, 3), channels=16, padding=(1, 1))
    (got,), factory = build_run(relay.Function([x, w], out), {"x": data, "w": kernel})
    assert any("conv2d_NCHWc" in k for k in kernel_names(factory))
    np.testing.assert_array_equal(got, conv2d_nchw_python(data.astype(np.int64) - 128,
                                                          kernel.astype(np.int64), 1, 1))


def test_conv2d_transpose():
    rng = np.random.default_rng(11)
    data = rand_q(rng, (1, 3, 5, 4), "uint8")
    kernel = rand_q(rng, (3, 2, 3, 3), "int8")  # IOHW
    x = relay.var("x", shape=data.shape, dtype="uint8")
    w = relay.var("w", shape=kernel.shape, dtype="int8")
    out = qnn.op.conv2d_transpose(x, w, c(120, "int32"), c(2, "int32"), c(0.1, "float32"),
                                  c(0.1, "float32"), strides=(2, 2), padding=(1, 1),
                                  kernel_size=(3, 3), channels=2)
    got = run(out, {"x": data, "w": kernel})
    want = conv2d_transpose_nchw_python(data.astype(np.int64) - 120,
                                        kernel.astype(np.int64) - 2, (2, 2), (1, 1))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("per_channel", [False, True])
def test_dense(per_channel):
    rng = np.random.default_rng(12)
    data, weight = rand_q(rng, (3, 13), "uint8"), rand_q(rng, (5, 13), "int8")
    kzp = rng.integers(-4, 4, 5).astype("int32") if per_channel else np.int32(-2)
    x = relay.var("x", shape=data.shape, dtype="uint8")
    w = relay.var("w", shape=weight.shape, dtype="int8")
    out = qnn.op.dense(x, w, c(100, "int32"), c(kzp, "int32"), c(0.1, "float32"),
                       c(np.full(5, 0.1) if per_channel else 0.1, "float32"), units=5)
    got = run(out, {"x": data, "w": weight})
    kz = np.asarray(kzp).reshape(-1, 1) if per_channel else kzp
    np.testing.assert_array_equal(got, (data.astype(np.int64) - 100)
                                  @ (weight.astype(np.int64) - kz).T)


def test_batch_matmul():
    rng = np.random.default_rng(13)
    a, b = rand_q(rng, (2, 3, 7), "int8"), rand_q(rng, (2, 5, 7), "int8")
    x = relay.var("x", shape=a.shape, dtype="int8")
    y = relay.var("y", shape=b.shape, dtype="int8")
    out = qnn.op.batch_matmul(x, y, c(3, "int32"), c(-1, "int32"), c(0.1, "float32"),
                              c(0.2, "float32"))
    want = np.matmul(a.astype(np.int64) - 3, (b.astype(np.int64) + 1).transpose(0, 2, 1))
    np.testing.assert_array_equal(run(out, {"x": a, "y": b}), want)


# ------------------------------------------------------------- leaky_relu, unary ops
def test_leaky_relu():
    rng = np.random.default_rng(14)
    q = rand_q(rng, (3, 17), "uint8")
    alpha, s, z, os_, oz = 0.1, np.float32(0.06), 120, np.float32(0.04), 100
    x = relay.var("x", shape=q.shape, dtype="uint8")
    out = qnn.op.leaky_relu(x, alpha, c(s, "float32"), c(z, "int32"), c(os_, "float32"),
                            c(oz, "int32"))
    got = run(out, {"x": q})
    requant = ref_requantize(q, s, z, os_, oz, "int32").astype(np.int64)
    neg = ref_fixed_mul(requant, alpha, "UPWARD") + ref_fixed_mul(np.int64(oz), 1 - alpha,
                                                                  "UPWARD")
    want = np.clip(np.where(q.astype(np.int64) < z, neg, requant), 0, 255).astype("uint8")
    np.testing.assert_array_equal(got, want)
    real = s * (q.astype(np.float64) - z)
    expect = np.clip(np.round(np.where(real < 0, alpha * real, real) / os_) + oz, 0, 255)
    assert np.abs(got - expect).max() <= 1


UNARY = {"tanh": np.tanh, "exp": np.exp, "sqrt": np.sqrt, "rsqrt": lambda a: 1 / np.sqrt(a),
         "erf": np.vectorize(math.erf), "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
         "log": np.log, "abs": np.abs,
         "hardswish": lambda a: a * np.clip(a + 3, 0, 6) / 6}


def _unary_case(name, dtype):
    """(input zero point, output zero point) of op ``name`` on ``dtype`` inputs: inputs
    non-negative where the function needs them, outputs in range."""
    if name in ("sqrt", "rsqrt", "log"):
        zp = -128 if dtype == "int8" else 0
    else:
        zp = 10 if dtype == "int8" else 128
    oz = (-128 if dtype == "int8" else 0) if name == "exp" else zp
    return zp, oz


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_unary(dtype):
    """Every unary op on all 256 inputs: 8-bit inputs go through a lookup table (Legalize);
    both that and the dequantize-float-quantize canonicalization match numpy within a
    step."""
    q = np.arange(0, 256, dtype="uint8").view(dtype).reshape(16, 16)
    x = relay.var("x", shape=q.shape, dtype=dtype)
    names = sorted(UNARY)
    outs, wants, finites = [], [], []
    info = np.iinfo(dtype)
    for name in names:
        zp, oz = _unary_case(name, dtype)
        outs.append(getattr(qnn.op, name)(x, c(0.05, "float32"), c(zp, "int32"),
                                          c(0.03, "float32"), c(oz, "int32")))
        with np.errstate(all="ignore"):
            real = UNARY[name](np.float32(0.05) * (q.astype(np.float32) - zp))
            wants.append(np.clip(np.nan_to_num(np.round(real / np.float32(0.03)) + oz, nan=0,
                                               posinf=info.max, neginf=info.min),
                                 info.min, info.max))
        finites.append(np.isfinite(real))
    func = relay.Function([x], relay.Tuple(outs))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(func))
    with tvm.target.Target("llvm"):
        text = qnn.transform.Legalize()(mod).astext()
    assert text.count("take(") == len(names) and "qnn." not in text
    lowered = qnn.transform.CanonicalizeOps()(mod)
    assert "qnn." not in lowered.astext() and "take(" not in lowered.astext()
    for got_all in (build_run(func, {"x": q})[0], build_run(lowered["main"], {"x": q})[0]):
        for name, got, want, finite in zip(names, got_all, wants, finites):
            diff = np.abs(got[finite].astype(np.int64) - want[finite])
            assert diff.max() <= 1, name


# --------------------------------------------------------- simulated (de)quantize
def test_simulated_quantize_dequantize():
    rng = np.random.default_rng(15)
    xs = rng.uniform(-5, 5, size=(3, 4, 5)).astype("float32")
    scale = rng.uniform(0.01, 0.05, 4).astype("float32")
    zp = rng.integers(0, 20, 4).astype("int32")
    x = relay.var("x", shape=xs.shape)
    code = relay.var("code", shape=(), dtype="int32")
    sq = qnn.op.simulated_quantize(x, c(scale, "float32"), c(zp, "int32"), axis=1,
                                   out_dtype=code)
    sd = qnn.op.simulated_dequantize(x, c(scale, "float32"), c(zp, "int32"), axis=1,
                                     in_dtype=code)
    func = relay.Function([x, code], relay.Tuple([sq, sd]))
    for dtype, k in qnn.op.SQNN_DTYPE_TO_CODE.items():
        q, d = build_run(func, {"x": xs, "code": np.int32(k)})[0]
        if dtype == "disable":
            np.testing.assert_array_equal(q, xs)
            np.testing.assert_array_equal(d, xs)
            continue
        np.testing.assert_array_equal(q, ref_quantize(xs, scale, zp, dtype, 1).astype(
            "float32"))
        np.testing.assert_allclose(d, (xs - zp.reshape(1, -1, 1)) * scale.reshape(1, -1, 1),
                                   rtol=1e-6)


# --------------------------------------------------------------- types and errors
def test_type_relations_and_errors():
    x8 = relay.var("x", shape=(2, 3), dtype="int8")
    f32 = relay.var("f", shape=(2, 3), dtype="float32")
    y = qnn.op.dequantize(x8, c(0.1, "float32"), c(0, "int32"))
    assert relay.transform.InferType()(tvm.IRModule.from_expr(y))["main"].body.checked_type \
        == relay.TensorType((2, 3), "float32")
    bad = [
        (qnn.op.quantize(x8, c(0.1, "float32"), c(0, "int32")), "data must be float32"),
        (qnn.op.quantize(f32, c([0.1, 0.2], "float32"), c(0, "int32"), axis=1),
         r"output_scale must be a scalar or 1-D of 3"),
        (qnn.op.quantize(f32, c(0.1, "float32"), c(0, "int32"), out_dtype="float32"),
         "out_dtype"),
        (qnn.op.dequantize(x8, c(0.1, "float32"), c(0.0, "float32")),
         "input_zero_point must be int32"),
        (qnn.op.dequantize(x8, c([0.1, 0.2], "float32"), c(0, "int32"), axis=5),
         "axis 5 is out of range"),
        (qnn.op.add(x8, f32, *[c(v, d) for v, d in ((1.0, "float32"), (0, "int32"))] * 3),
         "different dtypes"),
        (qnn.op.requantize(x8, c(0.1, "float32"), c(0, "int32"), c(0.1, "float32"),
                           c(0, "int32"), rounding="DOWN"), "rounding"),
    ]
    for expr, msg in bad:
        with pytest.raises(TVMError, match=msg):
            relay.transform.InferType()(tvm.IRModule.from_expr(expr))
    s = relay.var("s", shape=(), dtype="float32")
    nonconst = qnn.op.requantize(x8, s, c(0, "int32"), c(0.1, "float32"), c(0, "int32"))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(nonconst))
    with pytest.raises(TVMError, match="qnn.requantize: input_scale must be a constant"):
        qnn.transform.CanonicalizeOps()(mod)


def test_printed_form_and_parse():
    x = relay.var("x", shape=(2, 3), dtype="int8")
    y = qnn.op.requantize(x, c(0.5, "float32"), c(1, "int32"), c(0.25, "float32"),
                          c(2, "int32"), rounding="TONEAREST", out_dtype="uint8")
    text = tvm.IRModule.from_expr(y).astext()
    assert 'qnn.requantize(%x, 0.5f, 1, 0.25f, 2, rounding="TONEAREST", out_dtype="uint8")' \
        in text.replace(" /* ty=float32 */", "").replace(" /* ty=int32 */", "")


# ------------------------------------------------------------------------------ Legalize
def _conv_mod(data_dtype):
    x = relay.var("x", shape=(1, 3, 6, 5), dtype=data_dtype)
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="int8")
    y = qnn.op.conv2d(x, w, c(5, "int32"), c(1, "int32"), c(0.1, "float32"),
                      c(0.1, "float32"), kernel_size=(3, 3), channels=4)
    return relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([x, w], y)))


def test_legalize_per_target():
    mod = _conv_mod("int8")
    with tvm.target.Target("llvm"):
        text = qnn.transform.Legalize()(mod).astext()
    assert "nn.conv2d" in text and "qnn" not in text and "int32" in text
    with tvm.target.Target("llvm -mcpu=skylake-avx512"):
        legal = qnn.transform.Legalize()(mod)
    assert "qnn.conv2d" in legal.astext() and "uint8" in legal.astext()
    unchanged = _conv_mod("uint8")
    with tvm.target.Target("llvm -mcpu=cascadelake"):
        assert tvm.ir.structural_equal(qnn.transform.Legalize()(unchanged), unchanged)
    # the uint8-shifted form computes the same convolution
    rng = np.random.default_rng(16)
    feeds = {"x": rand_q(rng, (1, 3, 6, 5), "int8"), "w": rand_q(rng, (4, 3, 3, 3), "int8")}
    np.testing.assert_array_equal(build_run(legal["main"], feeds)[0][0],
                                  build_run(mod["main"], feeds)[0][0])


def test_user_legalize_rule_overrides():
    from tvmlite.relay.testing.temp_op_attr import TempOpAttr
    mod = _conv_mod("int8")

    def rule(attrs, inputs, types):
        assert types[-1] == relay.TensorType((1, 4, 4, 3), "int32")
        return relay.zeros((1, 4, 4, 3), "int32")
    with TempOpAttr("qnn.conv2d", "FTVMQnnLegalize", rule):
        out = qnn.transform.Legalize()(mod)
    assert "zeros" in out.astext() and "qnn" not in out.astext()
