"""topi.nn.lstm (a te.scan) against the step-by-step numpy recurrence (topi.testing.
lstm_python), itself checked on one step computed by hand; every option, odd sizes."""
import math

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(53)


def test_reference_one_step_by_hand():
    x, wi, wh, bi, bh = 0.5, [0.1, 0.2, 0.3, 0.4], [0.5, -0.6, 0.7, -0.8], [0.01] * 4, [0.0] * 4
    h0, c0 = 0.3, -0.2
    z = [x * wi[k] + h0 * wh[k] + bi[k] + bh[k] for k in range(4)]  # IFGO
    sig = lambda v: 1 / (1 + math.exp(-v))  # noqa: E731
    c = sig(z[1]) * c0 + sig(z[0]) * math.tanh(z[2])
    h = sig(z[3]) * math.tanh(c)
    f32 = lambda v: np.array(v, "float32").reshape  # noqa: E731
    hs, cs = ref.lstm_python(f32([x])(1, 1, 1), f32(wi)(4, 1), f32(wh)(4, 1), f32(bi)(4),
                             f32(bh)(4), f32([h0])(1, 1), f32([c0])(1, 1))
    np.testing.assert_allclose([hs[0, 0, 0], cs[0, 0, 0]], [h, c], rtol=1e-6)


@pytest.mark.parametrize("seq,batch,in_dim,hidden,proj_dim,bias,zero_init,peephole,reverse,"
                         "layout", [
                             (1, 1, 1, 1, 0, True, True, False, False, "IFGO"),
                             (5, 3, 7, 6, 0, True, False, False, False, "IFGO"),
                             (4, 2, 5, 9, 3, False, True, False, False, "IOFG"),
                             (3, 3, 4, 5, 0, True, False, True, False, "GOIF"),
                             (6, 1, 3, 4, 0, True, True, False, True, "IFGO"),
                             (7, 2, 3, 5, 4, True, False, True, True, "OIGF")])
def test_lstm(seq, batch, in_dim, hidden, proj_dim, bias, zero_init, peephole, reverse,
              layout):
    out_dim = proj_dim or hidden

    def rand(*shape):
        return RNG.uniform(-0.5, 0.5, shape).astype("float32")
    args = [rand(seq, batch, in_dim), rand(4 * hidden, in_dim), rand(4 * hidden, out_dim),
            rand(4 * hidden) if bias else None, rand(4 * hidden) if bias else None,
            None if zero_init else rand(batch, out_dim),
            None if zero_init else rand(batch, hidden),
            rand(proj_dim, hidden) if proj_dim else None]
    args += [rand(batch, hidden) if peephole else None for _ in range(3)]
    hs_np, cs_np = ref.lstm_python(*args, reverse=reverse, weight_layout=layout)
    pls = [None if a is None else te.placeholder(a.shape, name=f"a{k}")
           for k, a in enumerate(args)]
    hs, cs = topi.nn.lstm(*pls, reverse=reverse, weight_layout=layout)
    real = [p for p in pls if p is not None]
    f = tvm.build(topi.generic.schedule_lstm([hs, cs]), real + [hs, cs], "llvm")
    res = [tvm.nd.array(np.zeros(a.shape, "float32")) for a in (hs_np, cs_np)]
    f(*[tvm.nd.array(a) for a in args if a is not None], *res)
    np.testing.assert_allclose(res[0].numpy(), hs_np, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(res[1].numpy(), cs_np, rtol=1e-4, atol=1e-6)


def test_lstm_errors():
    X, W = te.placeholder((2, 1, 3)), te.placeholder((8, 3))
    with pytest.raises(TopiError, match="permutation"):
        topi.nn.lstm(X, W, te.placeholder((8, 2)), weight_layout="IFGG")
    with pytest.raises(TopiError, match="4 \\* hidden_dim"):
        topi.nn.lstm(X, te.placeholder((6, 3)), te.placeholder((6, 2)))
