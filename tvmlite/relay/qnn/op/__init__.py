"""QNN operators (``relay.qnn.op``) and their lowering rules."""
from . import canonicalizations, legalizations
from .op import register_qnn_canonicalize, register_qnn_legalize
from .qnn import *  # noqa: F401,F403
from .qnn import __all__ as _qnn_all

__all__ = list(_qnn_all) + ["register_qnn_canonicalize", "register_qnn_legalize",
                            "canonicalizations", "legalizations"]
