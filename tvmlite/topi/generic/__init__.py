"""Generic schedules (``topi.generic.schedule_*``): correct and simple, for any CPU target."""
from ..._classic import fallback as _fallback
from .schedules import *  # noqa: F401,F403
from .schedules import __all__  # noqa: F401
from .vision import *  # noqa: F401,F403
from .vision import __all__ as _vision_all

__all__ = __all__ + _vision_all

__getattr__ = _fallback(__name__)
