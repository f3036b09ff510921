"""topi.stft / relay.stft against numpy's FFT of windowed frames, and nn.dense with mixed
data / weight dtypes and with N-D data."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay.testing import run_infer_type

RNG = np.random.default_rng(13)


def _numpy_stft(x, n_fft, hop, window, normalized, onesided):
    lpad = (n_fft - len(window)) // 2
    win = np.zeros(n_fft)
    win[lpad:lpad + len(window)] = window
    frames = (x.shape[-1] - n_fft) // hop + 1
    spec = np.stack([np.fft.fft(x[..., m * hop:m * hop + n_fft] * win, axis=-1)
                     for m in range(frames)], axis=-1)  # (..., n_fft, frames)
    if onesided:
        spec = spec[..., :n_fft // 2 + 1, :]
    if normalized:
        spec = spec / np.sqrt(n_fft)
    return np.stack([spec.real, spec.imag], axis=-1)


@pytest.mark.parametrize("shape, n_fft, hop, win_len, normalized, onesided", [
    ((2, 11), 4, 2, 3, False, True), ((1, 9), 3, 3, 3, True, False), ((13,), 5, 1, 5, False,
                                                                       True)])
def test_stft(shape, n_fft, hop, win_len, normalized, onesided):
    x = RNG.uniform(-1, 1, shape).astype("float32")
    window = RNG.uniform(size=(win_len,)).astype("float32")
    d = relay.var("d", relay.TensorType(shape, "float32"))
    w = relay.var("w", relay.TensorType(window.shape, "float32"))
    y = relay.stft(d, n_fft, hop, win_len, w, normalized, onesided)
    want = _numpy_stft(x.astype("float64"), n_fft, hop, window, normalized, onesided)
    assert run_infer_type(y).checked_type == relay.TensorType(want.shape, "float32")
    got = relay.create_executor("graph", target="llvm").evaluate(relay.Function([d, w], y))(
        x, window)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


def test_stft_errors():
    d = relay.var("d", relay.TensorType((1, 4), "float32"))
    with pytest.raises(tvm.TVMError, match="n_fft"):
        run_infer_type(relay.stft(d, 8, 1))


def test_dense_mixed_dtypes():
    x = RNG.integers(0, 255, (3, 5)).astype("uint8")
    w = RNG.integers(-128, 127, (4, 5)).astype("int8")
    xv = relay.var("x", relay.TensorType(x.shape, "uint8"))
    wv = relay.var("w", relay.TensorType(w.shape, "int8"))
    y = relay.nn.dense(xv, wv, out_dtype="int32")
    got = relay.create_executor("graph", target="llvm").evaluate(relay.Function([xv, wv], y))(
        x, w)
    np.testing.assert_array_equal(got.numpy(), x.astype("int32") @ w.astype("int32").T)
    with pytest.raises(tvm.TVMError, match="dtypes"):
        run_infer_type(relay.nn.dense(xv, wv))


@pytest.mark.parametrize("shape", [(2, 3, 5), (5,)])
def test_dense_nd_data(shape):
    x = RNG.uniform(size=shape).astype("float32")
    w = RNG.uniform(size=(7, 5)).astype("float32")
    xv = relay.var("x", relay.TensorType(shape, "float32"))
    wv = relay.var("w", relay.TensorType(w.shape, "float32"))
    y = relay.nn.relu(relay.nn.dense(xv, wv, units=7))
    assert run_infer_type(y).checked_type == relay.TensorType(shape[:-1] + (7,), "float32")
    got = relay.create_executor("graph", target="llvm").evaluate(relay.Function([xv, wv], y))(
        x, w)
    np.testing.assert_allclose(got.numpy(), np.maximum(x @ w.T, 0), rtol=1e-5)
