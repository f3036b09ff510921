"""``topi.image.resize2d``: nearest-neighbour and bilinear resizing over H and W."""
from __future__ import annotations

from typing import Optional, Sequence

from ...te.operation import compute
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, get_const_int

_COORD_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                "tf_half_pixel_for_nn")


def _in_coord(x, in_size: int, out_size: int, mode: str):
    """The input coordinate (float32) of output coordinate ``x``."""
    xf = _op.cast("float32", x)
    if mode == "align_corners":
        scale = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        return _op.mul(xf, _op.const(scale, "float32"))
    scale = _op.const(in_size / out_size, "float32")
    if mode in ("asymmetric",):
        return _op.mul(xf, scale)
    if mode == "tf_half_pixel_for_nn":
        return _op.mul(_op.add(xf, _op.const(0.5, "float32")), scale)
    if mode == "pytorch_half_pixel" and out_size == 1:
        return _op.const(0.0, "float32")
    return _op.sub(_op.mul(_op.add(xf, _op.const(0.5, "float32")), scale),
                   _op.const(0.5, "float32"))


def _clamp(i, size: int):
    return _op._min(_op._max(i, 0), size - 1)


def resize2d(data: Tensor, roi: Sequence[float], size: Sequence, layout: str = "NCHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", bicubic_alpha: float = -0.5,
             bicubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype: Optional[str] = None, output_shape=None) -> Tensor:
    """Resize the H and W axes of a 4-D "NCHW" or "NHWC" tensor to ``size = (OH, OW)``.

    ``method`` is "nearest_neighbor" or "linear" ("bilinear"); coordinates map by
    ``coordinate_transformation_mode`` (half_pixel, align_corners, asymmetric,
    pytorch_half_pixel, tf_half_pixel_for_nn). Stage ``resize``, tag "injective".
    """
    op = "resize2d"
    if layout not in ("NCHW", "NHWC"):
        raise TopiError(f"{op}: layout must be 'NCHW' or 'NHWC', got {layout!r}")
    if not isinstance(data, Tensor) or data.ndim != 4:
        raise TopiError(f"{op}: data must be a 4-D {layout} tensor")
    if method == "bilinear":
        method = "linear"
    if method not in ("nearest_neighbor", "linear"):
        raise TopiError(f"{op}: method must be 'nearest_neighbor' or 'linear', got {method!r}")
    if coordinate_transformation_mode not in _COORD_MODES:
        raise TopiError(f"{op}: unknown coordinate_transformation_mode "
                        f"{coordinate_transformation_mode!r}")
    hax, wax = (2, 3) if layout == "NCHW" else (1, 2)
    ih, iw = get_const_int(data.shape[hax]), get_const_int(data.shape[wax])
    oh, ow = (get_const_int(s) for s in size)
    if oh <= 0 or ow <= 0:
        raise TopiError(f"{op}: size must be positive, got {list(size)}")
    out_dtype = out_dtype or data.dtype
    mode = coordinate_transformation_mode
    if not rounding_method:
        rounding_method = "round" if mode in ("align_corners", "tf_half_pixel_for_nn") \
            else "floor"
    if rounding_method not in ("floor", "round", "ceil", "round_prefer_floor",
                               "round_prefer_ceil"):
        raise TopiError(f"{op}: unknown rounding_method {rounding_method!r}")
    shape = list(data.shape)
    shape[hax], shape[wax] = oh, ow

    def at(i, y, x):
        idx = list(i)
        idx[hax], idx[wax] = y, x
        return _op.cast("float32", data(*idx))

    def nearest(v, n):
        if rounding_method == "floor":
            r = _op.floor(v)
        elif rounding_method == "ceil":
            r = _op.ceil(v)
        elif rounding_method == "round_prefer_floor":
            r = _op.ceil(_op.sub(v, _op.const(0.5, "float32")))
        else:  # "round" (half away from zero; coordinates are >= -0.5) and round_prefer_ceil
            r = _op.floor(_op.add(v, _op.const(0.5, "float32")))
        return _clamp(_op.cast("int32", r), n)

    def f(*i):
        y = _in_coord(i[hax], ih, oh, mode)
        x = _in_coord(i[wax], iw, ow, mode)
        if method == "nearest_neighbor":
            return _op.cast(out_dtype, at(i, nearest(y, ih), nearest(x, iw)))
        y0f, x0f = _op.floor(y), _op.floor(x)
        ty, tx = _op.sub(y, y0f), _op.sub(x, x0f)
        y0, x0 = _op.cast("int32", y0f), _op.cast("int32", x0f)
        ya, yb = _clamp(y0, ih), _clamp(y0 + 1, ih)
        xa, xb = _clamp(x0, iw), _clamp(x0 + 1, iw)
        one = _op.const(1.0, "float32")

        def lerp(a, b, t):
            return _op.add(_op.mul(a, _op.sub(one, t)), _op.mul(b, t))
        top = lerp(at(i, ya, xa), at(i, ya, xb), tx)
        bottom = lerp(at(i, yb, xa), at(i, yb, xb), tx)
        return _op.cast(out_dtype, lerp(top, bottom, ty))
    return compute(shape, f, name="resize", tag=tag.INJECTIVE)
