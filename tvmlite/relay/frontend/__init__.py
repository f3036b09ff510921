"""Relay frontends: import models from exchange formats (``relay.frontend.from_onnx``)."""
from ..._classic import fallback as _fallback  # noqa: E402
from .onnx import from_onnx

__getattr__ = _fallback(__name__)
