"""The ``I`` namespace of TVMScript (``from tvmlite.script import ir as I``)."""
from ..ir.module import GlobalVar, IRModule
from .parser import ir_module

__all__ = ["ir_module", "GlobalVar", "IRModule"]
