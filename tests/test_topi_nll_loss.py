"""topi.nn.nll_loss against an element-by-element loop, every reduction, with and without a
batch, odd sizes and ignored targets; topi.testing.nll_loss agrees with the same loop."""
import itertools

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(5)


def loop_nll(pred, tgt, w, reduction, ignore):
    losses, wsum = np.zeros(tgt.shape, "float64"), 0.0
    for idx in itertools.product(*[range(d) for d in tgt.shape]):
        c = int(tgt[idx])
        if c == ignore:
            continue
        p = pred[(idx[0], c) + idx[1:]] if pred.ndim > 1 else pred[c]
        losses[idx] = -p * w[c]
        wsum += w[c]
    if reduction == "mean":
        return losses.sum() / wsum
    return losses.sum() if reduction == "sum" else losses


@pytest.mark.parametrize("shape", [(7, 5), (3, 4, 2, 3), (1, 3, 5), (5,)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [-100, 2])
def test_nll_loss(shape, reduction, ignore):
    c = shape[1] if len(shape) > 1 else shape[0]
    tshape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    pred = RNG.uniform(-3, 0, shape).astype("float32")
    tgt = RNG.integers(0, c, tshape).astype("int32")
    if len(shape) == 1 and ignore == 2:
        tgt = np.array(0 if tgt == 2 else tgt, "int32")  # one target: keep it counted
    w = RNG.uniform(0.5, 2, c).astype("float32")
    want = loop_nll(pred, tgt, w, reduction, ignore)
    np.testing.assert_allclose(ref.nll_loss(pred, tgt, w, reduction, ignore), want, rtol=1e-5)
    P = te.placeholder(shape, name="P")
    T = te.placeholder(tshape, "int32", "T")
    W = te.placeholder((c,), name="W")
    out = topi.nn.nll_loss(P, T, W, reduction, ignore)
    f = tvm.build(topi.generic.schedule_reduce(out), [P, T, W, out], "llvm")
    res = tvm.nd.array(np.zeros([int(x) for x in out.shape], "float32"))
    f(tvm.nd.array(pred), tvm.nd.array(tgt), tvm.nd.array(w), res)
    np.testing.assert_allclose(res.numpy(), want, rtol=1e-5, atol=1e-6)


def test_nll_loss_errors():
    P, W = te.placeholder((4, 3), name="P"), te.placeholder((3,), name="W")
    with pytest.raises(TopiError, match="reduction"):
        topi.nn.nll_loss(P, te.placeholder((4,), "int32"), W, "max", -100)
    with pytest.raises(TopiError, match="targets must have shape"):
        topi.nn.nll_loss(P, te.placeholder((3,), "int32"), W, "sum", -100)
    with pytest.raises(TopiError, match="integer"):
        topi.nn.nll_loss(P, te.placeholder((4,)), W, "sum", -100)
    with pytest.raises(TopiError, match="weights"):
        topi.nn.nll_loss(P, te.placeholder((4,), "int32"), te.placeholder((4,)), "sum", -100)
