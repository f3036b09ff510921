"""Faster R-CNN's region proposal (``topi.vision.rcnn.proposal``)."""
from __future__ import annotations

import math
from typing import Sequence, Tuple

from .... import tir
from ....te import max as _max
from ....te import min as _min
from ....te.operation import compute, extern
from ....te.tensor import Tensor
from ....tir import ir_builder
from ...sort import argsort
from ...utils import TopiError, get_const_tuple


def generate_anchor(ratio: float, scale: float, base_size: float
                    ) -> Tuple[float, float, float, float]:
    """The anchor ``(x1, y1, x2, y2)`` of aspect ``ratio`` and ``scale`` centred in a
    ``base_size`` square (pixel corners inclusive)."""
    w = h = float(base_size)
    x_ctr, y_ctr = 0.5 * (w - 1.0), 0.5 * (h - 1.0)
    size_ratios = math.floor(w * h / ratio)
    new_w = math.floor(math.sqrt(size_ratios) + 0.5) * scale
    new_h = math.floor(new_w / scale * ratio + 0.5) * scale
    return (x_ctr - 0.5 * (new_w - 1.0), y_ctr - 0.5 * (new_h - 1.0),
            x_ctr + 0.5 * (new_w - 1.0), y_ctr + 0.5 * (new_h - 1.0))


def reg_bbox(x1, y1, x2, y2, dx, dy, dw, dh):
    """Box ``(x1, y1, x2, y2)`` moved by centre/size deltas (Faster R-CNN's regression)."""
    bw, bh = x2 - x1 + 1.0, y2 - y1 + 1.0
    cx, cy = x1 + 0.5 * (bw - 1.0), y1 + 0.5 * (bh - 1.0)
    pcx, pcy = dx * bw + cx, dy * bh + cy
    pw, ph = tir.exp(dw) * bw, tir.exp(dh) * bh
    return (pcx - 0.5 * (pw - 1.0), pcy - 0.5 * (ph - 1.0),
            pcx + 0.5 * (pw - 1.0), pcy + 0.5 * (ph - 1.0))


def reg_iou(x1, y1, x2, y2, dx1, dy1, dx2, dy2):
    """Box ``(x1, y1, x2, y2)`` moved by per-corner deltas (IoU-loss regression)."""
    return x1 + dx1, y1 + dy1, x2 + dx2, y2 + dy2


def proposal(cls_prob: Tensor, bbox_pred: Tensor, im_info: Tensor, scales: Sequence[float],
             ratios: Sequence[float], feature_stride: int, threshold: float,
             rpn_pre_nms_top_n: int, rpn_post_nms_top_n: int, rpn_min_size: int,
             iou_loss: bool) -> Tensor:
    """Region proposals from an RPN's scores and box deltas.

    Anchor ``k`` (ratio ``ratios[k // len(scales)]``, scale ``scales[k % len(scales)]``) at
    cell ``(h, w)`` is shifted by the cell times ``feature_stride``, regressed by its deltas
    (:func:`reg_iou` if ``iou_loss`` else :func:`reg_bbox`) and clipped to the image; its
    score is channel ``num_anchors + k`` of ``cls_prob``, -1 for cells past the image or
    boxes smaller than ``im_info[b, 2] * rpn_min_size`` (those also grow by that size).
    The ``rpn_pre_nms_top_n`` best (all if <= 0) go through greedy NMS (IoU with +1 pixel
    areas above ``threshold`` suppresses); the survivors fill ``rpn_post_nms_top_n`` rows,
    repeated in order when fewer.

    Parameters
    ----------
    cls_prob : Tensor
        ``(batch, 2 * num_anchors, height, width)``.
    bbox_pred : Tensor
        ``(batch, 4 * num_anchors, height, width)``.
    im_info : Tensor
        ``(batch, 3)``: image height, width and scale.
    scales, ratios : sequence of float
    feature_stride, rpn_pre_nms_top_n, rpn_post_nms_top_n, rpn_min_size : int
    threshold : float
    iou_loss : bool

    Returns
    -------
    Tensor
        ``(batch * rpn_post_nms_top_n, 5)`` rows ``(batch_index, x1, y1, x2, y2)``.
    """
    op = "proposal"
    for what, t, nd in (("cls_prob", cls_prob, 4), ("bbox_pred", bbox_pred, 4),
                        ("im_info", im_info, 2)):
        if not isinstance(t, Tensor) or t.ndim != nd:
            raise TopiError(f"{op}: {what} must be a {nd}-D Tensor, got {t!r}")
    scales, ratios = [float(s) for s in scales], [float(r) for r in ratios]
    batch, chans, height, width = (int(d) for d in get_const_tuple(cls_prob.shape))
    num_anchors = len(scales) * len(ratios)
    if chans != 2 * num_anchors:
        raise TopiError(f"{op}: cls_prob has {chans} channels, expected 2 * {num_anchors} "
                        f"anchors")
    if get_const_tuple(bbox_pred.shape) != (batch, 4 * num_anchors, height, width):
        raise TopiError(f"{op}: bbox_pred has shape {get_const_tuple(bbox_pred.shape)}, "
                        f"expected {(batch, 4 * num_anchors, height, width)}")
    post_n = int(rpn_post_nms_top_n)
    num_bbox = height * width * num_anchors
    pre_n = min(int(rpn_pre_nms_top_n), num_bbox) if rpn_pre_nms_top_n > 0 else num_bbox
    anchors = [generate_anchor(ratios[k // len(scales)], scales[k % len(scales)],
                               feature_stride) for k in range(num_anchors)]
    dt = bbox_pred.dtype
    regress = reg_iou if iou_loss else reg_bbox

    def predict(ins, outs):
        ib = ir_builder.create()
        prob, delta, info = (ib.buffer_ptr(b) for b in ins)
        out = ib.buffer_ptr(outs[0])
        zero = tir.const(0.0, dt)
        with ib.for_range(0, batch, name="b") as b:
            im_h, im_w = info[b, 0], info[b, 1]
            min_size = info[b, 2] * float(rpn_min_size)
            real_h = tir.Cast("int32", im_h / float(feature_stride))
            real_w = tir.Cast("int32", im_w / float(feature_stride))
            with ib.for_range(0, height, name="h") as h:
                with ib.for_range(0, width, name="w") as w:
                    for k, anc in enumerate(anchors):
                        n = (h * width + w) * num_anchors + k
                        sx = tir.Cast(dt, w * feature_stride)
                        sy = tir.Cast(dt, h * feature_stride)
                        box = regress(anc[0] + sx, anc[1] + sy, anc[2] + sx, anc[3] + sy,
                                      *(delta[b, k * 4 + d, h, w] for d in range(4)))
                        x1 = _max(_min(box[0], im_w - 1.0), zero)
                        y1 = _max(_min(box[1], im_h - 1.0), zero)
                        x2 = _max(_min(box[2], im_w - 1.0), zero)
                        y2 = _max(_min(box[3], im_h - 1.0), zero)
                        score = tir.Select(tir.any(h >= real_h, w >= real_w),
                                           tir.const(-1.0, dt), prob[b, num_anchors + k, h, w])
                        small = tir.any(x2 - x1 + 1.0 < min_size, y2 - y1 + 1.0 < min_size)
                        grow = tir.Select(small, min_size / 2.0, zero)
                        out[b, n, 0] = x1 - grow
                        out[b, n, 1] = y1 - grow
                        out[b, n, 2] = x2 + grow
                        out[b, n, 3] = y2 + grow
                        out[b, n, 4] = tir.Select(small, tir.const(-1.0, dt), score)
        return ib.get()
    bbox = extern([batch, num_bbox, 5], [cls_prob, bbox_pred, im_info], predict, dtype=dt,
                  name="proposal_bbox", tag="proposal_bbox")
    score = compute((batch, num_bbox), lambda b, i: bbox[b, i, 4], name="bbox_score",
                    tag="bbox_score")
    order = argsort(score, axis=1, is_ascend=False, dtype="int32")
    ranked = compute((batch, pre_n, 5), lambda b, i, j: bbox[b, order[b, i], j],
                     name="sorted_bbox", tag="sorted_bbox")

    def nms(ins, outs):
        ib = ir_builder.create()
        box = ib.buffer_ptr(ins[0])
        out = ib.buffer_ptr(outs[0])
        removed = ib.allocate("int32", (pre_n,), name="removed")
        nkeep = ib.allocate("int32", (1,), name="nkeep", scope="local")
        row = ib.allocate("int32", (1,), name="row", scope="local")
        one = tir.const(1.0, dt)
        with ib.for_range(0, batch, name="b") as b:
            with ib.for_range(0, pre_n, name="i") as i:
                removed[i] = 0
            with ib.for_range(0, pre_n, name="l") as l_:
                with ib.if_scope(removed[l_] == 0):
                    with ib.for_range(0, pre_n, name="i") as i:
                        with ib.if_scope(i > l_):
                            a = [box[b, l_, d] for d in range(4)]
                            c = [box[b, i, d] for d in range(4)]
                            iw = _max(tir.const(0.0, dt), _min(a[2], c[2]) - _max(a[0], c[0]) + one)
                            ih = _max(tir.const(0.0, dt), _min(a[3], c[3]) - _max(a[1], c[1]) + one)
                            inter = iw * ih
                            union = ((a[2] - a[0] + one) * (a[3] - a[1] + one)
                                     + (c[2] - c[0] + one) * (c[3] - c[1] + one) - inter)
                            with ib.if_scope(inter / union > tir.const(float(threshold), dt)):
                                removed[i] = 1
            nkeep[0] = 0
            with ib.for_range(0, pre_n, name="j") as j:
                with ib.if_scope(removed[j] == 0):
                    nkeep[0] = nkeep[0] + 1
            with ib.for_range(0, post_n, name="r") as r:
                for d in range(5):
                    out[b * post_n + r, d] = tir.const(0.0, dt)
            row[0] = 0
            with ib.if_scope(nkeep[0] > 0):
                with ib.while_loop(row[0] < post_n):
                    with ib.for_range(0, pre_n, name="j") as j:
                        with ib.if_scope(tir.all(row[0] < post_n, removed[j] == 0)):
                            out[b * post_n + row[0], 0] = tir.Cast(dt, b)
                            for d in range(4):
                                out[b * post_n + row[0], d + 1] = box[b, j, d]
                            row[0] = row[0] + 1
        return ib.get()
    return extern([batch * post_n, 5], [ranked], nms, dtype=dt, name=op, tag=op)


__all__ = ["proposal", "generate_anchor", "reg_bbox", "reg_iou"]
