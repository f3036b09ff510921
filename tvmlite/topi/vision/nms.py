"""Box filtering and non-maximum suppression (``topi.vision.get_valid_counts``,
``non_max_suppression``, ``all_class_non_max_suppression``).

Each is a ``te.extern`` whose body, built with ``tir.ir_builder``, walks the boxes in order
(the greedy suppression is sequential by nature); the score sorts are ``topi.argsort``.
A box is ``[..., l, t, r, b, ...]`` from ``coord_start``; the corners are normalised with
min/max, so either corner order works.
"""
from __future__ import annotations

from typing import List, Union

from ... import tir
from ...te import max as _max
from ...te import min as _min
from ...te.operation import compute, extern
from ...te.tensor import ComputeOp, Tensor
from ...tir import ir_builder
from ..math import cast
from ..reduction import sum as _sum
from ..scan import cumsum
from ..sort import argsort
from ..transform import gather, reshape
from ..utils import TopiError, get_const_tuple

Scalar = Union[int, float, Tensor]


def _check_data(op: str, data, ndim: int = 3) -> None:
    if not isinstance(data, Tensor) or data.ndim != ndim:
        raise TopiError(f"{op}: data must be a {ndim}-D Tensor, got {data!r}")


def _scalar_arg(op: str, what: str, value: Scalar, dtype: str):
    """``value`` as a constant of ``dtype``, or the 0-d/1-element tensor it is (read inside
    the IR with :func:`_read_scalar`); a 0-d stage computing a constant (relay's scalar
    constants) is that constant."""
    if isinstance(value, Tensor) and value.ndim == 0 and isinstance(value.op, ComputeOp) \
            and isinstance(value.op.body[value.value_index], (tir.IntImm, tir.FloatImm)):
        body = value.op.body[value.value_index]
        return body if body.dtype == dtype else tir.const(body.value, dtype)
    if isinstance(value, Tensor):
        n = 1
        for d in get_const_tuple(value.shape):
            n *= int(d)
        if n != 1:
            raise TopiError(f"{op}: {what} must be a scalar or a one-element tensor, got shape "
                            f"{tuple(value.shape)}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            return tir.const(float(value) if "float" in dtype else int(value), dtype)
        except Exception as e:  # noqa: BLE001  (any non-number is the caller's error)
            raise TopiError(f"{op}: {what} must be a number or a tensor, got {value!r}") from e
    return tir.const(value, dtype)


def _read_scalar(ib, value, buf, dtype: str):
    """The scalar an argument of :func:`_scalar_arg` stands for, inside the IR."""
    if buf is None:
        return value
    v = ib.buffer_ptr(buf)[0]
    return v if v.dtype == dtype else tir.Cast(dtype, v)


def box_iou(a_l, a_t, a_r, a_b, b_l, b_t, b_r, b_b, dtype: str):
    """Intersection over union of two boxes given by their (unordered) corners; 0 when the
    union is empty."""
    zero = tir.const(0.0, dtype)
    al, ar = _min(a_l, a_r), _max(a_l, a_r)
    at, ab = _min(a_t, a_b), _max(a_t, a_b)
    bl, br = _min(b_l, b_r), _max(b_l, b_r)
    bt, bb = _min(b_t, b_b), _max(b_t, b_b)
    w = _max(zero, _min(ar, br) - _max(al, bl))
    h = _max(zero, _min(ab, bb) - _max(at, bt))
    inter = w * h
    union = (ar - al) * (ab - at) + (br - bl) * (bb - bt) - inter
    return tir.Select(union <= zero, zero, inter / union)


# ------------------------------------------------------------------------- get_valid_counts
def get_valid_counts(data: Tensor, score_threshold: Scalar = 0, id_index: int = 0,
                     score_index: int = 1) -> List[Tensor]:
    """Move the boxes whose score exceeds ``score_threshold`` (and, with ``id_index >= 0``,
    whose class id is not negative) to the top, in their order.

    Parameters
    ----------
    data : Tensor
        ``(batch, num_anchors, elem_length)`` boxes.
    score_threshold : float or Tensor
        Boxes need a score strictly above it.
    id_index : int
        Position of the class id in a box, -1 for none.
    score_index : int
        Position of the score in a box.

    Returns
    -------
    list of Tensor
        ``[valid_count (batch,) int32, out (data's shape; the rest of each batch -1),
        out_indices (batch, num_anchors) int32 (the input position of each, -1 past the
        valid ones)]``.
    """
    op = "get_valid_counts"
    _check_data(op, data)
    batch, num, length = data.shape
    elen = int(get_const_tuple([length])[0])
    for what, idx in (("score_index", score_index), ("id_index", id_index)):
        if not -1 <= int(idx) < elen or (what == "score_index" and idx < 0):
            raise TopiError(f"{op}: {what} {idx} is out of range for boxes of length {elen}")
    thr = _scalar_arg(op, "score_threshold", score_threshold, data.dtype)
    thr_in = [thr] if isinstance(thr, Tensor) else []

    def ir(ins, outs):
        ib = ir_builder.create()
        x = ib.buffer_ptr(ins[0])
        t = _read_scalar(ib, thr, ins[1] if thr_in else None, data.dtype)
        vc, out, oidx = (ib.buffer_ptr(b) for b in outs)
        cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
        neg = tir.const(-1, data.dtype)
        with ib.for_range(0, batch, name="i") as i:
            cnt[0] = 0
            with ib.for_range(0, num, name="j") as j:
                ok = x[i, j, score_index] > t
                if id_index >= 0:
                    ok = tir.all(ok, x[i, j, id_index] >= tir.const(0, data.dtype))
                with ib.if_scope(ok):
                    with ib.for_range(0, elen, name="k") as k:
                        out[i, cnt[0], k] = x[i, j, k]
                    oidx[i, cnt[0]] = j
                    cnt[0] = cnt[0] + 1
            vc[i] = cnt[0]
            with ib.for_range(0, num, name="j") as j:
                with ib.if_scope(j >= cnt[0]):
                    with ib.for_range(0, elen, name="k") as k:
                        out[i, j, k] = neg
                    oidx[i, j] = -1
        return ib.get()
    outs = extern([[batch], list(data.shape), [batch, num]], [data] + thr_in, ir,
                  dtype=["int32", data.dtype, "int32"], name=op, tag=op)
    return list(outs)


# ----------------------------------------------------------------------- non_max_suppression
def non_max_suppression(data: Tensor, valid_count: Tensor, indices: Tensor,
                        max_output_size: Scalar = -1, iou_threshold: Scalar = 0.5,
                        force_suppress: bool = False, top_k: int = -1, coord_start: int = 2,
                        score_index: int = 1, id_index: int = 0, return_indices: bool = True,
                        invalid_to_bottom: bool = False) -> Union[Tensor, List[Tensor]]:
    """Greedy non-maximum suppression of the first ``valid_count[b]`` boxes of each batch.

    The valid boxes are sorted by descending score (ties: lower position first) and cut to
    ``top_k`` (if positive); walking them in that order, a box with a positive score is
    kept unless its IoU with a kept box of the same class (any class if ``force_suppress``
    or ``id_index < 0``) is at least ``iou_threshold``, and at most ``max_output_size`` (if
    non-negative) are kept. With ``iou_threshold <= 0`` the boxes stay unsorted and
    unsuppressed.

    Parameters
    ----------
    data : Tensor
        ``(batch, num_anchors, elem_length)`` boxes: score at ``score_index``, class id at
        ``id_index`` (-1: none), corners at ``coord_start .. coord_start + 3``.
    valid_count : Tensor
        ``(batch,)`` int32: how many leading boxes of each batch take part.
    indices : Tensor
        ``(batch, num_anchors)`` int32: the original index of each box (what
        ``return_indices`` reports); unused otherwise.
    max_output_size, iou_threshold : number or Tensor
    force_suppress : bool
    top_k, coord_start, score_index, id_index : int
    return_indices : bool
        Return the kept boxes' indices instead of the boxes.
    invalid_to_bottom : bool
        (Boxes only) move the kept boxes (class id >= 0 in column 0) to the top.

    Returns
    -------
    Tensor or list of Tensor
        The boxes in sorted order, suppressed and padding ones all -1 (data's shape); or,
        with ``return_indices``, ``[indices (batch, num_anchors) int32, the kept ones first
        then -1, count (batch, 1) int32]``.
    """
    op = "non_max_suppression"
    _check_data(op, data)
    if not isinstance(valid_count, Tensor) or valid_count.ndim != 1:
        raise TopiError(f"{op}: valid_count must be a 1-D Tensor, got {valid_count!r}")
    if return_indices and (not isinstance(indices, Tensor) or indices.ndim != 2):
        raise TopiError(f"{op}: indices must be a 2-D Tensor, got {indices!r}")
    batch, num, length = data.shape
    elen = int(get_const_tuple([length])[0])
    if not 0 <= coord_start <= elen - 4:
        raise TopiError(f"{op}: coord_start {coord_start} leaves no 4 coordinates in boxes of "
                        f"length {elen}")
    if not 0 <= score_index < elen or not -1 <= id_index < elen:
        raise TopiError(f"{op}: score_index {score_index} / id_index {id_index} out of range "
                        f"for boxes of length {elen}")
    dt = data.dtype
    mos = _scalar_arg(op, "max_output_size", max_output_size, "int32")
    iou = _scalar_arg(op, "iou_threshold", iou_threshold, dt)
    extra = [t for t in (mos, iou) if isinstance(t, Tensor)]
    score = compute((batch, num), lambda i, j: data[i, j, score_index], name="score")
    order = argsort(score, valid_count=valid_count, axis=1, is_ascend=False)
    ins = [data, order, valid_count] + ([indices] if return_indices else []) + extra

    def ir(in_bufs, out_bufs):
        ib = ir_builder.create()
        x, srt, vcount = (ib.buffer_ptr(b) for b in in_bufs[:3])
        idx = ib.buffer_ptr(in_bufs[3]) if return_indices else None
        rest = list(in_bufs[3 + bool(return_indices):])
        mos_v = _read_scalar(ib, mos, rest.pop(0) if isinstance(mos, Tensor) else None,
                             "int32")
        iou_v = _read_scalar(ib, iou, rest.pop(0) if isinstance(iou, Tensor) else None, dt)
        out, bidx = (ib.buffer_ptr(b) for b in out_bufs)
        neg = tir.const(-1, dt)
        zero = tir.const(0, dt)
        nvalid = ib.allocate("int32", (1,), name="nvalid", scope="local")
        keep = ib.allocate("int32", (1,), name="keep", scope="local")
        c0 = coord_start

        def corners(i, j):
            return [out[i, j, c0 + d] for d in range(4)]

        def invalidate(i, j):
            with ib.for_range(0, elen, name="k") as k:
                out[i, j, k] = neg
            bidx[i, j] = -1

        with ib.for_range(0, batch, name="i") as i:
            vc = ib.let("vc", _min(_max(vcount[i], 0), num))
            with ib.if_scope(iou_v > zero):
                nkeep = vc if top_k <= 0 else ib.let("nkeep", _min(vc, top_k))
                with ib.for_range(0, vc, name="j") as j:
                    with ib.if_scope(j < nkeep):
                        with ib.for_range(0, elen, name="k") as k:
                            out[i, j, k] = x[i, srt[i, j], k]
                        bidx[i, j] = srt[i, j]
                    with ib.else_scope():
                        invalidate(i, j)
                nvalid[0] = 0
                with ib.for_range(0, vc, name="j") as j:
                    with ib.if_scope(nvalid[0] == mos_v):
                        invalidate(i, j)
                    with ib.else_scope():
                        with ib.if_scope(out[i, j, score_index] > zero):
                            keep[0] = 1
                            with ib.for_range(0, j, name="k") as k:
                                check = tir.all(keep[0] == 1, out[i, k, score_index] > zero)
                                if id_index >= 0:
                                    check = tir.all(check, out[i, k, id_index] >= zero)
                                    if not force_suppress:
                                        check = tir.all(
                                            check, out[i, j, id_index] == out[i, k, id_index])
                                with ib.if_scope(check):
                                    v = box_iou(*corners(i, j), *corners(i, k), dt)
                                    with ib.if_scope(v >= iou_v):
                                        keep[0] = 0
                            with ib.if_scope(keep[0] == 0):
                                invalidate(i, j)
                            with ib.else_scope():
                                nvalid[0] = nvalid[0] + 1
            with ib.else_scope():
                with ib.for_range(0, vc, name="j") as j:
                    with ib.for_range(0, elen, name="k") as k:
                        out[i, j, k] = x[i, j, k]
                    bidx[i, j] = j
            with ib.for_range(0, num - vc, name="j") as j:
                invalidate(i, j + vc)
            if return_indices:
                with ib.for_range(0, vc, name="j") as j:
                    with ib.if_scope(bidx[i, j] >= 0):
                        bidx[i, j] = idx[i, bidx[i, j]]
        return ib.get()
    out, box_indices = extern([list(data.shape), [batch, num]], ins, ir, dtype=[dt, "int32"],
                              name=op, tag=op)
    if return_indices:
        return _compact_indices(box_indices)
    if invalid_to_bottom:
        return _compact_boxes(out)
    return out


def _compact_indices(box_indices: Tensor) -> List[Tensor]:
    """The non-negative entries of each row first (an entry beyond ``±num_anchors`` counts
    as 0), then -1; and how many there are, ``(batch, 1)``."""
    batch, num = box_indices.shape

    def ir(ins, outs):
        ib = ir_builder.create()
        src = ib.buffer_ptr(ins[0])
        dst, count = (ib.buffer_ptr(b) for b in outs)
        cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
        with ib.for_range(0, batch, name="i") as i:
            cnt[0] = 0
            with ib.for_range(0, num, name="j") as j:
                with ib.if_scope(src[i, j] >= 0):
                    dst[i, cnt[0]] = src[i, j]
                    cnt[0] = cnt[0] + 1
                with ib.if_scope(tir.any(src[i, j] > num, src[i, j] < -num)):
                    dst[i, cnt[0]] = 0
                    cnt[0] = cnt[0] + 1
            with ib.for_range(0, num, name="j") as j:
                with ib.if_scope(j >= cnt[0]):
                    dst[i, j] = -1
            count[i, 0] = cnt[0]
        return ib.get()
    outs = extern([[batch, num], [batch, 1]], [box_indices], ir, dtype=["int32", "int32"],
                  name="nms_indices", tag="nms_indices")
    return list(outs)


def _compact_boxes(boxes: Tensor) -> Tensor:
    """The boxes whose column 0 is non-negative first, in order; then rows of -1."""
    batch, num, length = boxes.shape

    def ir(ins, outs):
        ib = ir_builder.create()
        src, dst = ib.buffer_ptr(ins[0]), ib.buffer_ptr(outs[0])
        cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
        with ib.for_range(0, batch, name="i") as i:
            cnt[0] = 0
            with ib.for_range(0, num, name="j") as j:
                with ib.if_scope(src[i, j, 0] >= tir.const(0, boxes.dtype)):
                    with ib.for_range(0, length, name="k") as k:
                        dst[i, cnt[0], k] = src[i, j, k]
                    cnt[0] = cnt[0] + 1
            with ib.for_range(0, num, name="j") as j:
                with ib.if_scope(j >= cnt[0]):
                    with ib.for_range(0, length, name="k") as k:
                        dst[i, j, k] = tir.const(-1, boxes.dtype)
        return ib.get()
    return extern(list(boxes.shape), [boxes], ir, dtype=boxes.dtype, name="nms_rearrange",
                  tag="nms_rearrange")


# ------------------------------------------------------------- all_class_non_max_suppression
_FORMATS = ("onnx", "tensorflow")


def all_class_non_max_suppression(boxes: Tensor, scores: Tensor,
                                  max_output_boxes_per_class: Scalar = -1,
                                  iou_threshold: Scalar = -1.0,
                                  score_threshold: Scalar = -1.0,
                                  output_format: str = "onnx") -> List[Tensor]:
    """Non-maximum suppression of each (batch, class) on its own (ONNX NonMaxSuppression,
    TensorFlow combined_non_max_suppression).

    Per class, the boxes scoring above ``score_threshold`` are walked by descending score
    (ties: lower index first); one is selected unless its IoU with a selected box is at least
    ``iou_threshold``, up to ``max_output_boxes_per_class`` (when positive) boxes.

    Parameters
    ----------
    boxes : Tensor
        ``(batch, num_boxes, 4)`` corners.
    scores : Tensor
        ``(batch, num_classes, num_boxes)``.
    max_output_boxes_per_class, iou_threshold, score_threshold : number or Tensor
    output_format : str
        "onnx" or "tensorflow".

    Returns
    -------
    list of Tensor
        "onnx": ``[indices (batch * num_classes * num_boxes, 3) int64 rows (batch, class,
        box), batch-major then class then descending score, zero past the selected ones,
        num_total (1,) int64]``. "tensorflow": ``[indices (batch, num_classes * num_boxes, 2)
        int64 (class, box), scores (batch, num_classes * num_boxes) float32, num_total
        (batch,) int64]``, each batch's selected boxes first (zeros after).
    """
    op = "all_class_non_max_suppression"
    _check_data(op, boxes)
    _check_data(op, scores)
    if output_format not in _FORMATS:
        raise TopiError(f"{op}: output_format must be one of {_FORMATS}, got "
                        f"{output_format!r}")
    batch, num_class, num_boxes = (int(d) for d in get_const_tuple(scores.shape))
    bshape = get_const_tuple(boxes.shape)
    if bshape[0] != batch or bshape[1] != num_boxes or bshape[2] != 4:
        raise TopiError(f"{op}: boxes {bshape} do not match scores {get_const_tuple(scores.shape)}"
                        f" (expected ({batch}, {num_boxes}, 4))")
    mos = _scalar_arg(op, "max_output_boxes_per_class", max_output_boxes_per_class, "int32")
    iou = _scalar_arg(op, "iou_threshold", iou_threshold, "float32")
    sth = _scalar_arg(op, "score_threshold", score_threshold, "float32")
    extra = [t for t in (mos, iou, sth) if isinstance(t, Tensor)]
    bc = batch * num_class
    flat = reshape(scores, (bc, num_boxes))
    order = argsort(flat, axis=1, is_ascend=False, dtype="int32")
    sorted_scores = gather(flat, 1, order)
    tf = output_format == "tensorflow"

    def ir(in_bufs, out_bufs):
        ib = ir_builder.create()
        bx, sc, od = (ib.buffer_ptr(b) for b in in_bufs[:3])
        rest = list(in_bufs[3:])
        vals = [_read_scalar(ib, v, rest.pop(0) if isinstance(v, Tensor) else None, d)
                for v, d in ((mos, "int32"), (iou, "float32"), (sth, "float32"))]
        mos_v, iou_v, sth_v = vals
        sel, sel_sc, ndet = (ib.buffer_ptr(b) for b in out_bufs)
        live = ib.allocate("float32", (num_boxes,), name="live")
        nv = ib.allocate("int32", (1,), name="nv", scope="local")
        j = ib.allocate("int32", (1,), name="j", scope="local")
        with ib.for_range(0, bc, name="r") as r:
            b = r // num_class
            # the boxes above the score threshold (a prefix of the sorted order)
            nv[0] = 0
            with ib.for_range(0, num_boxes, name="k") as k:
                live[k] = tir.Cast("float32", sc[r, k])
                sel[r, k] = 0
                sel_sc[r, k] = tir.const(0.0, "float32")
                with ib.if_scope(live[k] > sth_v):
                    nv[0] = nv[0] + 1
            valid = ib.let("valid", nv[0])
            limit = ib.let("limit", tir.Select(mos_v > 0, mos_v, valid))
            nv[0] = 0
            j[0] = 0
            with ib.if_scope(iou_v > tir.const(0.0, "float32")):
                with ib.while_loop(tir.all(j[0] < valid, nv[0] < limit)):
                    with ib.if_scope(live[j[0]] > tir.const(-1.0, "float32")):
                        sel[r, nv[0]] = od[r, j[0]]
                        sel_sc[r, nv[0]] = live[j[0]]
                        nv[0] = nv[0] + 1
                        with ib.for_range(0, num_boxes, name="k") as k:
                            with ib.if_scope(tir.all(k > j[0], k < valid,
                                                     live[k] > tir.const(0.0, "float32"))):
                                ja, kb = od[r, j[0]], od[r, k]
                                v = box_iou(*[bx[b, ja, d] for d in range(4)],
                                            *[bx[b, kb, d] for d in range(4)], boxes.dtype)
                                with ib.if_scope(v >= tir.Cast(boxes.dtype, iou_v)):
                                    live[k] = tir.const(-1.0, "float32")
                    j[0] = j[0] + 1
            ndet[r] = nv[0]
        return ib.get()
    sel, sel_scores, ndet = extern([[bc, num_boxes], [bc, num_boxes], [bc]],
                                   [boxes, sorted_scores, order] + extra, ir,
                                   dtype=["int32", "float32", "int32"], name=op, tag=op)
    if not tf:
        offsets = cumsum(ndet, exclusive=True, dtype="int64")
        total = reshape(_sum(cast(ndet, "int64"), axis=0), (1,))

        def collect(ins, outs):
            ib = ir_builder.create()
            s, n, off = (ib.buffer_ptr(b) for b in ins)
            dst = ib.buffer_ptr(outs[0])
            with ib.for_range(0, bc * num_boxes, name="k") as k:
                for c in range(3):
                    dst[k, c] = tir.const(0, "int64")
            with ib.for_range(0, bc, name="r") as r:
                with ib.for_range(0, num_boxes, name="j") as j:
                    with ib.if_scope(j < n[r]):
                        row = off[r] + tir.Cast("int64", j)
                        dst[row, 0] = tir.Cast("int64", r // num_class)
                        dst[row, 1] = tir.Cast("int64", r % num_class)
                        dst[row, 2] = tir.Cast("int64", s[r, j])
            return ib.get()
        indices = extern([bc * num_boxes, 3], [sel, ndet, offsets], collect, dtype="int64",
                         name="collect_indices", tag="collect_indices")
        return [indices, total]
    per_batch = reshape(ndet, (batch, num_class))
    offsets = cumsum(per_batch, axis=1, exclusive=True, dtype="int64")
    total = _sum(cast(per_batch, "int64"), axis=1)

    def collect_tf(ins, outs):
        ib = ir_builder.create()
        s, ss, n, off, tot = (ib.buffer_ptr(b) for b in ins)
        di, ds = (ib.buffer_ptr(b) for b in outs)
        with ib.for_range(0, batch, name="b") as b:
            with ib.for_range(0, num_class * num_boxes, name="k") as k:
                di[b, k, 0] = tir.const(0, "int64")
                di[b, k, 1] = tir.const(0, "int64")
                ds[b, k] = tir.const(0.0, "float32")
            with ib.for_range(0, num_class, name="c") as c:
                with ib.for_range(0, num_boxes, name="j") as j:
                    with ib.if_scope(j < n[b, c]):
                        row = off[b, c] + tir.Cast("int64", j)
                        di[b, row, 0] = tir.Cast("int64", c)
                        di[b, row, 1] = tir.Cast("int64", s[b * num_class + c, j])
                        ds[b, row] = ss[b * num_class + c, j]
        return ib.get()
    indices, out_scores = extern([[batch, num_class * num_boxes, 2],
                                  [batch, num_class * num_boxes]],
                                 [sel, sel_scores, per_batch, offsets, total], collect_tf,
                                 dtype=["int64", "float32"], name="collect_indices_and_scores",
                                 tag="collect_indices_and_scores")
    return [indices, out_scores, total]


__all__ = ["get_valid_counts", "non_max_suppression", "all_class_non_max_suppression",
           "box_iou"]
