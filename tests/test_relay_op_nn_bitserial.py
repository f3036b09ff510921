"""relay nn.bitpack, nn.bitserial_dense and nn.bitserial_conv2d (classic's bit-serial ops):
types as classic's relations give them, results against numpy on random low-bit values."""
import numpy as np
import pytest

from tvmlite import relay, te
from tvmlite.error import TVMError
from tvmlite.topi.testing import conv2d_nchw_python


def _run(make, *arrays):
    vs = [relay.var(f"v{i}", shape=a.shape, dtype=str(a.dtype)) for i, a in enumerate(arrays)]
    f = relay.create_executor("graph", target="llvm").evaluate(relay.Function(vs, make(*vs)))
    return f(*arrays).numpy()


def _infer(expr):
    from tvmlite import IRModule
    mod = relay.transform.InferType()(IRModule.from_expr(
        relay.Function(relay.analysis.free_vars(expr), expr)))
    return mod["main"].body.checked_type


@pytest.mark.parametrize("shape, bits, pack_axis, bit_axis, pack_type", [
    ((2, 16, 3), 2, 1, 3, "uint8"), ((3, 32), 1, 1, 0, "uint16"), ((64, 5), 3, 0, 1, "uint32")])
def test_bitpack(rng, shape, bits, pack_axis, bit_axis, pack_type):
    width = int(pack_type[4:])
    x = rng.integers(0, 1 << (bits + 1), shape).astype("int16")
    out = _run(lambda v: relay.nn.bitpack(v, bits, pack_axis, bit_axis, pack_type), x)
    planes = np.stack([(x.astype("int64") >> b) & 1 for b in range(bits)], axis=-1)
    grouped = np.moveaxis(planes, pack_axis, -2)  # (..., pack, bits)
    grouped = grouped.reshape(grouped.shape[:-2] + (-1, width, bits))
    weights = (1 << (width - 1 - np.arange(width))).reshape(width, 1)
    words = (grouped * weights).sum(-2)  # (..., pack / width, bits)
    words = np.moveaxis(words, -2, pack_axis)  # pack axis back in place; bits last
    want = np.moveaxis(words, -1, bit_axis).astype(pack_type)
    assert out.dtype == pack_type
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("unipolar", [True, False])
def test_bitserial_dense(rng, unipolar):
    d = rng.integers(0, 8, (3, 64)).astype("int16")
    w = rng.integers(0, 4, (5, 64)).astype("int16")
    out = _run(lambda a, b: relay.nn.bitserial_dense(a, b, units=5, data_bits=2, weight_bits=2,
                                                     unipolar=unipolar), d, w)
    dl, wl = (d & 3).astype("int64"), (w & 3).astype("int64")
    # unipolar weight bits are +1 / -1: sum_b (2 w_b - 1) 2^b = 2 w - 3
    want = dl @ ((2 * wl - 3) if unipolar else wl).T
    assert out.dtype == "int16"
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("unipolar", [True, False])
def test_bitserial_conv2d(rng, layout, unipolar):
    d = rng.integers(0, 4, (2, 8, 7, 5)).astype("int16")
    w = rng.integers(0, 2, (3, 8, 3, 2)).astype("int16")
    wv = (2 * w - 1) if unipolar else w
    want = conv2d_nchw_python(d.astype("int64"), wv.astype("int64"), (2, 1), (1, 0, 1, 1))
    if layout == "NHWC":
        d, w, want = d.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), want.transpose(0, 2, 3, 1)
    out = _run(lambda a, b: relay.nn.bitserial_conv2d(
        a, b, strides=(2, 1), padding=(1, 0, 1, 1), channels=3, kernel_size=(3, 2),
        activation_bits=2, weight_bits=1, data_layout=layout,
        kernel_layout="OIHW" if layout == "NCHW" else "HWIO", pack_dtype="uint8",
        unipolar=unipolar), d.copy(), w.copy())
    np.testing.assert_array_equal(out, want)


def test_bitserial_types_and_errors():
    n = te.size_var("n")
    x = relay.var("x", relay.TensorType((n, 32, 9, 9), "int16"))
    w = relay.var("w", relay.TensorType((4, 32, 3, 3), "int16"))
    t = _infer(relay.nn.bitserial_conv2d(x, w, channels=4, padding=(1, 1)))
    assert t == relay.TensorType((n, 4, 9, 9), "int16")
    y = relay.var("y", relay.TensorType((n, 16), "int8"))
    assert _infer(relay.nn.bitserial_dense(y, relay.var("k", shape=(6, 16), dtype="int8"), units=6,
                                          out_dtype="")) == \
        relay.TensorType((n, 6), "int8")
    with pytest.raises(TVMError, match="nn.bitpack: axis 1 of size 12 is not a multiple"):
        _infer(relay.nn.bitpack(relay.var("z", shape=(2, 12)), pack_type="uint8"))
    with pytest.raises(TVMError, match="channels and kernel_size must be given"):
        _infer(relay.nn.bitserial_conv2d(x, w))
    with pytest.raises(TVMError, match="units must be given"):
        _infer(relay.nn.bitserial_dense(y, relay.var("k", shape=(6, 16), dtype="int8")))
    with pytest.raises(TVMError, match="needs a OIHW kernel"):
        _run(lambda a, b: relay.nn.bitserial_conv2d(a, b, channels=2, kernel_layout="HWIO"),
             np.zeros((1, 8, 4, 4), "int16"), np.zeros((3, 3, 8, 2), "int16"))
