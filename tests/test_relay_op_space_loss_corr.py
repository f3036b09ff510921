"""relay nn.space_to_batch_nd / batch_to_space_nd, nn.nll_loss and nn.correlation (the
relay wrappers of their TOPI computes) against numpy on odd sizes."""
import numpy as np
import pytest

from tvmlite import relay
from tvmlite.relay.testing import run_infer_type
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(17)


def _evaluate(y, params, arrays):
    f = relay.create_executor("graph", target="llvm").evaluate(relay.Function(params, y))
    return f(*arrays).numpy()


def _space_to_batch(x, block, pads):
    """TensorFlow's definition: pad, split each spatial axis into (S / b, b), move the b's
    in front of the batch."""
    m = len(block)
    x = np.pad(x, [(0, 0)] + list(pads) + [(0, 0)] * (x.ndim - 1 - m))
    n, rest = x.shape[0], x.shape[1 + m:]
    shape = [n]
    for s, b in zip(x.shape[1:1 + m], block):
        shape += [s // b, b]
    x = x.reshape(shape + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, x.ndim))
    x = x.transpose(perm)
    return x.reshape([n * int(np.prod(block))] + [x.shape[m + 1 + i] for i in range(m)]
                     + list(rest))


@pytest.mark.parametrize("shape, block, pads", [((2, 3, 5, 2), (2, 3), ((1, 0), (0, 1))),
                                                ((3, 7, 1), (3,), ((1, 1),))])
def test_space_to_batch_and_back(shape, block, pads):
    x = RNG.uniform(size=shape).astype("float32")
    v = relay.var("x", relay.TensorType(shape, "float32"))
    y = relay.nn.space_to_batch_nd(v, block, pads)
    want = _space_to_batch(x, block, pads)
    assert run_infer_type(y).checked_type == relay.TensorType(want.shape, "float32")
    np.testing.assert_allclose(_evaluate(y, [v], [x]), want)
    back = relay.nn.batch_to_space_nd(y, block, pads)
    np.testing.assert_allclose(_evaluate(back, [v], [x]), x)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(reduction):
    p = RNG.uniform(size=(5, 4, 3)).astype("float32")
    t = RNG.integers(0, 4, (5, 3)).astype("int32")
    t[0, 0] = 2  # the ignored class
    w = RNG.uniform(size=(4,)).astype("float32")
    out = np.zeros(t.shape)
    used = np.zeros(t.shape)
    for n, i in np.ndindex(*t.shape):
        if t[n, i] != 2:
            out[n, i] = -p[n, t[n, i], i] * w[t[n, i]]
            used[n, i] = w[t[n, i]]
    want = {"none": out, "sum": out.sum(), "mean": out.sum() / used.sum()}[reduction]
    pv, tv, wv = (relay.var(k, relay.TensorType(a.shape, str(a.dtype)))
                  for k, a in (("p", p), ("t", t), ("w", w)))
    y = relay.nn.nll_loss(pv, tv, wv, reduction, ignore_index=2)
    assert run_infer_type(y).checked_type.shape == (t.shape if reduction == "none" else ())
    np.testing.assert_allclose(_evaluate(y, [pv, tv, wv], [p, t, w]), want, rtol=1e-5)


def test_correlation():
    a = RNG.uniform(size=(2, 3, 7, 6)).astype("float32")
    b = RNG.uniform(size=(2, 3, 7, 6)).astype("float32")
    want = ref.correlation_nchw_python(a, b, 3, 2, 2, 1, 2, False)
    av, bv = (relay.var(k, relay.TensorType(a.shape, "float32")) for k in "ab")
    y = relay.nn.correlation(av, bv, 3, 2, 2, 1, 2, False, "NCHW")
    assert run_infer_type(y).checked_type == relay.TensorType(want.shape, "float32")
    np.testing.assert_allclose(_evaluate(y, [av, bv], [a, b]), want, rtol=1e-5, atol=1e-6)
    # one output by hand: output (0, 1) is centred at border 3 + (0, 1) * stride1 2 of the
    # padded maps; displacement (dy, dx) = (-1, 2) is channel (dy + 2) * 5 + (dx + 2)
    pa, pb = (np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2))) for x in (a, b))
    cy, cx = 3, 5
    win = np.abs(pa[0, :, cy - 1:cy + 2, cx - 1:cx + 2]
                 - pb[0, :, cy - 2:cy + 1, cx + 1:cx + 4])
    np.testing.assert_allclose(want[0, 9, 0, 1], win.mean(), rtol=1e-5)
