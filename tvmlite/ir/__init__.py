"""Nodes and utilities shared by every IR level (``tvm.ir``)."""
from ..tir.expr import Node, PrimExpr, Range
from . import dtype
from .module import GlobalVar, IRModule
from .structural import assert_structural_equal, structural_equal, structural_hash

__all__ = ["Node", "PrimExpr", "Range", "GlobalVar", "IRModule", "assert_structural_equal",
           "structural_equal", "structural_hash", "dtype"]


from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
