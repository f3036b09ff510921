"""Image operators (``topi.image``)."""
from .resize import resize2d

__all__ = ["resize2d"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
