"""``CanonicalizeOps`` (``relay.transform.CanonicalizeOps()``, opt_level 3): ``nn.bias_add``
becomes ``add`` of the bias expanded to broadcast along its axis (classic's rewrite, which
lets the layout passes treat it as any broadcast)."""
from __future__ import annotations

from typing import Dict

from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext, register_pass
from ..expr import Call, Expr, Function, post_order, with_children
from ..op.registry import Op
from ..op.tensor import add
from .infer_type import InferType, retyped_function
from .pattern_utils import expand_bias_to_match_axis


def canonicalize(func: Function) -> Function:
    """``func`` (typed) with each ``nn.bias_add`` an ``add``."""
    memo: Dict[int, Expr] = {}
    for n in post_order(func.body):
        new = with_children(n, memo)
        if isinstance(n, Call) and isinstance(n.op, Op) and n.op.name == "nn.bias_add":
            ndim = len(n.args[0].checked_type.shape)
            axis = int(n.attrs.axis)
            axis = axis + ndim if axis < 0 else axis
            new = add(new.args[0], expand_bias_to_match_axis(new.args[1], ndim, [axis]))
        if new is not n:
            memo[id(n)] = new
    return retyped_function(func, memo)


def _run(mod: IRModule, ctx: PassContext) -> IRModule:
    out = IRModule({}, mod.attrs)
    for name, func in mod.functions.items():
        out[name] = canonicalize(func) if isinstance(func, Function) else func
    return InferType()(out)


def CanonicalizeOps() -> Pass:  # noqa: N802
    """Rewrite ``nn.bias_add`` as ``add`` of an expanded bias (opt_level 3)."""
    return ModulePass(_run, "CanonicalizeOps", opt_level=3, required=("InferType",))


register_pass("CanonicalizeOps", CanonicalizeOps)
