"""topi.vision.get_valid_counts, non_max_suppression and all_class_non_max_suppression:
hand-computed boxes (suppression by IoU, per class and forced, top_k, max_output_size,
return_indices, invalid_to_bottom, tensor thresholds) and random inputs of odd sizes
against the loop references in topi.testing."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.testing import (
    all_class_nms_python,
    get_valid_counts_python,
    non_max_suppression_python,
)
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(7)


def run(outs, ins, arrays):
    """Build ``outs`` (one tensor or a list) with the generic NMS schedule and run it."""
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    f = tvm.build(topi.generic.schedule_nms(outs), [*ins, *outs], "llvm")
    res = [tvm.nd.array(np.full([int(d) for d in o.shape], 77, o.dtype)) for o in outs]
    f(*[tvm.nd.array(a) for a in arrays], *res)
    return [r.numpy() for r in res]


def random_boxes(batch, num, elen, id_index, score_index, coord_start, classes=3):
    data = RNG.uniform(-0.2, 1.0, (batch, num, elen)).astype("float32")
    xy = RNG.uniform(0, 10, (batch, num, 2))
    wh = RNG.uniform(1, 5, (batch, num, 2))
    data[:, :, coord_start:coord_start + 2] = xy
    data[:, :, coord_start + 2:coord_start + 4] = xy + wh
    if id_index >= 0:
        data[:, :, id_index] = RNG.integers(-1, classes, (batch, num))
    return data


# --------------------------------------------------------------------- get_valid_counts
def test_get_valid_counts_hand():
    data = np.array([[[0, 0.9, 1, 1, 2, 2], [-1, 0.8, 0, 0, 1, 1], [1, 0.1, 3, 3, 4, 4],
                      [2, 0.6, 5, 5, 6, 6]]], "float32")
    x = te.placeholder(data.shape, name="x")
    count, out, idx = run(topi.vision.get_valid_counts(x, 0.5, 0, 1), [x], [data])
    assert count.tolist() == [2]  # row 1 has a negative class id, row 2 a low score
    np.testing.assert_array_equal(out[0, :2], data[0, [0, 3]])
    assert (out[0, 2:] == -1).all()
    assert idx.tolist() == [[0, 3, -1, -1]]


@pytest.mark.parametrize("shape,thr,id_index,score_index", [
    ((3, 7, 6), 0.3, 0, 1), ((2, 11, 5), 0.0, -1, 0), ((1, 1, 6), 0.5, 1, 0),
    ((4, 13, 7), -1.0, 2, 5)])
def test_get_valid_counts_random(shape, thr, id_index, score_index):
    data = RNG.uniform(-1, 1, shape).astype("float32")
    x = te.placeholder(shape, name="x")
    got = run(topi.vision.get_valid_counts(x, thr, id_index, score_index), [x], [data])
    for g, w in zip(got, get_valid_counts_python(data, thr, id_index, score_index)):
        np.testing.assert_array_equal(g, w)


def test_get_valid_counts_tensor_threshold():
    data = RNG.uniform(-1, 1, (2, 9, 6)).astype("float32")
    x = te.placeholder(data.shape, name="x")
    t = te.placeholder((), name="t")
    got = run(topi.vision.get_valid_counts(x, t, 0, 1), [x, t],
              [data, np.array(0.25, "float32")])
    for g, w in zip(got, get_valid_counts_python(data, 0.25, 0, 1)):
        np.testing.assert_array_equal(g, w)


# ------------------------------------------------------------------ non_max_suppression
# A and B overlap with IoU 81 / 119 = 0.68; C is apart; class ids 0, 1, 0
HAND = np.array([[[0, 0.8, 1, 1, 11, 11], [0, 0.9, 0, 0, 10, 10], [1, 0.7, 20, 20, 30, 30],
                  [0, 0.6, 21, 21, 29, 29]]], "float32")


def nms(data, valid, **kw):
    x = te.placeholder(data.shape, name="x")
    v = te.placeholder((data.shape[0],), "int32", name="v")
    i = te.placeholder(data.shape[:2], "int32", name="i")
    # the original index of position p is n - 1 - p
    indices = np.tile(np.arange(data.shape[1], dtype="int32")[::-1], (data.shape[0], 1))
    out = topi.vision.non_max_suppression(x, v, i, **kw)
    return run(out, [x, v, i], [data, np.array(valid, "int32"), indices])


def test_nms_hand_suppresses_by_iou_and_class():
    out, = nms(HAND, [4], iou_threshold=0.5, return_indices=False)
    # sorted: B(.9), A(.8), C(.7), D(.6); A overlaps B -> -1; D is inside C (IoU 0.64) and of
    # C's class only when forced
    np.testing.assert_array_equal(out[0, 0], HAND[0, 1])
    assert (out[0, 1] == -1).all()
    np.testing.assert_array_equal(out[0, 2], HAND[0, 2])
    np.testing.assert_array_equal(out[0, 3], HAND[0, 3])
    out, = nms(HAND, [4], iou_threshold=0.5, force_suppress=True, return_indices=False)
    assert (out[0, 3] == -1).all()
    idx, count = nms(HAND, [4], iou_threshold=0.5, force_suppress=True)
    assert idx.tolist() == [[2, 1, -1, -1]] and count.tolist() == [[2]]  # original indices
    idx, count = nms(HAND, [4], iou_threshold=0.7)  # 0.68 < 0.7: nothing suppressed
    assert idx.tolist() == [[2, 3, 1, 0]] and count.tolist() == [[4]]


def test_nms_top_k_max_output_valid_count():
    idx, count = nms(HAND, [4], iou_threshold=0.7, top_k=2)
    assert idx.tolist() == [[2, 3, -1, -1]]
    idx, count = nms(HAND, [4], iou_threshold=0.7, max_output_size=3)
    assert idx.tolist() == [[2, 3, 1, -1]] and count.tolist() == [[3]]
    idx, count = nms(HAND, [2], iou_threshold=0.7)  # only the first two rows take part
    assert idx.tolist() == [[2, 3, -1, -1]]
    # iou_threshold <= 0: rows kept in place, unsorted
    out, = nms(HAND, [3], iou_threshold=0.0, return_indices=False)
    np.testing.assert_array_equal(out[0, :3], HAND[0, :3])
    assert (out[0, 3] == -1).all()


def test_nms_invalid_to_bottom():
    out, = nms(HAND, [4], iou_threshold=0.5, return_indices=False, invalid_to_bottom=True)
    np.testing.assert_array_equal(out[0, :3], HAND[0, [1, 2, 3]])
    assert (out[0, 3] == -1).all()


@pytest.mark.parametrize("batch,num,elen,id_index,score_index,coord_start,force,top_k,mos", [
    (2, 9, 6, 0, 1, 2, False, -1, -1), (3, 13, 5, -1, 0, 1, False, 5, -1),
    (1, 17, 7, 6, 0, 2, True, -1, 3), (2, 1, 6, 0, 1, 2, False, -1, -1)])
def test_nms_random(batch, num, elen, id_index, score_index, coord_start, force, top_k, mos):
    data = random_boxes(batch, num, elen, id_index, score_index, coord_start)
    valid = RNG.integers(0, num + 1, batch).astype("int32")
    indices = np.stack([RNG.permutation(num) for _ in range(batch)]).astype("int32")
    kw = dict(max_output_size=mos, iou_threshold=0.3, force_suppress=force, top_k=top_k,
              coord_start=coord_start, score_index=score_index, id_index=id_index)
    x = te.placeholder(data.shape, name="x")
    v = te.placeholder((batch,), "int32", name="v")
    i = te.placeholder((batch, num), "int32", name="i")
    want_out, want_idx = non_max_suppression_python(data, valid, indices, **kw)
    out, = run(topi.vision.non_max_suppression(x, v, i, return_indices=False, **kw),
               [x, v, i], [data, valid, indices])
    np.testing.assert_allclose(out, want_out)
    idx, count = run(topi.vision.non_max_suppression(x, v, i, return_indices=True, **kw),
                     [x, v, i], [data, valid, indices])
    for b in range(batch):
        kept = want_idx[b][want_idx[b] >= 0]
        assert count[b, 0] == len(kept)
        assert idx[b, :len(kept)].tolist() == kept.tolist()
        assert (idx[b, len(kept):] == -1).all()


def test_nms_tensor_thresholds():
    x = te.placeholder(HAND.shape, name="x")
    v = te.placeholder((1,), "int32", name="v")
    i = te.placeholder((1, 4), "int32", name="i")
    m = te.placeholder((), "int32", name="m")
    t = te.placeholder((1,), name="t")
    idx, _ = run(topi.vision.non_max_suppression(x, v, i, m, t), [x, v, i, m, t],
                 [HAND, np.array([4], "int32"), np.arange(4, dtype="int32")[None],
                  np.array(1, "int32"), np.array([0.5], "float32")])
    assert idx.tolist() == [[1, -1, -1, -1]]


def test_nms_errors():
    x = te.placeholder((1, 4, 6), name="x")
    v = te.placeholder((1,), "int32", name="v")
    with pytest.raises(TopiError, match="indices"):
        topi.vision.non_max_suppression(x, v, None)
    with pytest.raises(TopiError, match="coord_start"):
        topi.vision.non_max_suppression(x, v, None, coord_start=3, return_indices=False)
    with pytest.raises(TopiError, match="3-D"):
        topi.vision.get_valid_counts(te.placeholder((4, 6)), 0.5)


# ------------------------------------------------------- all_class_non_max_suppression
def all_class(boxes, scores, mos, iou, sth, fmt="onnx"):
    b = te.placeholder(boxes.shape, name="b")
    s = te.placeholder(scores.shape, name="s")
    outs = topi.vision.all_class_non_max_suppression(b, s, mos, iou, sth, fmt)
    return run(outs, [b, s], [boxes, scores])


def test_all_class_nms_hand():
    # box 1 overlaps box 0 with IoU 1 / 1.1; box 2 is apart
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 1.1], [0, 5, 1, 6]]], "float32")
    scores = np.array([[[0.9, 0.8, 0.7], [0.1, 0.95, 0.2]]], "float32")
    idx, total = all_class(boxes, scores, 10, 0.5, 0.15)
    assert total.tolist() == [4]
    assert idx[:4].tolist() == [[0, 0, 0], [0, 0, 2], [0, 1, 1], [0, 1, 2]]
    assert (idx[4:] == 0).all()
    idx, total = all_class(boxes, scores, 1, 0.5, 0.15)  # one box per class
    assert idx[:int(total[0])].tolist() == [[0, 0, 0], [0, 1, 1]]
    idx, scs, total = all_class(boxes, scores, 10, 0.5, 0.15, "tensorflow")
    assert total.tolist() == [4]
    assert idx[0, :4].tolist() == [[0, 0], [0, 2], [1, 1], [1, 2]]
    np.testing.assert_allclose(scs[0, :4], [0.9, 0.7, 0.95, 0.2])
    assert (idx[0, 4:] == 0).all() and (scs[0, 4:] == 0).all()


@pytest.mark.parametrize("batch,classes,num,mos,iou,sth", [
    (2, 3, 11, 4, 0.4, 0.2), (1, 1, 7, -1, 0.6, 0.0), (3, 2, 5, 2, 0.1, 0.5)])
def test_all_class_nms_random(batch, classes, num, mos, iou, sth):
    xy = RNG.uniform(0, 6, (batch, num, 2))
    boxes = np.concatenate([xy, xy + RNG.uniform(1, 4, (batch, num, 2))], 2).astype("float32")
    scores = RNG.uniform(0, 1, (batch, classes, num)).astype("float32")
    want = all_class_nms_python(boxes, scores, mos, iou, sth)
    idx, total = all_class(boxes, scores, mos, iou, sth)
    assert total[0] == len(want)
    np.testing.assert_array_equal(idx[:len(want)], want)
    tf_idx, tf_scores, tf_total = all_class(boxes, scores, mos, iou, sth, "tensorflow")
    for b in range(batch):
        rows = want[want[:, 0] == b]
        assert tf_total[b] == len(rows)
        np.testing.assert_array_equal(tf_idx[b, :len(rows)], rows[:, 1:])
        np.testing.assert_allclose(tf_scores[b, :len(rows)], scores[b, rows[:, 1], rows[:, 2]])


def test_all_class_nms_bad_format():
    b, s = te.placeholder((1, 3, 4)), te.placeholder((1, 2, 3))
    with pytest.raises(TopiError, match="output_format"):
        topi.vision.all_class_non_max_suppression(b, s, 1, 0.5, 0.0, "caffe")
