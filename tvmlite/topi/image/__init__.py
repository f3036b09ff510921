"""Image operators (``topi.image``)."""
from .dilation2d import dilation2d_nchw, dilation2d_nhwc
from .grid_sample import affine_grid, grid_sample
from .resize import crop_and_resize, resize1d, resize2d, resize3d

__all__ = ["dilation2d_nchw", "dilation2d_nhwc", "affine_grid", "grid_sample", "crop_and_resize",
           "resize1d", "resize2d", "resize3d"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
