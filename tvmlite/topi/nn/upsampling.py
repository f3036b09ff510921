"""``topi.nn.upsampling``: scale H and W by a factor (through ``image.resize2d``)."""
from __future__ import annotations

from ...te.tensor import Tensor
from ..image.resize import resize2d
from ..utils import TopiError, get_const_int


def upsampling(data: Tensor, scale_h: float, scale_w: float, layout: str = "NCHW",
               method: str = "nearest_neighbor", align_corners: bool = False,
               output_shape=None) -> Tensor:
    """Upsample a 4-D "NCHW"/"NHWC" tensor to ``round(H * scale_h) x round(W * scale_w)``
    by "nearest_neighbor" or "bilinear" interpolation."""
    if layout not in ("NCHW", "NHWC"):
        raise TopiError(f"upsampling: layout must be 'NCHW' or 'NHWC', got {layout!r}")
    if scale_h <= 0 or scale_w <= 0:
        raise TopiError(f"upsampling: scales must be positive, got {scale_h}, {scale_w}")
    hax, wax = (2, 3) if layout == "NCHW" else (1, 2)
    if output_shape is not None:
        size = (get_const_int(output_shape[hax]), get_const_int(output_shape[wax]))
    else:
        size = (int(round(get_const_int(data.shape[hax]) * scale_h)),
                int(round(get_const_int(data.shape[wax]) * scale_w)))
    mode = "align_corners" if align_corners else "asymmetric"
    if method.startswith("bi"):
        method = method[2:]
    return resize2d(data, [0.0] * 4, size, layout=layout, method=method,
                    coordinate_transformation_mode=mode)
