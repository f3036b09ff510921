"""relay.testing.densenet: DenseNet-121's parameters, and a small DenseNet of the same structure
against numpy."""
import numpy as np
from relay_helpers import build_run

from tvmlite import relay
from tvmlite.relay.testing import create_workload, densenet
from tvmlite.topi.testing import conv2d_nchw_python


def test_densenet121_parameters_and_type():
    mod, params = densenet.get_workload(batch_size=1, classes=10)
    # stem conv + bn, 58 layers of (bn, conv, bn, conv), 3 transitions, final bn, dense
    assert len(params) == 1 + 4 + 58 * 10 + 3 * 5 + 4 + 2
    assert params["conv_t_0_weight"].shape == (128, 192, 1, 1)  # 6 layers x 32 channels in
    assert params["conv2d_2_3_15_weight"].shape == (32, 128, 3, 3)
    assert relay.transform.InferType()(mod)["main"].body.checked_type == \
        relay.TensorType((1, 10), "float32")


def _pool(x, size, stride, pad, kind):
    fill = -np.inf if kind == "max" else 0.0
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=fill)
    n, c, h, w = x.shape
    oh, ow = (h - size) // stride + 1, (w - size) // stride + 1
    out = np.empty((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            win = x[:, :, i * stride:i * stride + size, j * stride:j * stride + size]
            out[:, :, i, j] = win.max(axis=(2, 3)) if kind == "max" else win.mean(axis=(2, 3))
    return out


def test_small_densenet_matches_numpy():
    func = densenet.get_net(8, 4, (1, 2), (2, 3, 64, 64), "float32", bn_size=2, classes=5)
    mod, params = create_workload(func)
    p = {k: v.numpy() for k, v in params.items()}

    def bn_relu(x, name):
        g, b, m, v = (p[f"{name}_{k}"][None, :, None, None]
                      for k in ("gamma", "beta", "moving_mean", "moving_var"))
        return np.maximum((x - m) / np.sqrt(v + 1e-5) * g + b, 0)

    def conv(x, name, stride=1, pad=0):
        return conv2d_nchw_python(x, p[f"{name}_weight"], stride, pad)

    x = np.random.default_rng(2).standard_normal((2, 3, 64, 64)).astype("float32")
    y = _pool(bn_relu(conv(x, "conv1", 2, 3), "batch1"), 3, 2, 1, "max")
    for b, n in enumerate((1, 2)):
        outs = []
        for i in range(n):
            y = conv(bn_relu(y, f"batch_1_{b}_{i}"), f"conv2d_1_{b}_{i}")
            y = conv(bn_relu(y, f"batch_2_{b}_{i}"), f"conv2d_2_{b}_{i}", pad=1)
            outs.append(y)
        y = np.concatenate(outs, axis=1)
        if b == 0:
            y = _pool(conv(bn_relu(y, "batch_t_0"), "conv_t_0"), 2, 2, 0, "avg")
    y = _pool(bn_relu(y, "batch2"), 7, 1, 0, "avg").reshape(2, -1)
    ref = y @ p["dense_weight"].T + p["dense_bias"]
    (out,), _ = build_run(mod["main"], {"data": x}, params)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
