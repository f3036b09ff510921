"""Image operators (``relay.image``): resize1d/2d/3d, crop_and_resize, dilation2d,
affine_grid and grid_sample."""
from __future__ import annotations

from typing import Optional, Sequence

from ..expr import Constant, Expr
from ._rel import topi_rel
from .registry import OpPattern, make_call, register

_RESIZE_DEFAULTS = {"size": (), "roi": (), "layout": "", "method": "linear",
                    "coordinate_transformation_mode": "half_pixel", "rounding_method": "",
                    "cubic_alpha": -0.5, "cubic_exclude": 0, "extrapolation_value": 0.0,
                    "out_dtype": "", "scales": None}
for _n, _layout in ((1, "NCW"), (2, "NCHW"), (3, "NCDHW")):
    register(f"image.resize{_n}d", 1, topi_rel(f"image.resize{_n}d"), OpPattern.INJECTIVE,
             {**_RESIZE_DEFAULTS, "roi": (0.0,) * (2 * _n), "layout": _layout})
register("image.crop_and_resize", 3, topi_rel("image.crop_and_resize"), OpPattern.INJECTIVE,
         {"crop_size": (), "layout": "NCHW", "method": "bilinear",
          "extrapolation_value": 0.0, "out_dtype": ""})
register("image.dilation2d", 2, topi_rel("image.dilation2d"), OpPattern.OUT_ELEMWISE_FUSABLE,
         {"strides": (1, 1), "padding": (0, 0, 0, 0), "dilations": (1, 1),
          "data_layout": "NCHW", "kernel_layout": "IHW", "out_dtype": ""})
register("image.affine_grid", 1, topi_rel("image.affine_grid"), OpPattern.INJECTIVE,
         {"target_shape": ()})
register("image.grid_sample", 2, topi_rel("image.grid_sample"), OpPattern.INJECTIVE,
         {"method": "bilinear", "layout": "NCHW", "padding_mode": "zeros",
          "align_corners": True})


def _dims(op: str, v, n: int, what: str) -> tuple:
    """``n`` sizes (ints, or symbolic expressions kept as they are)."""
    from ...tir.expr import IntImm
    from ._rel import RelayTypeError
    v = (v,) if not isinstance(v, (tuple, list)) and not hasattr(v, "__len__") else tuple(v)
    if len(v) != n:
        raise RelayTypeError(f"{op}: {what} must have {n} values, got {v!r}")
    return tuple(int(x) if isinstance(x, (int, IntImm)) else x for x in v)


def _resize(n: int, data, size, roi, layout, method, coordinate_transformation_mode,
            rounding_method, cubic_alpha, cubic_exclude, extrapolation_value, out_dtype,
            scales):
    op = f"image.resize{n}d"
    if roi is None:
        roi = (0.0,) * (2 * n)
    # scales (a tvmlite extension, default None) print only when given, as non-defaults do
    scales = None if scales is None else tuple(float(v) for v in scales)
    if n == 2 and isinstance(size, Expr) and not isinstance(size, Constant):
        from .dyn import dyn_call  # a size computed at run time
        return dyn_call(op, [data], [size], roi=tuple(float(r) for r in roi), layout=layout,
                        method=method,
                        coordinate_transformation_mode=coordinate_transformation_mode,
                        rounding_method=rounding_method or "", cubic_alpha=float(cubic_alpha),
                        cubic_exclude=int(cubic_exclude),
                        extrapolation_value=float(extrapolation_value),
                        out_dtype=out_dtype or "", scales=scales)
    return make_call(op, [data], size=_dims(op, size, n, "size"),
                     roi=tuple(float(r) for r in roi), layout=layout, method=method,
                     coordinate_transformation_mode=coordinate_transformation_mode,
                     rounding_method=rounding_method or "", cubic_alpha=float(cubic_alpha),
                     cubic_exclude=int(cubic_exclude),
                     extrapolation_value=float(extrapolation_value), out_dtype=out_dtype or "",
                     scales=scales)


def resize1d(data: Expr, size: Sequence, roi=None, layout: str = "NCW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", cubic_alpha: float = -0.5, cubic_exclude: int = 0,
             extrapolation_value: float = 0.0, out_dtype: Optional[str] = None,
             scales: Optional[Sequence[float]] = None) -> Expr:
    """Resize the W axis of ``data`` ("NCW" or "NWC") to ``size = (OW,)``; ``roi`` (start,
    end) is used by the "tf_crop_and_resize" mode. See ``topi.image.resize1d``."""
    return _resize(1, data, size, roi, layout, method, coordinate_transformation_mode,
                   rounding_method, cubic_alpha, cubic_exclude, extrapolation_value,
                   out_dtype, scales)


def resize2d(data: Expr, size: Sequence, roi=None, layout: str = "NCHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", cubic_alpha: float = -0.5, cubic_exclude: int = 0,
             extrapolation_value: float = 0.0, out_dtype: Optional[str] = None,
             scales: Optional[Sequence[float]] = None) -> Expr:
    """Resize the spatial axes of ``data`` to ``size = (OH, OW)`` ("nearest_neighbor",
    "linear" or "cubic"; ``roi`` None: the whole image). See ``topi.image.resize2d``."""
    return _resize(2, data, size, roi, layout, method, coordinate_transformation_mode,
                   rounding_method, cubic_alpha, cubic_exclude, extrapolation_value,
                   out_dtype, scales)


def resize3d(data: Expr, size: Sequence, roi=None, layout: str = "NCDHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", cubic_alpha: float = -0.5, cubic_exclude: int = 0,
             extrapolation_value: float = 0.0, out_dtype: Optional[str] = None,
             scales: Optional[Sequence[float]] = None) -> Expr:
    """Resize the D, H and W axes of ``data`` ("NCDHW" or "NDHWC") to ``size = (OD, OH,
    OW)``. See ``topi.image.resize3d``."""
    return _resize(3, data, size, roi, layout, method, coordinate_transformation_mode,
                   rounding_method, cubic_alpha, cubic_exclude, extrapolation_value,
                   out_dtype, scales)


def crop_and_resize(data: Expr, boxes: Expr, box_indices: Expr, crop_size: Sequence[int],
                    layout: str = "NCHW", method: str = "bilinear",
                    extrapolation_value: float = 0.0, out_dtype: Optional[str] = None) -> Expr:
    """Crop ``boxes`` (num_boxes x (y1, x1, y2, x2), fractions of the image) out of
    ``data[box_indices]`` and resize each to ``crop_size``. See
    ``topi.image.crop_and_resize``."""
    op = "image.crop_and_resize"
    return make_call(op, [data, boxes, box_indices],
                     crop_size=_dims(op, crop_size, 2, "crop_size"), layout=layout,
                     method=method, extrapolation_value=float(extrapolation_value),
                     out_dtype=out_dtype or "")


def dilation2d(data: Expr, weight: Expr, strides=(1, 1), padding=(0, 0), dilations=(1, 1),
               data_layout: str = "NCHW", kernel_layout: str = "IHW",
               out_dtype: str = "") -> Expr:
    """Morphological 2-D dilation: ``out[n, c, y, x] = max over (dy, dx) of data[n, c,
    y*sh + dy*dh - top, x*sw + dx*dw - left] + weight[c, dy, dx]`` ("NCHW" data with an
    "IHW" weight, or "NHWC" with "HWI"); ``padding`` is 1, 2 or 4 ints."""
    from .nn import pad4
    op = "image.dilation2d"
    return make_call(op, [data, weight], strides=tuple(int(s) for s in strides),
                     padding=pad4(op, padding), dilations=tuple(int(d) for d in dilations),
                     data_layout=data_layout, kernel_layout=kernel_layout,
                     out_dtype=out_dtype or "")


def affine_grid(data: Expr, target_shape: Sequence[int]) -> Expr:
    """The sampling grid ``(batch, 2, H, W)`` of the affine matrices ``data`` ``(batch, 2,
    3)`` over ``target_shape = (H, W)``. See ``topi.image.affine_grid``."""
    return make_call("image.affine_grid", [data],
                     target_shape=tuple(int(v) for v in target_shape))


def grid_sample(data: Expr, grid: Expr, method: str = "bilinear", layout: str = "NCHW",
                padding_mode: str = "zeros", align_corners: bool = True) -> Expr:
    """Sample ``data`` ("NCHW" or "NCDHW") at the normalised coordinates ``grid`` (``(N, 2,
    OH, OW)`` or ``(N, 3, OD, OH, OW)``, x first). See ``topi.image.grid_sample``."""
    return make_call("image.grid_sample", [data, grid], method=method, layout=layout,
                     padding_mode=padding_mode, align_corners=bool(align_corners))


__all__ = ["resize1d", "resize2d", "resize3d", "crop_and_resize", "dilation2d", "affine_grid",
           "grid_sample"]
