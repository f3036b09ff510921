"""The QNN dialect (``relay.qnn``): quantized operators (``relay.qnn.op``), lowered to core
relay operators by ``relay.qnn.transform.CanonicalizeOps``."""
from . import op, transform

__all__ = ["op", "transform"]
