"""Image operators (``topi.image``)."""
from .grid_sample import affine_grid
from .resize import crop_and_resize, resize1d, resize2d, resize3d

__all__ = ["affine_grid", "crop_and_resize", "resize1d", "resize2d", "resize3d"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
