"""SSD's multibox operators (``topi.vision.ssd.multibox_prior``, ``multibox_transform_loc``,
``multibox_detection``)."""
from __future__ import annotations

import math
from typing import List, Sequence

from .... import tir
from ....te import max as _max
from ....te import min as _min
from ....te.operation import compute, extern
from ....te.tensor import Tensor
from ....tir import ir_builder
from ...utils import TopiError, get_const_tuple
from ..nms import non_max_suppression


def _floats(op: str, what: str, values, n=None) -> List[float]:
    try:
        out = [float(v) for v in values]
    except Exception as e:  # noqa: BLE001  (any non-number is the caller's error)
        raise TopiError(f"{op}: {what} must be a sequence of numbers, got {values!r}") from e
    if (n is not None and len(out) != n) or not out:
        raise TopiError(f"{op}: {what} must have {n or 'at least 1'} value(s), got {values!r}")
    return out


def multibox_prior(data: Tensor, sizes: Sequence[float] = (1,), ratios: Sequence[float] = (1,),
                   steps: Sequence[float] = (-1, -1), offsets: Sequence[float] = (0.5, 0.5),
                   clip: bool = False) -> Tensor:
    """The prior (anchor) boxes of SSD for each position of ``data``'s ``(H, W)`` grid.

    At cell ``(i, j)`` the centre is ``((j + offset_w) * step_w, (i + offset_h) * step_h)``
    (a step <= 0 means ``1 / W`` or ``1 / H``); its ``len(sizes) + len(ratios) - 1`` boxes
    are, for each size ``s``, half-width ``s H / W / 2`` and half-height ``s / 2``, then for
    each ratio ``r`` after the first, half-width ``sizes[0] H / W sqrt(r) / 2`` and
    half-height ``sizes[0] / sqrt(r) / 2``.

    Parameters
    ----------
    data : Tensor
        ``(batch, channel, height, width)``; only its shape is used.
    sizes, ratios : sequence of float
    steps, offsets : two floats each, ``(h, w)``
    clip : bool
        Clip the corners to ``[0, 1]``.

    Returns
    -------
    Tensor
        ``(1, H * W * (len(sizes) + len(ratios) - 1), 4)`` float32 boxes
        ``(left, top, right, bottom)``.
    """
    op = "multibox_prior"
    if not isinstance(data, Tensor) or data.ndim != 4:
        raise TopiError(f"{op}: data must be a 4-D Tensor, got {data!r}")
    sizes, ratios = _floats(op, "sizes", sizes), _floats(op, "ratios", ratios)
    steps, offsets = _floats(op, "steps", steps, 2), _floats(op, "offsets", offsets, 2)
    height, width = (int(d) for d in get_const_tuple(data.shape[2:]))
    step_h = steps[0] if steps[0] > 0 else 1.0 / height
    step_w = steps[1] if steps[1] > 0 else 1.0 / width
    halves = [(s * height / width / 2.0, s / 2.0) for s in sizes]
    halves += [(sizes[0] * height / width * math.sqrt(r) / 2.0, sizes[0] / math.sqrt(r) / 2.0)
               for r in ratios[1:]]
    per = len(halves)

    def pick(k, which: int):
        val = tir.const(halves[-1][which], "float32")
        for idx in range(per - 2, -1, -1):
            val = tir.Select(k == idx, tir.const(halves[idx][which], "float32"), val)
        return val

    def f(_, n, c):
        k, cell = n % per, n // per
        i, j = cell // width, cell % width
        ch = (tir.Cast("float32", i) + offsets[0]) * tir.const(step_h, "float32")
        cw = (tir.Cast("float32", j) + offsets[1]) * tir.const(step_w, "float32")
        hw, hh = pick(k, 0), pick(k, 1)
        v = tir.Select(c == 0, cw - hw, tir.Select(c == 1, ch - hh,
                                                   tir.Select(c == 2, cw + hw, ch + hh)))
        if clip:
            v = _min(_max(v, tir.const(0.0, "float32")), tir.const(1.0, "float32"))
        return v
    return compute((1, height * width * per, 4), f, name=op, tag=op)


def multibox_transform_loc(cls_prob: Tensor, loc_pred: Tensor, anchor: Tensor,
                           clip: bool = True, threshold: float = 0.01,
                           variances: Sequence[float] = (0.1, 0.1, 0.2, 0.2)) -> List[Tensor]:
    """Decode SSD's location predictions against the anchors, keeping the boxes whose best
    non-background class scores at least ``threshold``.

    For anchor ``j`` the class is the arg-max of ``cls_prob[b, 1:, j]`` (first on ties), its
    score the max; the box, from anchor centre ``(ax, ay)`` and size ``(aw, ah)`` and the
    predictions ``(px, py, pw, ph)``, has centre ``(px vx aw + ax, py vy ah + ay)`` and
    half-size ``(exp(pw vw) aw / 2, exp(ph vh) ah / 2)``, clipped to ``[0, 1]`` if ``clip``.

    Parameters
    ----------
    cls_prob : Tensor
        ``(batch, num_classes, num_anchors)``; class 0 is the background.
    loc_pred : Tensor
        ``(batch, num_anchors * 4)``.
    anchor : Tensor
        ``(1, num_anchors, 4)`` boxes ``(left, top, right, bottom)``.
    clip : bool
    threshold : float
    variances : four floats

    Returns
    -------
    list of Tensor
        ``[boxes (batch, num_anchors, 6) rows (class - 1, score, l, t, r, b), the kept ones
        first and -1 rows after, valid_count (batch,) int32]``.
    """
    op = "multibox_transform_loc"
    for what, t, nd in (("cls_prob", cls_prob, 3), ("loc_pred", loc_pred, 2),
                        ("anchor", anchor, 3)):
        if not isinstance(t, Tensor) or t.ndim != nd:
            raise TopiError(f"{op}: {what} must be a {nd}-D Tensor, got {t!r}")
    var = _floats(op, "variances", variances, 4)
    batch, num_classes, num_anchors = cls_prob.shape
    ncls = int(get_const_tuple([num_classes])[0])
    dt = loc_pred.dtype

    def ir(ins, outs):
        ib = ir_builder.create()
        prob, loc, anc = (ib.buffer_ptr(b) for b in ins)
        out, vc = (ib.buffer_ptr(b) for b in outs)
        score = ib.allocate(cls_prob.dtype, (1,), name="score", scope="local")
        cls = ib.allocate("int32", (1,), name="cls", scope="local")
        cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
        zero, one = tir.const(0.0, dt), tir.const(1.0, dt)

        def clipped(v):
            return _min(_max(v, zero), one) if clip else v

        with ib.for_range(0, batch, name="i") as i:
            cnt[0] = 0
            with ib.for_range(0, num_anchors, name="j") as j:
                score[0] = tir.const(-1.0, cls_prob.dtype)
                cls[0] = 0
                with ib.for_range(1, ncls, name="k") as k:
                    with ib.if_scope(prob[i, k, j] > score[0]):
                        cls[0] = k
                        score[0] = prob[i, k, j]
                with ib.if_scope(tir.all(cls[0] > 0,
                                         score[0] >= tir.const(threshold, cls_prob.dtype))):
                    al, at, ar, ab = (anc[0, j, d] for d in range(4))
                    px, py, pw, ph = (loc[i, j * 4 + d] for d in range(4))
                    aw, ah = ar - al, ab - at
                    ax, ay = (al + ar) / 2.0, (at + ab) / 2.0
                    ox = px * var[0] * aw + ax
                    oy = py * var[1] * ah + ay
                    ow = tir.exp(pw * var[2]) * aw / 2.0
                    oh = tir.exp(ph * var[3]) * ah / 2.0
                    row = cnt[0]
                    out[i, row, 0] = tir.Cast(dt, cls[0] - 1)
                    out[i, row, 1] = tir.Cast(dt, score[0])
                    out[i, row, 2] = clipped(ox - ow)
                    out[i, row, 3] = clipped(oy - oh)
                    out[i, row, 4] = clipped(ox + ow)
                    out[i, row, 5] = clipped(oy + oh)
                    cnt[0] = cnt[0] + 1
            vc[i] = cnt[0]
            with ib.for_range(0, num_anchors, name="j") as j:
                with ib.if_scope(j >= cnt[0]):
                    for d in range(6):
                        out[i, j, d] = tir.const(-1.0, dt)
        return ib.get()
    outs = extern([[batch, num_anchors, 6], [batch]], [cls_prob, loc_pred, anchor], ir,
                  dtype=[dt, "int32"], name=op, tag=op)
    return list(outs)


def multibox_detection(cls_prob: Tensor, loc_pred: Tensor, anchor: Tensor, clip: bool = True,
                       threshold: float = 0.01, nms_threshold: float = 0.5,
                       force_suppress: bool = False,
                       variances: Sequence[float] = (0.1, 0.1, 0.2, 0.2),
                       nms_topk: int = -1) -> Tensor:
    """SSD detection: :func:`multibox_transform_loc`, then
    :func:`~tvmlite.topi.vision.non_max_suppression` of its boxes (class id at 0, score at
    1, corners from 2).

    Returns
    -------
    Tensor
        ``(batch, num_anchors, 6)``: the kept boxes by descending score, -1 rows for the
        suppressed and invalid ones.
    """
    boxes, valid = multibox_transform_loc(cls_prob, loc_pred, anchor, clip, threshold,
                                          variances)
    return non_max_suppression(boxes, valid, None, max_output_size=-1,
                               iou_threshold=nms_threshold, force_suppress=force_suppress,
                               top_k=nms_topk, return_indices=False)


__all__ = ["multibox_prior", "multibox_transform_loc", "multibox_detection"]
