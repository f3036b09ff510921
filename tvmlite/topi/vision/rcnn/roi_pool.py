"""ROI pooling (``topi.vision.rcnn.roi_pool_nchw``)."""
from __future__ import annotations

from .... import tir
from ....te import ceil, floor, round
from ....te import max as _max
from ....te import min as _min
from ....te.operation import extern
from ....te.tensor import Tensor
from ....tir import ir_builder
from ...utils import TopiError, get_const_tuple
from .roi_align import PooledSize, pooled_hw


def roi_pool_nchw(data: Tensor, rois: Tensor, pooled_size: PooledSize,
                  spatial_scale: float) -> Tensor:
    """ROI max pooling of NCHW ``data``.

    Each ROI ``[batch_index, x1, y1, x2, y2]`` is scaled by ``spatial_scale`` and rounded to
    whole pixels (at least 1x1, both ends included); bin ``(ph, pw)`` covers rows
    ``floor(ph * bin_h) .. ceil((ph + 1) * bin_h)`` from the ROI's start (likewise columns),
    clipped to the image, and is the max over them, or 0 when empty.

    Parameters
    ----------
    data : Tensor
        ``(batch, channel, height, width)``.
    rois : Tensor
        ``(num_roi, 5)``.
    pooled_size : int or (int, int)
    spatial_scale : float

    Returns
    -------
    Tensor
        ``(num_roi, channel, out_height, out_width)``.
    """
    op = "roi_pool_nchw"
    if not isinstance(data, Tensor) or data.ndim != 4:
        raise TopiError(f"{op}: data must be a 4-D Tensor, got {data!r}")
    if not isinstance(rois, Tensor) or rois.ndim != 2 or int(rois.shape[1]) != 5:
        raise TopiError(f"{op}: rois must be a (num_roi, 5) Tensor, got {rois!r}")
    ph_n, pw_n = pooled_hw(op, pooled_size)
    _, channel, height, width = get_const_tuple(data.shape)
    num_roi = rois.shape[0]
    dt = rois.dtype
    scale = tir.const(float(spatial_scale), dt)
    eps = tir.const(1e-5, dt)  # against float error in floor / ceil

    def ir(ins, outs):
        ib = ir_builder.create()
        img, roi = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1])
        out = ib.buffer_ptr(outs[0])
        acc = ib.allocate(data.dtype, (1,), name="acc", scope="local")

        def clamp(v, hi):
            return _min(_max(v, 0), hi)

        with ib.for_range(0, num_roi, name="i") as i:
            b = ib.let("b", tir.Cast("int32", roi[i, 0]))
            x_lo, y_lo, x_hi, y_hi = (ib.let(n, tir.Cast("int32", round(roi[i, k] * scale)))
                                      for n, k in (("x_lo", 1), ("y_lo", 2), ("x_hi", 3),
                                                   ("y_hi", 4)))
            # malformed ROIs count as 1x1
            bin_h = ib.let("bin_h", tir.Cast(dt, _max(y_hi - y_lo + 1, 1)) / float(ph_n))
            bin_w = ib.let("bin_w", tir.Cast(dt, _max(x_hi - x_lo + 1, 1)) / float(pw_n))
            with ib.for_range(0, ph_n, name="ph") as ph:
                hs = ib.let("hs", clamp(tir.Cast("int32", floor(tir.Cast(dt, ph) * bin_h + eps))
                                        + y_lo, height))
                he = ib.let("he", clamp(tir.Cast("int32", ceil(tir.Cast(dt, ph + 1) * bin_h
                                                               - eps)) + y_lo, height))
                with ib.for_range(0, pw_n, name="pw") as pw:
                    ws = ib.let("ws", clamp(tir.Cast("int32", floor(tir.Cast(dt, pw) * bin_w
                                                                    + eps)) + x_lo, width))
                    we = ib.let("we", clamp(tir.Cast("int32", ceil(tir.Cast(dt, pw + 1) * bin_w
                                                                   - eps)) + x_lo, width))
                    with ib.for_range(0, channel, name="c") as c:
                        with ib.if_scope(tir.all(hs < he, ws < we)):
                            acc[0] = tir.min_value(data.dtype)
                            with ib.for_range(0, he - hs, name="y") as y:
                                with ib.for_range(0, we - ws, name="x") as x:
                                    acc[0] = _max(acc[0], img[b, c, hs + y, ws + x])
                            out[i, c, ph, pw] = acc[0]
                        with ib.else_scope():  # an empty bin
                            out[i, c, ph, pw] = tir.const(0, data.dtype)
        return ib.get()
    return extern([num_roi, channel, ph_n, pw_n], [data, rois], ir, dtype=data.dtype, name=op,
                  tag=op)


__all__ = ["roi_pool_nchw"]
