"""Vision operators (``topi.vision``)."""
from .reorg import reorg

__all__ = ["reorg"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
