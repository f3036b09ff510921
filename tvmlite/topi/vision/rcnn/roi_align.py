"""ROI align (``topi.vision.rcnn.roi_align_nchw`` / ``roi_align_nhwc``)."""
from __future__ import annotations

from typing import Sequence, Tuple, Union

from .... import tir
from ....te import ceil
from ....te import max as _max
from ....te import min as _min
from ....te.operation import extern
from ....te.tensor import Tensor
from ....tir import ir_builder
from ...utils import TopiError, get_const_tuple

PooledSize = Union[int, Sequence[int]]


def pooled_hw(op: str, pooled_size: PooledSize) -> Tuple[int, int]:
    """``(out_height, out_width)`` from an int or a pair."""
    if isinstance(pooled_size, int):
        return pooled_size, pooled_size
    try:
        ph, pw = (int(v) for v in pooled_size)
    except Exception as e:  # noqa: BLE001  (any other shape is the caller's error)
        raise TopiError(f"{op}: pooled_size must be an int or two ints, got "
                        f"{pooled_size!r}") from e
    return ph, pw


def roi_mode(op: str, mode) -> bool:
    """True for average pooling (``"avg"``, ``b"avg"``, 0), False for max (``"max"``,
    ``b"max"``, 1)."""
    if isinstance(mode, bytes):
        mode = mode.decode()
    if mode in ("avg", 0) and not isinstance(mode, bool):
        return True
    if mode in ("max", 1) and not isinstance(mode, bool):
        return False
    raise TopiError(f"{op}: mode must be 'avg' (0) or 'max' (1), got {mode!r}")


def _roi_align(op: str, data: Tensor, rois: Tensor, pooled_size: PooledSize,
               spatial_scale: float, mode, sample_ratio: int, nhwc: bool) -> Tensor:
    if not isinstance(data, Tensor) or data.ndim != 4:
        raise TopiError(f"{op}: data must be a 4-D Tensor, got {data!r}")
    if not isinstance(rois, Tensor) or rois.ndim != 2 or int(rois.shape[1]) != 5:
        raise TopiError(f"{op}: rois must be a (num_roi, 5) Tensor, got {rois!r}")
    avg = roi_mode(op, mode)
    ph_n, pw_n = pooled_hw(op, pooled_size)
    if nhwc:
        _, height, width, channel = get_const_tuple(data.shape)
    else:
        _, channel, height, width = get_const_tuple(data.shape)
    num_roi = rois.shape[0]
    dt = rois.dtype
    one, zero = tir.const(1.0, dt), tir.const(0.0, dt)
    scale = tir.const(float(spatial_scale), dt)

    def bilinear(ib, img, b, c, y, x):
        """The sample at (y, x): 0 more than a pixel outside, else clamped and blended."""
        def at(yy, xx):
            return img[b, yy, xx, c] if nhwc else img[b, c, yy, xx]

        outside = tir.any(y < -1.0, x < -1.0, y > float(height), x > float(width))
        y = ib.let("yc", _min(_max(y, zero), tir.const(height - 1, dt)))
        x = ib.let("xc", _min(_max(x, zero), tir.const(width - 1, dt)))
        y0 = ib.let("y0", tir.Cast("int32", tir.floor(y)))
        x0 = ib.let("x0", tir.Cast("int32", tir.floor(x)))
        y1 = _min(y0 + 1, height - 1)
        x1 = _min(x0 + 1, width - 1)
        ly = ib.let("ly", y - tir.Cast(dt, y0))
        lx = ib.let("lx", x - tir.Cast(dt, x0))
        val = ((one - ly) * (one - lx) * at(y0, x0) + (one - ly) * lx * at(y0, x1)
               + ly * (one - lx) * at(y1, x0) + ly * lx * at(y1, x1))
        return tir.Select(outside, zero, val)

    def ir(ins, outs):
        ib = ir_builder.create()
        img, roi = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1])
        out = ib.buffer_ptr(outs[0])
        acc = ib.allocate(dt, (1,), name="acc", scope="local")
        with ib.for_range(0, num_roi, name="i") as i:
            b = ib.let("b", tir.Cast("int32", roi[i, 0]))
            y_lo = ib.let("y_lo", roi[i, 2] * scale)
            x_lo = ib.let("x_lo", roi[i, 1] * scale)
            # malformed ROIs count as 1x1
            bin_h = ib.let("bin_h", _max(roi[i, 4] * scale - y_lo, one) / float(ph_n))
            bin_w = ib.let("bin_w", _max(roi[i, 3] * scale - x_lo, one) / float(pw_n))
            if sample_ratio > 0:
                gh = gw = tir.const(int(sample_ratio), "int32")
            else:
                gh = ib.let("gh", tir.Cast("int32", ceil(bin_h)))
                gw = ib.let("gw", tir.Cast("int32", ceil(bin_w)))
            with ib.for_range(0, channel, name="c") as c:
                with ib.for_range(0, ph_n, name="ph") as ph:
                    with ib.for_range(0, pw_n, name="pw") as pw:
                        acc[0] = zero if avg else tir.min_value(dt)
                        with ib.for_range(0, gh, name="iy") as iy:
                            y = ib.let("y", y_lo + tir.Cast(dt, ph) * bin_h
                                       + (tir.Cast(dt, iy) + 0.5) * bin_h / tir.Cast(dt, gh))
                            with ib.for_range(0, gw, name="ix") as ix:
                                x = ib.let("x", x_lo + tir.Cast(dt, pw) * bin_w
                                           + (tir.Cast(dt, ix) + 0.5) * bin_w
                                           / tir.Cast(dt, gw))
                                v = ib.let("v", bilinear(ib, img, b, c, y, x))
                                acc[0] = acc[0] + v if avg else _max(acc[0], v)
                        res = acc[0] / tir.Cast(dt, gh * gw) if avg else acc[0]
                        if nhwc:
                            out[i, ph, pw, c] = res
                        else:
                            out[i, c, ph, pw] = res
        return ib.get()

    shape = [num_roi, ph_n, pw_n, channel] if nhwc else [num_roi, channel, ph_n, pw_n]
    return extern(shape, [data, rois], ir, dtype=data.dtype, name=op, tag=op)


def roi_align_nchw(data: Tensor, rois: Tensor, pooled_size: PooledSize, spatial_scale: float,
                   mode="avg", sample_ratio: int = -1) -> Tensor:
    """ROI align of NCHW ``data``.

    Each ROI ``[batch_index, x1, y1, x2, y2]`` is scaled by ``spatial_scale`` (at least 1x1)
    and split into ``pooled_size`` bins; each bin averages (or takes the max of) a
    ``sample_ratio`` x ``sample_ratio`` grid of bilinear samples (``ceil(bin size)`` per
    axis when ``sample_ratio <= 0``). A sample more than one pixel outside the image is 0;
    others are clamped to it.

    Parameters
    ----------
    data : Tensor
        ``(batch, channel, height, width)``.
    rois : Tensor
        ``(num_roi, 5)``.
    pooled_size : int or (int, int)
    spatial_scale : float
    mode : str, bytes or int
        "avg" (0) or "max" (1).
    sample_ratio : int

    Returns
    -------
    Tensor
        ``(num_roi, channel, out_height, out_width)``.
    """
    return _roi_align("roi_align_nchw", data, rois, pooled_size, spatial_scale, mode,
                      sample_ratio, False)


def roi_align_nhwc(data: Tensor, rois: Tensor, pooled_size: PooledSize, spatial_scale: float,
                   mode="avg", sample_ratio: int = -1) -> Tensor:
    """ROI align of NHWC ``data`` (see :func:`roi_align_nchw`); the result is
    ``(num_roi, out_height, out_width, channel)``."""
    return _roi_align("roi_align_nhwc", data, rois, pooled_size, spatial_scale, mode,
                      sample_ratio, True)


__all__ = ["roi_align_nchw", "roi_align_nhwc"]
