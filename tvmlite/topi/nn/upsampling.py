"""``topi.nn.upsampling`` / ``upsampling3d``: scale the spatial axes by factors (through
``image.resize2d`` / ``resize3d``)."""
from __future__ import annotations

from ...te.tensor import Tensor
from ...tir import op as _op
from ..image.resize import hw_axes, resize2d, resize3d, spatial_axes
from ..utils import TopiError, get_const_int, is_const


def _scaled(dim, scale: float):
    """``round(dim * scale)``: an int, or ``int32(round(dim * scale))`` (float64) for a
    symbolic ``dim``."""
    if is_const(dim):
        return int(round(get_const_int(dim) * scale))
    return _op.cast("int32", _op.round(dim * _op.const(float(scale), "float64")))


def upsampling(data: Tensor, scale_h: float, scale_w: float, layout: str = "NCHW",
               method: str = "nearest_neighbor", align_corners: bool = False,
               output_shape=None) -> Tensor:
    """Upsample a tensor in ``layout`` ("NCHW", "NHWC" or packed, "NCHW16c") to
    ``round(H * scale_h) x round(W * scale_w)`` by "nearest_neighbor" or "bilinear"
    interpolation."""
    hax, wax = hw_axes(data, layout, "upsampling")
    if scale_h <= 0 or scale_w <= 0:
        raise TopiError(f"upsampling: scales must be positive, got {scale_h}, {scale_w}")
    if output_shape is not None:
        size = (get_const_int(output_shape[hax]), get_const_int(output_shape[wax]))
    else:
        size = (_scaled(data.shape[hax], scale_h), _scaled(data.shape[wax], scale_w))
    mode = "align_corners" if align_corners else "asymmetric"
    if method.startswith("bi"):
        method = method[2:]
    return resize2d(data, [0.0] * 4, size, layout=layout, method=method,
                    coordinate_transformation_mode=mode)


def upsampling3d(data: Tensor, scale_d: float, scale_h: float, scale_w: float,
                 layout: str = "NCDHW", method: str = "nearest_neighbor",
                 coordinate_transformation_mode: str = "half_pixel",
                 output_shape=None) -> Tensor:
    """Upsample the D, H and W axes of an "NCDHW"/"NDHWC" tensor to ``round(D * scale_d)``
    etc. by "nearest_neighbor" or "trilinear" interpolation."""
    axes = spatial_axes(data, layout, "upsampling3d", "DHW")
    scales = (scale_d, scale_h, scale_w)
    if min(scales) <= 0:
        raise TopiError(f"upsampling3d: scales must be positive, got {list(scales)}")
    if output_shape is not None:
        size = tuple(get_const_int(output_shape[a]) for a in axes)
    else:
        size = tuple(_scaled(data.shape[a], sc) for a, sc in zip(axes, scales))
    if method.startswith("tri"):
        method = method[3:]
    return resize3d(data, [0.0] * 6, size, layout=layout, method=method,
                    coordinate_transformation_mode=coordinate_transformation_mode)
