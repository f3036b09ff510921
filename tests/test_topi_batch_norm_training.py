"""topi.nn.batch_norm in training mode (batch statistics, moving statistics updated by
momentum) and in inference, with the generic and x86 schedules, against numpy loops over the
channels; odd shapes and every axis."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(9)


def expected(x, g, b, mm, mv, axis, eps, center, scale, training, momentum):
    out, new_m, new_v = np.empty_like(x), mm.copy(), mv.copy()
    for ch in range(x.shape[axis]):
        sl = np.take(x, ch, axis=axis).astype("float64")
        mean, var = (sl.mean(), ((sl - sl.mean()) ** 2).mean()) if training else (mm[ch], mv[ch])
        y = (sl - mean) / np.sqrt(var + eps)
        y = y * g[ch] if scale else y
        y = y + b[ch] if center else y
        idx = [slice(None)] * x.ndim
        idx[axis] = ch
        out[tuple(idx)] = y
        if training:
            new_m[ch] = (1 - momentum) * mm[ch] + momentum * mean
            new_v[ch] = (1 - momentum) * mv[ch] + momentum * var
    return out, new_m, new_v


@pytest.mark.parametrize("shape,axis,center,scale,training,momentum", [
    ((3,), 0, True, True, True, 0.1), ((5, 3), 1, True, False, True, 0.3),
    ((3, 4, 1, 2), 2, False, True, True, 0.0), ((2, 5, 3, 7), 1, True, True, True, 1.0),
    ((4, 1, 2, 3), -1, False, False, True, 0.2), ((2, 3, 5), 0, True, True, False, 0.1)])
@pytest.mark.parametrize("sched", ["generic", "x86"])
def test_batch_norm(shape, axis, center, scale, training, momentum, sched):
    c = shape[axis]
    x = RNG.uniform(-2, 2, shape).astype("float32")
    g, b, mm = (RNG.uniform(-1, 1, c).astype("float32") for _ in range(3))
    mv = RNG.uniform(0.5, 2, c).astype("float32")
    want = expected(x, g, b, mm, mv, axis % len(shape), 1e-3, center, scale, training,
                    momentum)
    got_ref = ref.batch_norm(x, g, b, mm, mv, axis % len(shape), 1e-3, center, scale,
                             training, momentum)
    X = te.placeholder(shape, name="X")
    P = [te.placeholder((c,), name=n) for n in ("g", "b", "mm", "mv")]
    outs = topi.nn.batch_norm(X, *P, axis, 1e-3, center, scale, training, momentum)
    s = (topi.generic if sched == "generic" else topi.x86).schedule_batch_norm(outs)
    f = tvm.build(s, [X] + P + outs, "llvm")
    res = [tvm.nd.array(np.zeros([int(d) for d in o.shape], "float32")) for o in outs]
    f(*[tvm.nd.array(a) for a in (x, g, b, mm, mv)], *res)
    for r, w, w_ref in zip(res, want, got_ref):
        np.testing.assert_allclose(r.numpy(), w, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(w_ref, w, rtol=1e-4, atol=1e-5)


def test_batch_norm_momentum_range():
    X = te.placeholder((2, 3), name="X")
    P = [te.placeholder((3,), name=n) for n in ("g", "b", "mm", "mv")]
    with pytest.raises(TopiError, match="momentum"):
        topi.nn.batch_norm(X, *P, 1, 1e-5, True, True, True, 1.5)
