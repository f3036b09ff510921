"""Relay frontends: import models from exchange formats (``relay.frontend.from_onnx``; PyTorch
through it, ``from_pytorch``)."""
from ..._classic import fallback as _fallback  # noqa: E402
from .onnx import from_onnx
from .pytorch import from_pytorch

__getattr__ = _fallback(__name__)
