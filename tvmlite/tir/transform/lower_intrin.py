"""Apply the intrinsic lowering rules registered for a target (``tvm.ir.register_intrin_lowering``)
to every call of a registered op: ``exp(x)`` may become ``call_pure_extern("__expf", x)`` for CUDA.
A rule returning the call leaves it alone. Rules are looked up by target kind, then ``default``.
"""
from __future__ import annotations

from typing import Tuple

from ...error import TVMError
from ...ir.op import OpName, lowering_rule
from ..expr import Call, PrimExpr
from ..functor import Mutator


class _LowerIntrin(Mutator):
    def __init__(self, kinds: Tuple[str, ...]):
        self.kinds = kinds

    def visit_Call(self, e):
        e = self.generic(e)
        rule = lowering_rule(e.op, self.kinds)
        if rule is None:
            return e
        view = Call(e.dtype, OpName(e.op), e.args)
        out = rule(view)
        if out is view or out is None:
            return e
        if not isinstance(out, PrimExpr):
            raise TVMError(f"the lowering rule of {view.op.name} for {self.kinds[0]} returned "
                           f"{out!r}, not a PrimExpr")
        return out


def lower_intrin(body, kinds: Tuple[str, ...]):
    """``body`` with the rules of the first of ``kinds`` having one applied to each call."""
    return _LowerIntrin(kinds).visit(body)
