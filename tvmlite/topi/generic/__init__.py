"""Generic schedules (``topi.generic.schedule_*``): correct and simple, for any CPU target."""
from ..._classic import fallback as _fallback
from .schedules import *  # noqa: F401,F403
from .schedules import __all__  # noqa: F401

__getattr__ = _fallback(__name__)
