"""QNN operators (``relay.qnn.op``) and their lowering rules."""
# isort: skip_file
# the operators first: the rules below, and relay.transform's FakeQuantizationToInteger that
# importing them loads, register attributes of these operators
from .qnn import *  # noqa: F401,F403
from .qnn import __all__ as _qnn_all
from . import canonicalizations, legalizations
from .op import register_qnn_canonicalize, register_qnn_legalize

__all__ = list(_qnn_all) + ["register_qnn_canonicalize", "register_qnn_legalize",
                            "canonicalizations", "legalizations"]
