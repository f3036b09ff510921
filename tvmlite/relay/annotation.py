"""``tvm.relay.annotation`` (classic: ``relay.op.annotation``)."""
from .._classic import fallback as _fallback
from .op.annotation import checkpoint, stop_fusion

__all__ = ["stop_fusion", "checkpoint"]

__getattr__ = _fallback(__name__)
