"""relay.mean_variance / mean_std (float16 accumulated in float32), strided_slice's
slice_mode="size", against numpy on odd sizes."""
import numpy as np
import pytest

from tvmlite import relay
from tvmlite.relay.testing import run_infer_type

RNG = np.random.default_rng(41)


def _evaluate(y, params, arrays):
    f = relay.create_executor("graph", target="llvm").evaluate(relay.Function(params, y))
    res = f(*arrays)
    return [r.numpy() for r in res] if isinstance(res, (list, tuple)) else res.numpy()


@pytest.mark.parametrize("axis, keepdims, exclude", [(1, True, False), ((0, 2), False, False),
                                                     (None, False, False), ((1,), False, True)])
@pytest.mark.parametrize("unbiased", [False, True])
def test_mean_variance(axis, keepdims, exclude, unbiased):
    x = RNG.uniform(size=(3, 5, 7)).astype("float32")
    v = relay.var("x", relay.TensorType(x.shape, "float32"))
    ax = axis if not exclude else tuple(k for k in range(3) if k not in axis)
    m, var = _evaluate(relay.mean_variance(v, axis, keepdims, exclude, unbiased).astuple(),
                       [v], [x])
    np.testing.assert_allclose(m, x.mean(axis=ax, keepdims=keepdims), rtol=1e-5)
    np.testing.assert_allclose(var, x.var(axis=ax, keepdims=keepdims, ddof=int(unbiased)),
                               rtol=1e-4)
    m, s = _evaluate(relay.mean_std(v, axis, keepdims, exclude).astuple(), [v], [x])
    np.testing.assert_allclose(s, x.std(axis=ax, keepdims=keepdims), rtol=1e-4)


def test_float16_mean_of_many_elements():
    x = RNG.uniform(size=(64, 3, 96)).astype("float16")
    v = relay.var("x", relay.TensorType(x.shape, "float16"))
    m, var = _evaluate(relay.mean_variance(v, (0, 2)).astuple(), [v], [x])
    want = x.astype("float64")
    np.testing.assert_allclose(m, want.mean(axis=(0, 2)), rtol=1e-2)
    np.testing.assert_allclose(var, want.var(axis=(0, 2)), rtol=2e-2)


def test_strided_slice_size_mode():
    x = RNG.uniform(size=(3, 6, 5)).astype("float32")
    v = relay.var("x", relay.TensorType(x.shape, "float32"))
    y = relay.strided_slice(v, [1, -4, 0], [2, -1, 3], slice_mode="size")
    assert run_infer_type(y).checked_type == relay.TensorType((2, 4, 3), "float32")
    np.testing.assert_allclose(_evaluate(y, [v], [x]), x[1:3, 2:, 0:3])
