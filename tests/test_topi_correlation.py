"""topi.nn.correlation_nchw (FlowNet correlation) against scalar loops over the padded
inputs; odd shapes, both strides, every padding form and both modes."""
import itertools

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(17)


def loops(a, b, k, md, s1, s2, pads, mult):
    top, left, bottom, right = pads
    n, c, h, w = a.shape
    pa = np.zeros((n, c, h + top + bottom, w + left + right))
    pb = np.zeros_like(pa)
    pa[:, :, top:top + h, left:left + w], pb[:, :, top:top + h, left:left + w] = a, b
    r, d = md // s2, 2 * (md // s2) + 1
    oh = -(-(pa.shape[2] - 2 * (md + k // 2)) // s1)
    ow = -(-(pa.shape[3] - 2 * (md + k // 2)) // s1)
    out = np.zeros((n, d * d, oh, ow))
    for nn, q, i, j in itertools.product(range(n), range(d * d), range(oh), range(ow)):
        acc = 0.0
        for ch, y, x in itertools.product(range(c), range(k), range(k)):
            y1, x1 = i * s1 + md + y, j * s1 + md + x
            y2, x2 = y1 + (q // d - r) * s2, x1 + (q % d - r) * s2
            u, v = pa[nn, ch, y1, x1], pb[nn, ch, y2, x2]
            acc += u * v if mult else abs(u - v)
        out[nn, q, i, j] = acc / (k * k * c)
    return out


@pytest.mark.parametrize("shape,k,md,s1,s2,pad,mult", [
    ((1, 3, 7, 6), 1, 2, 1, 1, 2, True), ((2, 1, 5, 5), 3, 1, 2, 1, 2, True),
    ((2, 2, 6, 5), 3, 1, 2, 2, (2, 1), False), ((1, 1, 9, 7), 5, 1, 1, 1, (2, 3, 2, 3), False),
    ((1, 2, 5, 8), 1, 3, 2, 2, 3, True)])
def test_correlation_nchw(shape, k, md, s1, s2, pad, mult):
    a = RNG.uniform(-1, 1, shape).astype("float32")
    b = RNG.uniform(-1, 1, shape).astype("float32")
    pads = [pad] * 4 if isinstance(pad, int) else list(pad) * 2 if len(pad) == 2 else pad
    want = loops(a, b, k, md, s1, s2, pads, mult)
    np.testing.assert_allclose(ref.correlation_nchw_python(a, b, k, md, s1, s2, pad, mult),
                               want, rtol=1e-5, atol=1e-6)
    A, B = te.placeholder(shape, name="A"), te.placeholder(shape, name="B")
    C = topi.nn.correlation_nchw(A, B, k, md, s1, s2, pad, mult)
    f = tvm.build(topi.generic.schedule_correlation_nchw([C]), [A, B, C], "llvm")
    res = tvm.nd.array(np.zeros(want.shape, "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), res)
    np.testing.assert_allclose(res.numpy(), want, rtol=1e-5, atol=1e-6)


def test_correlation_errors():
    A = te.placeholder((1, 2, 6, 6), name="A")
    with pytest.raises(TopiError, match="odd"):
        topi.nn.correlation_nchw(A, A, 2, 1, 1, 1, 1, True)
    with pytest.raises(TopiError, match="same shape"):
        topi.nn.correlation_nchw(A, te.placeholder((1, 2, 6, 5)), 1, 1, 1, 1, 1, True)
    with pytest.raises(TopiError, match="padding"):
        topi.nn.correlation_nchw(A, A, 1, 1, 1, 1, (1, 2, 3), True)
