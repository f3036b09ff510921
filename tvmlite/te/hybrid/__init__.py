"""Hybrid scripts (``tvm.te.hybrid``): Python functions of loops over tensors.

``@te.hybrid.script`` functions called with te Tensors (and tir Vars or Python numbers for
scalars) are parsed into a :class:`~tvmlite.te.tensor.HybridOp`, an extern-like op whose body is
the parsed loop nest; called with numpy arrays they run as plain Python (the emulation).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from ..._classic import unsupported
from ...tir.expr import PrimExpr
from ..tensor import Tensor
from . import runtime
from .parser import source_to_op

__all__ = ["script", "build", "HybridModule", "runtime"]


def _is_tvm_arg(a: Any) -> bool:
    if isinstance(a, (Tensor, PrimExpr)):
        return True
    if isinstance(a, (list, tuple)) or type(a).__name__ == "Array":
        return any(_is_tvm_arg(x) for x in a) or type(a).__name__ == "Array"
    return False


def script(pyfunc: Callable) -> Callable:
    """Decorate a function as a hybrid script (``tvm.te.hybrid.script``).

    With te Tensors among the arguments the call returns the output tensor(s) of a new
    :class:`HybridOp` named after the function; otherwise it runs the function as Python, with
    ``output_tensor`` / ``allocate`` giving numpy arrays and the loop helpers ``range``.
    """
    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        if any(_is_tvm_arg(a) for a in args):
            if kwargs:
                raise TypeError(f"hybrid script {pyfunc.__name__}: pass arguments by position")
            op = source_to_op(pyfunc, args)
            outs = list(op.outputs)
            return outs[0] if len(outs) == 1 else outs
        hidden = runtime.enter(pyfunc)
        try:
            return pyfunc(*args, **kwargs)
        finally:
            runtime.leave(pyfunc, hidden)

    wrapped.is_hybrid_script = True
    return wrapped


def build(sch, inputs, outputs, name: str = "hybrid_func"):
    """Classic ``te.hybrid.build`` (a schedule dumped back to Python): not implemented."""
    raise unsupported("tvm.te.hybrid.build")


class HybridModule:
    """Classic ``te.hybrid.HybridModule``: not implemented (see :func:`build`)."""

    def __init__(self, *args, **kwargs):
        raise unsupported("tvm.te.hybrid.HybridModule")


