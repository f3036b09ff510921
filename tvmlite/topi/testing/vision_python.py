"""NumPy references of the vision operators (``roi_align_nchw_python``,
``roi_align_nhwc_python``, ``roi_pool_nchw_python``, ``get_valid_counts_python``,
``non_max_suppression_python``, ``all_class_nms_python``, ``multibox_prior_python``),
written as plain loops from the operators' definitions."""
from __future__ import annotations

import math
from typing import Sequence, Tuple, Union

import numpy as np


def _pooled(pooled_size) -> Tuple[int, int]:
    if isinstance(pooled_size, (int, np.integer)):
        return int(pooled_size), int(pooled_size)
    return int(pooled_size[0]), int(pooled_size[1])


def _is_avg(mode) -> bool:
    if isinstance(mode, bytes):
        mode = mode.decode()
    if mode in ("avg", 0):
        return True
    if mode in ("max", 1):
        return False
    raise ValueError(f"mode must be 'avg' (0) or 'max' (1), got {mode!r}")


def _bilinear_chw(img: np.ndarray, y: float, x: float) -> np.ndarray:
    """Bilinear sample of ``img`` (C, H, W) at ``(y, x)``: 0 more than one pixel outside,
    clamped to the border otherwise."""
    _, h, w = img.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return np.zeros(img.shape[0], dtype=img.dtype)
    y, x = min(max(y, 0.0), h - 1.0), min(max(x, 0.0), w - 1.0)
    y0, x0 = int(math.floor(y)), int(math.floor(x))
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[:, y0, x0] + (1 - ly) * lx * img[:, y0, x1]
            + ly * (1 - lx) * img[:, y1, x0] + ly * lx * img[:, y1, x1])


def roi_align_nchw_python(a_np: np.ndarray, rois_np: np.ndarray, pooled_size,
                          spatial_scale: float, sample_ratio: int,
                          mode: Union[str, bytes, int] = b"avg") -> np.ndarray:
    """ROI align of NCHW ``a_np`` (``topi.vision.rcnn.roi_align_nchw``)."""
    ph_n, pw_n = _pooled(pooled_size)
    avg = _is_avg(mode)
    n_roi = rois_np.shape[0]
    out = np.zeros((n_roi, a_np.shape[1], ph_n, pw_n), dtype=a_np.dtype)
    for i in range(n_roi):
        b = int(rois_np[i, 0])
        x_lo, y_lo, x_hi, y_hi = (float(v) * spatial_scale for v in rois_np[i, 1:5])
        roi_h, roi_w = max(y_hi - y_lo, 1.0), max(x_hi - x_lo, 1.0)
        bin_h, bin_w = roi_h / ph_n, roi_w / pw_n
        gh = sample_ratio if sample_ratio > 0 else int(math.ceil(bin_h))
        gw = sample_ratio if sample_ratio > 0 else int(math.ceil(bin_w))
        for ph in range(ph_n):
            for pw in range(pw_n):
                vals = [_bilinear_chw(a_np[b], y_lo + ph * bin_h + (iy + 0.5) * bin_h / gh,
                                      x_lo + pw * bin_w + (ix + 0.5) * bin_w / gw)
                        for iy in range(gh) for ix in range(gw)]
                stack = np.stack(vals)
                out[i, :, ph, pw] = stack.mean(axis=0) if avg else stack.max(axis=0)
    return out


def roi_align_nhwc_python(a_np: np.ndarray, rois_np: np.ndarray, pooled_size,
                          spatial_scale: float, sample_ratio: int,
                          mode: Union[str, bytes, int] = b"avg") -> np.ndarray:
    """ROI align of NHWC ``a_np`` (``topi.vision.rcnn.roi_align_nhwc``)."""
    out = roi_align_nchw_python(a_np.transpose(0, 3, 1, 2), rois_np, pooled_size,
                                spatial_scale, sample_ratio, mode)
    return out.transpose(0, 2, 3, 1)


def _round_half_away(v: float) -> int:
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def roi_pool_nchw_python(a_np: np.ndarray, rois_np: np.ndarray, pooled_size,
                         spatial_scale: float) -> np.ndarray:
    """ROI max pooling of NCHW ``a_np`` (``topi.vision.rcnn.roi_pool_nchw``)."""
    ph_n, pw_n = _pooled(pooled_size)
    _, c, h, w = a_np.shape
    out = np.zeros((rois_np.shape[0], c, ph_n, pw_n), dtype=a_np.dtype)
    for i, roi in enumerate(rois_np):
        b = int(roi[0])
        x_lo, y_lo, x_hi, y_hi = (_round_half_away(float(v) * spatial_scale) for v in roi[1:])
        bin_h = max(y_hi - y_lo + 1, 1) / ph_n
        bin_w = max(x_hi - x_lo + 1, 1) / pw_n
        for ph in range(ph_n):
            hs = min(max(int(math.floor(ph * bin_h + 1e-5)) + y_lo, 0), h)
            he = min(max(int(math.ceil((ph + 1) * bin_h - 1e-5)) + y_lo, 0), h)
            for pw in range(pw_n):
                ws = min(max(int(math.floor(pw * bin_w + 1e-5)) + x_lo, 0), w)
                we = min(max(int(math.ceil((pw + 1) * bin_w - 1e-5)) + x_lo, 0), w)
                if hs < he and ws < we:
                    out[i, :, ph, pw] = a_np[b, :, hs:he, ws:we].max(axis=(1, 2))
    return out


def get_valid_counts_python(data: np.ndarray, score_threshold: float, id_index: int = 0,
                            score_index: int = 1):
    """``(valid_count, out, out_indices)`` of ``topi.vision.get_valid_counts``."""
    batch, num, _ = data.shape
    count = np.zeros(batch, "int32")
    out = np.full(data.shape, -1, data.dtype)
    idx = np.full((batch, num), -1, "int32")
    for b in range(batch):
        for j in range(num):
            if data[b, j, score_index] > score_threshold and (
                    id_index < 0 or data[b, j, id_index] >= 0):
                out[b, count[b]] = data[b, j]
                idx[b, count[b]] = j
                count[b] += 1
    return count, out, idx


def _iou(a: Sequence[float], b: Sequence[float]) -> float:
    al, ar = min(a[0], a[2]), max(a[0], a[2])
    at, ab = min(a[1], a[3]), max(a[1], a[3])
    bl, br = min(b[0], b[2]), max(b[0], b[2])
    bt, bb = min(b[1], b[3]), max(b[1], b[3])
    inter = max(0.0, min(ar, br) - max(al, bl)) * max(0.0, min(ab, bb) - max(at, bt))
    union = (ar - al) * (ab - at) + (br - bl) * (bb - bt) - inter
    return 0.0 if union <= 0 else inter / union


def non_max_suppression_python(data: np.ndarray, valid_count: np.ndarray,
                               indices: np.ndarray, max_output_size: int = -1,
                               iou_threshold: float = 0.5, force_suppress: bool = False,
                               top_k: int = -1, coord_start: int = 2, score_index: int = 1,
                               id_index: int = 0):
    """``(boxes, box_indices)`` of ``topi.vision.non_max_suppression`` before its final
    compaction: the boxes by descending score, suppressed and padding rows -1, and the
    original index (from ``indices``) of each kept box, -1 elsewhere."""
    batch, num, _ = data.shape
    out = np.full(data.shape, -1, data.dtype)
    bidx = np.full((batch, num), -1, "int64")
    for b in range(batch):
        vc = min(max(int(valid_count[b]), 0), num)
        if iou_threshold <= 0:
            out[b, :vc] = data[b, :vc]
            bidx[b, :vc] = np.arange(vc)
        else:
            order = np.argsort(-data[b, :vc, score_index], kind="stable")
            if 0 < top_k < vc:
                order = order[:top_k]
            kept = []
            for j, src in enumerate(order):
                box = data[b, src]
                if len(kept) == max_output_size:
                    continue
                if box[score_index] <= 0:  # kept in place, neither judged nor counted
                    out[b, j], bidx[b, j] = box, src
                    continue
                ok = True
                for k in kept:
                    other = out[b, k]
                    if id_index >= 0 and other[id_index] < 0:
                        continue
                    if not force_suppress and id_index >= 0 and other[id_index] != box[id_index]:
                        continue
                    if _iou(box[coord_start:coord_start + 4],
                            other[coord_start:coord_start + 4]) >= iou_threshold:
                        ok = False
                        break
                if ok:
                    out[b, j], bidx[b, j] = box, src
                    kept.append(j)
        for j in range(vc):
            if bidx[b, j] >= 0:
                bidx[b, j] = indices[b, bidx[b, j]]
    return out, bidx


def all_class_nms_python(boxes: np.ndarray, scores: np.ndarray, max_output_boxes_per_class: int,
                         iou_threshold: float, score_threshold: float) -> np.ndarray:
    """The selected ``(batch, class, box)`` rows of ``all_class_non_max_suppression``."""
    rows = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            order = [int(i) for i in np.argsort(-s, kind="stable") if s[i] > score_threshold]
            chosen = []
            for i in order:
                if 0 < max_output_boxes_per_class <= len(chosen) or iou_threshold <= 0:
                    break
                if all(_iou(boxes[b, i], boxes[b, k]) < iou_threshold or s[k] <= 0
                       for k in chosen):
                    chosen.append(i)
            rows += [(b, c, i) for i in chosen]
    return np.array(rows, dtype="int64").reshape(-1, 3)


def multibox_prior_python(shape: Sequence[int], sizes=(1.0,), ratios=(1.0,), steps=(-1.0, -1.0),
                          offsets=(0.5, 0.5), clip: bool = False) -> np.ndarray:
    """The prior boxes of ``topi.vision.ssd.multibox_prior`` for an input of ``shape``."""
    h, w = int(shape[2]), int(shape[3])
    step_h = steps[0] if steps[0] > 0 else 1.0 / h
    step_w = steps[1] if steps[1] > 0 else 1.0 / w
    half = [(s * h / w / 2, s / 2) for s in sizes]
    half += [(sizes[0] * h / w * math.sqrt(r) / 2, sizes[0] / math.sqrt(r) / 2)
             for r in ratios[1:]]
    out = []
    for i in range(h):
        cy = (i + offsets[0]) * step_h
        for j in range(w):
            cx = (j + offsets[1]) * step_w
            out += [(cx - hw, cy - hh, cx + hw, cy + hh) for hw, hh in half]
    res = np.array(out, "float32").reshape(1, -1, 4)
    return np.clip(res, 0, 1) if clip else res
