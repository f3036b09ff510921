"""VTA testing helpers (``vta.testing``)."""
from . import simulator
from .utils import run

__all__ = ["run", "simulator"]
