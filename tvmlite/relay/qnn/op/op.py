"""Registration of QNN legalization / canonicalization rules (classic
``relay.qnn.op.op``)."""
from __future__ import annotations

from typing import Callable, Optional

from ...op.registry import get


def _register(op_name: str, key: str, fn: Optional[Callable], level: int):
    def fset(f):
        get(op_name).set_attr(key, f, level)
        return f
    return fset(fn) if fn is not None else fset


def register_qnn_legalize(op_name: str, legal_op: Optional[Callable] = None,
                          level: int = 10):
    """Set ``FTVMQnnLegalize`` of ``op_name``: ``legal_op(attrs, inputs, types)`` returns
    the replacement expression or None (a decorator without ``legal_op``)."""
    return _register(op_name, "FTVMQnnLegalize", legal_op, level)


def register_qnn_canonicalize(op_name: str, legal_op: Optional[Callable] = None,
                              level: int = 10):
    """Set ``FTVMQnnCanonicalize`` of ``op_name`` (as :func:`register_qnn_legalize`)."""
    return _register(op_name, "FTVMQnnCanonicalize", legal_op, level)
