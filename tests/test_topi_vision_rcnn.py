"""topi.vision.rcnn: roi_align (NCHW and NHWC, avg and max, fixed and adaptive sampling),
roi_pool and proposal, on hand-computed cases (a linear ramp image, a box repeated to fill
the output, regression by deltas) and random ROIs of odd sizes against the loop references
in topi.testing."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.testing import roi_align_nchw_python, roi_align_nhwc_python, roi_pool_nchw_python
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(11)


def run(out, ins, arrays, schedule):
    f = tvm.build(schedule(out), [*ins, out], "llvm")
    res = tvm.nd.array(np.full([int(d) for d in out.shape], 77, out.dtype))
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


def random_rois(n, batch, size):
    rois = RNG.uniform(-0.2, 1.1, (n, 5)).astype("float32") * size
    rois[:, 0] = RNG.integers(0, batch, n)
    return rois


def test_roi_align_linear_ramp():
    # on data = x, bilinear samples are exact: each bin averages its samples' x
    img = np.tile(np.arange(8, dtype="float32"), (1, 2, 8, 1))
    rois = np.array([[0, 1, 1, 5, 5]], "float32")
    a, r = te.placeholder(img.shape), te.placeholder(rois.shape)
    out = run(topi.vision.roi_align_nchw(a, r, 2, 1.0, "avg", 2), [a, r], [img, rois],
              topi.generic.schedule_roi_align)
    # bin 0 samples x = 1.5, 2.5; bin 1 samples x = 3.5, 4.5
    np.testing.assert_allclose(out[0, :, :, 0], 2.0)
    np.testing.assert_allclose(out[0, :, :, 1], 4.0)
    out = run(topi.vision.roi_align_nchw(a, r, 2, 1.0, "max", 2), [a, r], [img, rois],
              topi.generic.schedule_roi_align)
    np.testing.assert_allclose(out[0, 0], [[2.5, 4.5], [2.5, 4.5]])


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("shape,n,pooled,scale,ratio,mode", [
    ((1, 3, 9, 11), 5, 3, 1.0, -1, "avg"), ((2, 2, 7, 7), 7, (2, 3), 0.5, 2, "max"),
    ((3, 4, 10, 6), 4, 4, 0.75, 1, 0), ((1, 1, 5, 5), 3, 2, 1.0, -1, b"max")])
def test_roi_align_random(layout, shape, n, pooled, scale, ratio, mode):
    img = RNG.uniform(-1, 1, shape).astype("float32")
    rois = random_rois(n, shape[0], max(shape[2:]))
    if layout == "NHWC":
        img = img.transpose(0, 2, 3, 1).copy()
        fn, ref = topi.vision.roi_align_nhwc, roi_align_nhwc_python
    else:
        fn, ref = topi.vision.roi_align_nchw, roi_align_nchw_python
    a, r = te.placeholder(img.shape), te.placeholder(rois.shape)
    out = run(fn(a, r, pooled, scale, mode, ratio), [a, r], [img, rois],
              topi.generic.schedule_roi_align)
    np.testing.assert_allclose(out, ref(img, rois, pooled, scale, ratio, mode), rtol=1e-4,
                               atol=1e-5)


def test_roi_align_x86_and_errors():
    assert topi.x86.roi_align_nchw is topi.vision.roi_align_nchw
    a, r = te.placeholder((1, 1, 4, 4)), te.placeholder((2, 5))
    with pytest.raises(TopiError, match="mode"):
        topi.vision.roi_align_nchw(a, r, 2, 1.0, "min")
    with pytest.raises(TopiError, match="rois"):
        topi.vision.roi_align_nchw(a, te.placeholder((2, 4)), 2, 1.0, "avg")


def test_roi_pool_hand():
    img = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    # ROI 0: rows/cols 0..1 in one bin; ROI 1: the whole image in 2x2 bins; ROI 2: outside
    rois = np.array([[0, 0, 0, 1, 1], [0, 0, 0, 3, 3], [0, 9, 9, 12, 12]], "float32")
    a, r = te.placeholder(img.shape), te.placeholder(rois.shape)
    out = run(topi.vision.roi_pool_nchw(a, r, 2, 1.0), [a, r], [img, rois],
              topi.generic.schedule_roi_pool)
    np.testing.assert_array_equal(out[0, 0], [[0, 1], [4, 5]])  # 1-pixel bins
    np.testing.assert_array_equal(out[1, 0], [[5, 7], [13, 15]])
    np.testing.assert_array_equal(out[2, 0], [[0, 0], [0, 0]])  # empty bins are 0


@pytest.mark.parametrize("shape,n,pooled,scale", [
    ((1, 3, 9, 11), 6, 3, 1.0), ((2, 2, 8, 8), 9, (2, 4), 0.5), ((3, 1, 5, 7), 4, 5, 1.5)])
def test_roi_pool_random(shape, n, pooled, scale):
    img = RNG.uniform(-1, 1, shape).astype("float32")
    rois = random_rois(n, shape[0], max(shape[2:]))
    a, r = te.placeholder(img.shape), te.placeholder(rois.shape)
    out = run(topi.vision.roi_pool_nchw(a, r, pooled, scale), [a, r], [img, rois],
              topi.generic.schedule_roi_pool)
    np.testing.assert_allclose(out, roi_pool_nchw_python(img, rois, pooled, scale))


def proposal(prob, delta, info, **kw):
    p, d, i = (te.placeholder(x.shape) for x in (prob, delta, info))
    out = topi.vision.rcnn.proposal(p, d, i, **kw)
    return run(out, [p, d, i], [prob, delta, info], topi.generic.schedule_proposal)


def test_proposal_one_anchor():
    # one anchor of ratio 1 and scale 1 on a 16-pixel stride: the box (0, 0, 15, 15)
    kw = dict(scales=(1.0,), ratios=(1.0,), feature_stride=16, threshold=0.7,
              rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=3, rpn_min_size=16, iou_loss=False)
    prob = np.array([[[[0.2]], [[0.8]]]], "float32")
    info = np.array([[48, 48, 1]], "float32")
    out = proposal(prob, np.zeros((1, 4, 1, 1), "float32"), info, **kw)
    np.testing.assert_allclose(out, [[0, 0, 0, 15, 15]] * 3)  # repeated to fill the rows
    # centre/size deltas: dx = 0.5 moves by half the width; dw = log 2 doubles it
    delta = np.array([0.5, 0, np.log(2), 0], "float32").reshape(1, 4, 1, 1)
    out = proposal(prob, delta, info, **kw)
    # centre 7.5 + 8 = 15.5, width 32: x from 15.5 - 15.5 to 15.5 + 15.5
    np.testing.assert_allclose(out[0], [0, 0, 0, 31, 15], rtol=1e-5)
    kw["iou_loss"] = True  # corner deltas
    delta = np.array([1, 2, -1, -2], "float32").reshape(1, 4, 1, 1)
    # (1, 2, 14, 13) is 14 x 12, under rpn_min_size 16: it grows by 8 on each side
    np.testing.assert_allclose(proposal(prob, delta, info, **kw)[0], [0, -7, -6, 22, 21])
    kw["rpn_min_size"] = 1
    np.testing.assert_allclose(proposal(prob, delta, info, **kw)[0], [0, 1, 2, 14, 13])


def test_proposal_nms_and_order():
    # two cells, one anchor each; the second cell's box is far away and scores higher
    kw = dict(scales=(1.0,), ratios=(1.0,), feature_stride=16, threshold=0.7,
              rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=4, rpn_min_size=1, iou_loss=False)
    prob = np.array([[[[0.0, 0.0]], [[0.3, 0.9]]]], "float32")
    info = np.array([[16, 48, 1]], "float32")
    out = proposal(prob, np.zeros((1, 4, 1, 2), "float32"), info, **kw)
    np.testing.assert_allclose(out, [[0, 16, 0, 31, 15], [0, 0, 0, 15, 15]] * 2)
    # a 16-pixel image: the second cell is past it (score -1, last) and clipped to x = 15
    # (IoU 16 / 256 with the first: kept)
    info = np.array([[16, 16, 1]], "float32")
    out = proposal(prob, np.zeros((1, 4, 1, 2), "float32"), info, **kw)
    np.testing.assert_allclose(out, [[0, 0, 0, 15, 15], [0, 15, 0, 15, 15]] * 2)
    # a threshold under 1/16 suppresses it: the first box fills every row
    kw["threshold"] = 0.05
    out = proposal(prob, np.zeros((1, 4, 1, 2), "float32"), info, **kw)
    np.testing.assert_allclose(out, [[0, 0, 0, 15, 15]] * 4)


def test_proposal_bad_channels():
    p, d, i = te.placeholder((1, 3, 2, 2)), te.placeholder((1, 4, 2, 2)), te.placeholder((1, 3))
    with pytest.raises(TopiError, match="channels"):
        topi.vision.proposal(p, d, i, (1.0,), (1.0,), 16, 0.7, 10, 5, 16, False)
