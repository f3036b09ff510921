"""relay.vision: type inference (static and symbolic shapes, both NMS output forms, the
all-class formats), the printed attributes, and each op built and run through relay against
hand values or topi.testing's references; GPU targets are refused with a clear error."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, te
from tvmlite.error import TVMError
from tvmlite.topi.testing import (
    all_class_nms_python,
    get_valid_counts_python,
    multibox_prior_python,
    reorg_python,
    roi_align_nchw_python,
    roi_align_nhwc_python,
    roi_pool_nchw_python,
)

RNG = np.random.default_rng(3)


def infer(expr):
    if isinstance(expr, relay.TupleWrapper):
        expr = expr.astuple()
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(expr))
    return mod["main"].body.checked_type


def evaluate(params, body, *arrays):
    if isinstance(body, relay.TupleWrapper):
        body = body.astuple()
    func = relay.Function(params, body)
    out = relay.create_executor("graph", device=tvm.cpu(0), target="llvm").evaluate(func)(*arrays)
    return [o.numpy() for o in out] if isinstance(out, (list, tuple)) else out.numpy()


def test_types_symbolic_and_text():
    n = te.size_var("n")
    x = relay.var("x", relay.TensorType((n, 9, 6)))
    z = relay.vision.get_valid_counts(x, 0.4, 0, 1)
    assert "score_threshold=0.4" in z.astext()
    assert infer(z) == relay.TupleType([relay.TensorType((n,), "int32"),
                                        relay.TensorType((n, 9, 6)),
                                        relay.TensorType((n, 9), "int32")])
    v = relay.var("v", relay.TensorType((n,), "int32"))
    i = relay.var("i", relay.TensorType((n, 9), "int32"))
    assert infer(relay.vision.non_max_suppression(x, v, i, return_indices=False)) == \
        relay.TensorType((n, 9, 6))
    assert infer(relay.vision.non_max_suppression(x, v, i)) == relay.TupleType(
        [relay.TensorType((n, 9), "int32"), relay.TensorType((n, 1), "int32")])
    b = relay.var("b", relay.TensorType((2, 5, 4)))
    s = relay.var("s", relay.TensorType((2, 3, 5)))
    assert infer(relay.vision.all_class_non_max_suppression(b, s)) == relay.TupleType(
        [relay.TensorType((30, 3), "int64"), relay.TensorType((1,), "int64")])
    assert infer(relay.vision.all_class_non_max_suppression(
        b, s, output_format="tensorflow")) == relay.TupleType(
        [relay.TensorType((2, 15, 2), "int64"), relay.TensorType((2, 15), "float32"),
         relay.TensorType((2,), "int64")])
    h = te.size_var("h")
    y = relay.var("y", relay.TensorType((n, 3, h, 8)))
    z = relay.vision.yolo_reorg(y, stride=2)
    assert "stride=2" in z.astext()
    assert infer(z) == relay.TensorType((n, 12, tvm.tir.indexdiv(h, 2), 4))
    d = relay.var("d", relay.TensorType((n, 3, 5, 7)))
    assert infer(relay.vision.multibox_prior(d, (0.2, 0.4), (1.0, 2.0))) == \
        relay.TensorType((1, 105, 4))


def test_get_valid_counts_and_nms_run():
    data = RNG.uniform(-1, 1, (2, 7, 6)).astype("float32")
    x = relay.var("x", relay.TensorType(data.shape))
    gv = relay.vision.get_valid_counts(x, 0.1, 0, 1)
    got = evaluate([x], gv, data)
    for g, w in zip(got, get_valid_counts_python(data, 0.1, 0, 1)):
        np.testing.assert_array_equal(g, w)
    # NMS straight after get_valid_counts, returning the original indices
    nms = relay.vision.non_max_suppression(gv[1], gv[0], gv[2], iou_threshold=0.5,
                                           force_suppress=True)
    idx, count = evaluate([x], nms, data)
    assert idx.shape == (2, 7) and count.shape == (2, 1)
    for b in range(2):
        kept = idx[b, :count[b, 0]]
        assert (kept >= 0).all() and (idx[b, count[b, 0]:] == -1).all()
        assert (data[b, kept, 1] > 0.1).all()  # only boxes that passed the filter


def test_all_class_nms_run():
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 1.1], [0, 5, 1, 6]]], "float32")
    scores = np.array([[[0.9, 0.8, 0.7], [0.1, 0.95, 0.2]]], "float32")
    b = relay.var("b", relay.TensorType(boxes.shape))
    s = relay.var("s", relay.TensorType(scores.shape))
    idx, total = evaluate([b, s], relay.vision.all_class_non_max_suppression(b, s, 10, 0.5,
                                                                             0.15),
                          boxes, scores)
    np.testing.assert_array_equal(idx[:total[0]], all_class_nms_python(boxes, scores, 10,
                                                                        0.5, 0.15))
    assert total.tolist() == [4]


def test_multibox_run():
    shape = (1, 2, 3, 5)
    d = relay.var("d", relay.TensorType(shape))
    got = evaluate([d], relay.vision.multibox_prior(d, (0.3, 0.5), (1.0, 2.0), clip=True),
                   np.zeros(shape, "float32"))
    np.testing.assert_allclose(got, multibox_prior_python(shape, (0.3, 0.5), (1.0, 2.0),
                                                          clip=True), rtol=1e-5, atol=1e-6)
    prob = np.array([[[0.1, 0.6], [0.7, 0.3], [0.2, 0.1]]], "float32")
    anchor = np.array([[[0.2, 0.2, 0.6, 0.4], [0.0, 0.0, 1.0, 1.0]]], "float32")
    loc = np.zeros((1, 8), "float32")
    p, l_, a = (relay.var(nm, relay.TensorType(v.shape)) for nm, v in
                (("p", prob), ("l", loc), ("a", anchor)))
    mtl = relay.vision.multibox_transform_loc(p, l_, a, threshold=0.25)
    assert infer(mtl) == relay.TupleType([relay.TensorType((1, 2, 6)),
                                          relay.TensorType((1,), "int")])
    boxes, count = evaluate([p, l_, a], mtl, prob, loc, anchor)
    assert count.tolist() == [2]
    np.testing.assert_allclose(boxes[0], [[0, 0.7, 0.2, 0.2, 0.6, 0.4], [0, 0.3, 0, 0, 1, 1]],
                               rtol=1e-6)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("mode,ratio", [("avg", -1), ("max", 2)])
def test_roi_align_run(layout, mode, ratio):
    shape = (2, 3, 7, 9) if layout == "NCHW" else (2, 7, 9, 3)
    img = RNG.uniform(0, 1, shape).astype("float32")
    rois = RNG.uniform(0, 8, (5, 5)).astype("float32")
    rois[:, 0] = RNG.integers(0, 2, 5)
    d = relay.var("d", relay.TensorType(shape))
    r = relay.var("r", relay.TensorType(rois.shape))
    z = relay.vision.roi_align(d, r, (3, 2), 0.8, ratio, layout, mode)
    want = (roi_align_nchw_python if layout == "NCHW" else roi_align_nhwc_python)(
        img, rois, (3, 2), 0.8, ratio, mode)
    assert infer(z) == relay.TensorType(want.shape)
    np.testing.assert_allclose(evaluate([d, r], z, img, rois), want, rtol=1e-4, atol=1e-6)
    # a fused element-wise epilogue
    np.testing.assert_allclose(evaluate([d, r], relay.nn.relu(z - relay.const(0.5)), img, rois),
                               np.maximum(want - 0.5, 0), rtol=1e-4, atol=1e-6)


def test_roi_pool_and_proposal_run():
    img = RNG.uniform(0, 1, (1, 2, 8, 8)).astype("float32")
    rois = RNG.uniform(0, 10, (4, 5)).astype("float32")
    rois[:, 0] = 0
    d = relay.var("d", relay.TensorType(img.shape))
    r = relay.var("r", relay.TensorType(rois.shape))
    got = evaluate([d, r], relay.vision.roi_pool(d, r, 3, 0.7), img, rois)
    want = roi_pool_nchw_python(img, rois, 3, 0.7)
    np.testing.assert_allclose(got, want)
    d = relay.var("d", relay.TensorType((1, 8, 8, 2)))
    z = relay.vision.roi_pool(d, r, 3, 0.7, layout="NHWC")
    assert infer(z) == relay.TensorType((4, 3, 3, 2))
    got = evaluate([d, r], z, img.transpose(0, 2, 3, 1).copy(), rois)
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1))
    prob = np.array([[[[0.2]], [[0.8]]]], "float32")
    info = np.array([[48, 48, 1]], "float32")
    p, b, i = (relay.var(nm, relay.TensorType(v.shape)) for nm, v in
               (("p", prob), ("b", np.zeros((1, 4, 1, 1))), ("i", info)))
    z = relay.vision.proposal(p, b, i, scales=(1.0,), ratios=(1.0,), rpn_post_nms_top_n=2)
    assert infer(z) == relay.TensorType((2, 5))
    got = evaluate([p, b, i], z, prob, np.zeros((1, 4, 1, 1), "float32"), info)
    np.testing.assert_allclose(got, [[0, 0, 0, 15, 15]] * 2)


def test_yolo_reorg_run():
    x_np = RNG.uniform(-1, 1, (1, 8, 6, 4)).astype("float32")
    x = relay.var("x", relay.TensorType(x_np.shape))
    np.testing.assert_allclose(evaluate([x], relay.vision.yolo_reorg(x, 2), x_np),
                               reorg_python(x_np, 2))


def test_relay_op_vision_module_and_gpu():
    assert relay.op.vision.roi_align is relay.vision.roi_align
    assert relay.op.get("vision.non_max_suppression").num_inputs == 5
    with pytest.raises(TVMError, match="mode"):
        relay.vision.roi_align(relay.var("d", relay.TensorType((1, 1, 4, 4))),
                               relay.var("r", relay.TensorType((1, 5))), 2, 1.0, mode="min")
    x = relay.var("x", relay.TensorType((1, 4, 6)))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.vision.get_valid_counts(
        x, 0.5).astuple()))
    with pytest.raises(TVMError, match="no GPU implementation"):
        relay.build(mod, target="cuda")
