"""topi.vision.ssd: multibox_prior (hand-computed boxes, random sizes/ratios/steps on odd
grids against topi.testing's loop reference, clipping), multibox_transform_loc (decoding
by hand, class choice, threshold) and multibox_detection (decode + NMS)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.testing import multibox_prior_python

RNG = np.random.default_rng(5)


def run(outs, ins, arrays, schedule):
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    f = tvm.build(schedule(outs), [*ins, *outs], "llvm")
    res = [tvm.nd.array(np.full([int(d) for d in o.shape], 77, o.dtype)) for o in outs]
    f(*[tvm.nd.array(a) for a in arrays], *res)
    return [r.numpy() for r in res]


def prior(shape, **kw):
    x = te.placeholder(shape)
    return run(topi.vision.ssd.multibox_prior(x, **kw), [x], [np.zeros(shape, "float32")],
               topi.generic.schedule_multibox_prior)[0]


def test_multibox_prior_hand():
    out = prior((1, 1, 1, 1), sizes=(0.5,), ratios=(1.0, 4.0))
    # centre (0.5, 0.5); size 0.5: half 0.25; ratio 4: half-width 0.5, half-height 0.125
    np.testing.assert_allclose(out[0], [[0.25, 0.25, 0.75, 0.75], [0, 0.375, 1, 0.625]])
    out = prior((1, 1, 2, 1), sizes=(1.0,), steps=(0.5, 1.0), offsets=(0.5, 0.5))
    # H = 2, W = 1: half-width 1 * 2 / 1 / 2 = 1; centres y = 0.25 and 0.75
    np.testing.assert_allclose(out[0], [[-0.5, -0.25, 1.5, 0.75], [-0.5, 0.25, 1.5, 1.25]])
    clipped = prior((1, 1, 2, 1), sizes=(1.0,), steps=(0.5, 1.0), clip=True)
    np.testing.assert_allclose(clipped[0], [[0, 0, 1, 0.75], [0, 0.25, 1, 1]])


@pytest.mark.parametrize("shape,sizes,ratios,steps,offsets,clip", [
    ((2, 3, 5, 7), (0.3, 0.6), (1.0, 2.0, 0.5), (-1, -1), (0.5, 0.5), False),
    ((1, 1, 9, 4), (0.2,), (1.5,), (0.1, 0.3), (0.2, 0.7), True),
    ((1, 2, 3, 3), (0.9, 0.4, 0.1), (1.0, 3.0), (-1, 0.5), (0.0, 1.0), True)])
def test_multibox_prior_random(shape, sizes, ratios, steps, offsets, clip):
    got = prior(shape, sizes=sizes, ratios=ratios, steps=steps, offsets=offsets, clip=clip)
    want = multibox_prior_python(shape, sizes, ratios, steps, offsets, clip)
    assert got.shape == (1, shape[2] * shape[3] * (len(sizes) + len(ratios) - 1), 4)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def transform(prob, loc, anchor, **kw):
    p, l_, a = (te.placeholder(x.shape) for x in (prob, loc, anchor))
    outs = topi.vision.ssd.multibox_transform_loc(p, l_, a, **kw)
    return run(outs, [p, l_, a], [prob, loc, anchor], topi.generic.schedule_multibox_transform_loc)


def test_multibox_transform_loc_hand():
    # 2 anchors, classes (background, a, b) along axis 1
    prob = np.array([[[0.1, 0.6], [0.7, 0.3], [0.2, 0.1]]], "float32")
    anchor = np.array([[[0.2, 0.2, 0.6, 0.4], [0.0, 0.0, 1.0, 1.0]]], "float32")
    loc = np.array([[0.5, -1.0, 0.0, np.log(2.0) / 0.2, 0, 0, 0, 0]], "float32")
    boxes, count = transform(prob, loc, anchor, clip=False, threshold=0.25)
    assert count.tolist() == [2]
    # anchor 0: class a (0.7); centre (0.4 + 0.5 * 0.1 * 0.4, 0.3 - 1 * 0.1 * 0.2), size
    # (0.4, 0.2 * 2)
    np.testing.assert_allclose(boxes[0, 0], [0, 0.7, 0.22, 0.08, 0.62, 0.48], rtol=1e-5)
    # anchor 1: best non-background class is a (0.3); zero deltas keep the anchor
    np.testing.assert_allclose(boxes[0, 1], [0, 0.3, 0, 0, 1, 1], rtol=1e-6)
    boxes, count = transform(prob, loc, anchor, clip=False, threshold=0.5)
    assert count.tolist() == [1] and (boxes[0, 1] == -1).all()  # 0.3 < 0.5


def test_multibox_transform_loc_clip_and_batch():
    prob = RNG.uniform(0, 1, (3, 4, 5)).astype("float32")
    anchor = RNG.uniform(0, 1, (1, 5, 4)).astype("float32")
    loc = RNG.uniform(-3, 3, (3, 20)).astype("float32")
    boxes, count = transform(prob, loc, anchor, clip=True, threshold=0.5)
    for b in range(3):
        best = prob[b, 1:].max(axis=0)
        assert count[b] == (best >= 0.5).sum()
        kept = boxes[b, :count[b]]
        np.testing.assert_allclose(kept[:, 1], best[best >= 0.5], rtol=1e-6)
        np.testing.assert_array_equal(kept[:, 0], prob[b, 1:].argmax(axis=0)[best >= 0.5])
        assert ((kept[:, 2:] >= 0) & (kept[:, 2:] <= 1)).all()


def test_multibox_detection_suppresses_overlaps():
    # two anchors decode to the same box of one class: the lower score is suppressed
    prob = np.array([[[0.1, 0.2, 0.9], [0.9, 0.8, 0.1]]], "float32")
    anchor = np.array([[[0.1, 0.1, 0.5, 0.5], [0.1, 0.1, 0.5, 0.5], [0.6, 0.6, 0.9, 0.9]]],
                      "float32")
    loc = np.zeros((1, 12), "float32")
    p, l_, a = (te.placeholder(x.shape) for x in (prob, loc, anchor))
    out = topi.vision.ssd.multibox_detection(p, l_, a, threshold=0.5)
    got, = run(out, [p, l_, a], [prob, loc, anchor], topi.generic.schedule_multibox_detection)
    np.testing.assert_allclose(got[0, 0], [0, 0.9, 0.1, 0.1, 0.5, 0.5], rtol=1e-6)
    assert (got[0, 1:] == -1).all()  # anchor 1 suppressed; anchor 2 is background
