"""The ``I`` namespace of TVMScript (``from tvmlite.script import ir as I``)."""
from __future__ import annotations

from ..ir.module import GlobalVar, IRModule

__all__ = ["ir_module", "GlobalVar", "IRModule"]


def ir_module(cls=None, check_well_formed: bool = True):
    """Parse a class of ``@T.prim_func`` methods into an :class:`~tvmlite.ir.IRModule`."""
    from .parser import parse_ir_module

    if cls is None:
        return lambda c: parse_ir_module(c, depth=2)
    return parse_ir_module(cls, depth=2)
