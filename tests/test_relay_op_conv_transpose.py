"""relay.nn.conv1d/2d/3d_transpose in any data / kernel layout, topi.nn.conv3d_transpose_ncdhw,
weights inferred from channels and kernel_size (conv1d, conv3d, the transposed ones) and
mixed data / weight dtypes with an out_dtype, against scatter-loop numpy references."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, te, topi
from tvmlite.relay.testing import run_infer_type
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(11)


def _transpose_loop(a, w, strides, pads_lo, pads_hi, opad):
    """N-D transposed convolution of NC... data and IO... weight by scattering each input
    element."""
    n, c, *size = a.shape
    _, f, *ks = w.shape
    full = np.zeros((n, f, *[(x - 1) * s + k + o for x, s, k, o in
                             zip(size, strides, ks, opad)]))
    for p in np.ndindex(*size):
        region = tuple(slice(i * s, i * s + k) for i, s, k in zip(p, strides, ks))
        full[(slice(None), slice(None)) + region] += np.tensordot(
            a[(slice(None), slice(None)) + p], w, axes=([1], [0]))
    crop = tuple(slice(lo, full.shape[2 + d] - hi) for d, (lo, hi) in
                 enumerate(zip(pads_lo, pads_hi)))
    return full[(slice(None), slice(None)) + crop]


def _evaluate(y, params, arrays):
    f = relay.create_executor("graph", target="llvm").evaluate(relay.Function(params, y))
    return f(*arrays).numpy()


@pytest.mark.parametrize("n, dl, kl, strides, pads, opad", [
    (1, "NCW", "IOW", (2,), (1, 0), (1,)),
    (1, "NWC", "WOI", (3,), (0, 2), (0,)),
    (2, "NCHW", "OIHW", (2, 1), (1, 0, 0, 1), (1, 0)),
    (2, "NHWC", "HWOI", (2, 2), (1, 1, 1, 1), (1, 1)),
    (3, "NCDHW", "IODHW", (1, 2, 1), (0, 1, 0, 0, 0, 1), (0, 1, 0)),
    (3, "NDHWC", "DHWIO", (2, 1, 1), (1, 0, 0, 0, 1, 0), (0, 0, 0)),
])
def test_conv_transpose_layouts(n, dl, kl, strides, pads, opad):
    sp = "DHW"[3 - n:]
    size = (5, 4, 3)[:n]
    a = RNG.uniform(-1, 1, (2, 3, *size)).astype("float32")  # canonical NC...
    w = RNG.uniform(-1, 1, (3, 4, *(3, 2, 3)[:n])).astype("float32")  # canonical IO...
    want = _transpose_loop(a, w, strides, pads[:n], pads[n:], opad)
    data = a.transpose([("NC" + sp).index(c) for c in dl])
    weight = w.transpose([("IO" + sp).index(c) for c in kl])
    x = relay.var("x", relay.TensorType(data.shape, "float32"))
    wv = relay.var("w")  # its type comes from channels and kernel_size
    fn = getattr(relay.nn, f"conv{n}d_transpose")
    y = fn(x, wv, strides=strides, padding=pads, channels=4, kernel_size=w.shape[2:],
           data_layout=dl, kernel_layout=kl, output_padding=opad)
    yy = run_infer_type(y)
    assert yy.args[1].checked_type == relay.TensorType(weight.shape, "float32")
    got = _evaluate(y, [x, wv], [data, weight])
    np.testing.assert_allclose(got, want.transpose([("NC" + sp).index(c) for c in dl]),
                               rtol=1e-5, atol=1e-5)


def test_grouped_conv2d_transpose_weight_type():
    x = relay.var("x", relay.TensorType((1, 6, 5, 5), "float32"))
    y = relay.nn.conv2d_transpose(x, relay.var("w"), channels=4, kernel_size=(3, 3), groups=2)
    yy = run_infer_type(y)
    assert yy.args[1].checked_type == relay.TensorType((6, 2, 3, 3), "float32")
    assert yy.checked_type == relay.TensorType((1, 4, 7, 7), "float32")


def test_topi_conv3d_transpose_ncdhw():
    a = RNG.uniform(size=(1, 2, 4, 3, 5)).astype("float32")
    w = RNG.uniform(size=(2, 3, 2, 3, 2)).astype("float32")
    want = _transpose_loop(a, w, (2, 1, 3), (1, 0, 0), (0, 1, 1), (1, 0, 2))
    np.testing.assert_allclose(ref.conv3d_transpose_ncdhw_python(
        a, w, (2, 1, 3), (1, 0, 0, 0, 1, 1), (1, 0, 2)), want, rtol=1e-5)
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    B = topi.nn.conv3d_transpose_ncdhw(A, W, (2, 1, 3), (1, 0, 0, 0, 1, 1), "float32",
                                       (1, 0, 2))
    s = topi.x86.schedule_conv3d_transpose_ncdhw([B])
    f = tvm.build(s, [A, W, B], "llvm")
    b = tvm.nd.empty([int(d) for d in B.shape])
    f(tvm.nd.array(a), tvm.nd.array(w), b)
    np.testing.assert_allclose(b.numpy(), want, rtol=1e-5, atol=1e-5)


def test_conv2d_transpose_nhwc_python_reference():
    a = RNG.uniform(size=(1, 4, 5, 3)).astype("float32")
    w = RNG.uniform(size=(3, 2, 3, 3)).astype("float32")  # HWOI
    want = _transpose_loop(a.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), (2, 2),
                           (1, 1), (1, 1), (1, 1)).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(ref.conv2d_transpose_nhwc_python(a, w, "HWOI", 2, 1, (1, 1)),
                               want, rtol=1e-5)


@pytest.mark.parametrize("name, dl, kl, shape", [
    ("conv1d", "NCW", "OIW", (2, 6, 9)), ("conv1d", "NWC", "WIO", (2, 9, 6)),
    ("conv3d", "NCDHW", "OIDHW", (1, 6, 5, 4, 3))])
def test_conv_weight_from_channels(name, dl, kl, shape):
    n = len(shape) - 2
    x = relay.var("x", relay.TensorType(shape, "float32"))
    y = getattr(relay.nn, name)(x, relay.var("w"), kernel_size=(3,) * n, channels=4, groups=2,
                                data_layout=dl, kernel_layout=kl)
    yy = run_infer_type(y)
    dims = {"O": 4, "I": 3, "D": 3, "H": 3, "W": 3}
    assert yy.args[1].checked_type == relay.TensorType(tuple(dims[c] for c in kl), "float32")


@pytest.mark.parametrize("name, n", [("conv1d", 1), ("conv2d", 2), ("conv3d", 3)])
def test_mixed_dtypes_need_out_dtype(name, n):
    x = relay.var("x", relay.TensorType((1, 4) + (5,) * n, "uint8"))
    w = relay.var("w", relay.TensorType((2, 4) + (3,) * n, "int8"))
    fn = getattr(relay.nn, name)
    yy = run_infer_type(fn(x, w, out_dtype="int32"))
    assert yy.checked_type == relay.TensorType((1, 2) + (3,) * n, "int32")
    with pytest.raises(tvm.TVMError, match="dtypes"):
        run_infer_type(fn(x, w))


def test_mixed_dtype_conv2d_runs():
    a = RNG.integers(0, 255, (1, 3, 6, 5)).astype("uint8")
    w = RNG.integers(-128, 127, (4, 3, 3, 3)).astype("int8")
    x = relay.var("x", relay.TensorType(a.shape, "uint8"))
    wv = relay.var("w", relay.TensorType(w.shape, "int8"))
    got = _evaluate(relay.nn.conv2d(x, wv, out_dtype="int32"), [x, wv], [a, w])
    want = ref.conv2d_nchw_python(a.astype("int32"), w.astype("int32"), 1, 0)
    np.testing.assert_array_equal(got, want)


def test_conv2d_transpose_relation_with_large_output_padding():
    n = te.size_var("n")
    x = relay.var("x", relay.TensorType((n, 10, 10, 12), "float32"))
    w = relay.var("w", relay.TensorType((12, 11, 5, 5), "float32"))
    y = relay.nn.conv2d_transpose(x, w, output_padding=(1, 1), channels=11, data_layout="NHWC")
    assert run_infer_type(y).checked_type == relay.TensorType((n, 15, 15, 11), "float32")


def test_incomplete_type_weight_and_prelu_alpha():
    x = relay.var("x", relay.TensorType((1, 10, 7, 6), "float32"))
    w = relay.var("w", relay.IncompleteType())
    yy = run_infer_type(relay.nn.conv2d_transpose(x, w, kernel_size=(3, 3), padding=(1, 1),
                                                  channels=15))
    assert yy.args[1].checked_type == relay.TensorType((10, 15, 3, 3), "float32")
    a = relay.var("alpha", relay.IncompleteType())
    yy = run_infer_type(relay.nn.prelu(relay.var("d", relay.TensorType((2, 4, 5), "float32")),
                                       a, axis=2))
    assert yy.args[1].checked_type == relay.TensorType((5,), "float32")


@pytest.mark.parametrize("shape, f, k, strides, pads, opad", [
    ((1, 24, 5, 4), 16, 4, (2, 2), (1, 1, 1, 1), (0, 0)),
    ((2, 5, 7, 9), 3, 3, (2, 3), (1, 0, 0, 1), (1, 2)),
    ((1, 3, 5, 5), 7, 3, (1, 1), (0, 0, 0, 0), (0, 0)),
])
def test_x86_conv2d_transpose_is_a_packed_convolution(shape, f, k, strides, pads, opad):
    # classic x86: the dilated, padded data convolved by conv2d_NCHWc.x86 (its tasks), with
    # a relu epilogue, against the scatter-loop reference
    x = relay.var("x", shape=shape)
    w = relay.var("w", shape=(shape[1], f, k, k))
    y = relay.nn.relu(relay.nn.conv2d_transpose(x, w, strides=strides, padding=pads,
                                                output_padding=opad, channels=f,
                                                kernel_size=(k, k)))
    a = RNG.standard_normal(shape).astype("float32")
    b = RNG.standard_normal((shape[1], f, k, k)).astype("float32")
    want = np.maximum(_transpose_loop(a, b, strides, pads[:2], pads[2:], opad), 0)
    np.testing.assert_allclose(_evaluate(y, [x, w], [a, b]), want, rtol=1e-4, atol=1e-4)
    mod = tvm.IRModule.from_expr(relay.Function([x, w], y))
    tasks = tvm.autotvm.task.extract_from_program(mod, target="llvm", params={})
    assert [t.name for t in tasks] == ["conv2d_NCHWc.x86"]
    # the input dilated ((n - 1) * stride + 1) and padded by k - 1 - pad (+ output_padding)
    dilated = [(n - 1) * d + 1 + 2 * (k - 1) - lo - hi + o for n, d, lo, hi, o in
               zip(shape[2:], strides, pads[:2], pads[2:], opad)]
    assert tasks[0].args[0][1] == (shape[0], shape[1], *dilated)
