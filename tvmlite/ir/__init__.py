"""Nodes and utilities shared by every IR level (``tvm.ir``)."""
from ..tir.expr import Node, PrimExpr, Range
from . import base, dtype, instrument, transform
from .attrs import DictAttrs, make_node
from .base import SourceName, Span
from .container import Array, Map
from .module import GlobalVar, IRModule
from .op import Op, register_intrin_lowering, register_op_attr
from .serialization import load_json, save_json
from .structural import assert_structural_equal, structural_equal, structural_hash
from .type import PointerType, PrimType, Type

__all__ = ["Node", "PrimExpr", "Range", "GlobalVar", "IRModule", "assert_structural_equal",
           "structural_equal", "structural_hash", "dtype", "instrument", "transform", "Array",
           "Map", "save_json", "load_json", "PrimType", "PointerType", "Type", "Op",
           "register_op_attr", "register_intrin_lowering", "base", "SourceName", "Span",
           "DictAttrs", "make_node"]


from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
