"""Relay frontends: import models from exchange formats (``relay.frontend.from_onnx``)."""
from .onnx import from_onnx
