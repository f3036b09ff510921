"""Relay frontends: import models from exchange formats (``relay.frontend.from_onnx``)."""
from .onnx import from_onnx


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
