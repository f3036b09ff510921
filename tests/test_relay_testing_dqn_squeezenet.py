"""relay.testing.dqn and relay.testing.squeezenet: their parameters, and their outputs against
numpy (DQN) or the softmax's properties (SqueezeNet) on small inputs."""
import numpy as np
import pytest
from relay_helpers import build_run

from tvmlite import relay
from tvmlite.relay.testing import dqn, squeezenet
from tvmlite.topi.testing import conv2d_nchw_python


def _conv_bias_relu(x, w, b, stride, pad=0):
    return np.maximum(conv2d_nchw_python(x, w, stride, pad) + b[None, :, None, None], 0)


def test_dqn_matches_numpy():
    mod, params = dqn.get_workload(batch_size=2, num_actions=5, image_shape=(4, 36, 36))
    p = {k: v.numpy() for k, v in params.items()}
    assert sorted(p) == sorted([f"conv{i}_{k}" for i in (1, 2, 3) for k in ("weight", "bias")]
                               + [f"dense{i}_{k}" for i in (1, 2) for k in ("weight", "bias")])
    assert p["conv1_weight"].shape == (32, 4, 8, 8) and p["dense2_weight"].shape == (5, 512)
    x = np.random.default_rng(0).standard_normal((2, 4, 36, 36)).astype("float32")
    (out,), _ = build_run(mod["main"], {"data": x}, params)
    y = _conv_bias_relu(x, p["conv1_weight"], p["conv1_bias"], 4)
    y = _conv_bias_relu(y, p["conv2_weight"], p["conv2_bias"], 2)
    y = _conv_bias_relu(y, p["conv3_weight"], p["conv3_bias"], 1).reshape(2, -1)
    y = np.maximum(y @ p["dense1_weight"].T + p["dense1_bias"], 0)
    ref = y @ p["dense2_weight"].T + p["dense2_bias"]
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("version, stem", [("1.0", (96, 3, 7, 7)), ("1.1", (64, 3, 3, 3))])
def test_squeezenet_versions(version, stem):
    mod, params = squeezenet.get_workload(1, num_classes=7, version=version,
                                          image_shape=(3, 67, 67))
    assert len(params) == 2 + 8 * 3 * 2 + 2
    assert params["conv1_weight"].shape == stem
    assert params["fire8_right_conv_weight"].shape == (256, 64, 3, 3)
    x = np.random.default_rng(1).standard_normal((1, 3, 67, 67)).astype("float32")
    (out,), _ = build_run(mod["main"], {"data": x}, params)
    assert out.shape == (1, 7) and np.all(out >= 0)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-5)
    assert relay.transform.InferType()(mod)["main"].body.checked_type == \
        relay.TensorType((1, 7), "float32")
    with pytest.raises(relay.expr.TVMError, match="1.0 or 1.1 expected"):
        squeezenet.get_workload(version="2.0")
