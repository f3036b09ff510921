"""``DynamicToStatic``: each ``dyn.*`` operator whose shape arguments are constants (after
constant folding) becomes its static operator, so ``relay.build`` can compile the program
(classic ``relay.transform.DynamicToStatic``)."""
from __future__ import annotations

from typing import Dict

from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext
from ..expr import Call, Constant, Expr, Function, post_order, with_children
from ..op.dyn import DATA_ARGS, HOST_EVAL
from ..op.registry import Op, make_call
from .fold_constant import fold_function
from .infer_type import infer_type


def _static_calls(func: Function) -> Function:
    """``func`` with its dyn calls of constant shape arguments made static."""
    memo: Dict[int, Expr] = {}
    changed = False
    for n in post_order(func.body):
        new = with_children(n, memo)
        if isinstance(new, Call) and isinstance(new.op, Op) and new.op.name in HOST_EVAL:
            k = DATA_ARGS[new.op.name]
            shape_args = new.args[k:]
            if k >= 0 and all(isinstance(a, Constant) for a in shape_args):
                values = list(new.args[:k]) + [a.data for a in shape_args]
                name, data, attrs = HOST_EVAL[new.op.name](new.attrs, values)
                new = make_call(name, data, **attrs)
        if new is not n:
            new._checked_type = None  # inferred again: its shape may be known now
            changed = True
        memo[id(n)] = new
    if not changed:
        return func
    out = Function(func.params, memo[id(func.body)], func.ret_type, func.type_params,
                   func.attrs)
    return infer_type(out)


def dynamic_to_static(func: Function, max_rounds: int = 8) -> Function:
    """``func`` folded and rewritten until no dyn call with constant shapes is left."""
    for _ in range(max_rounds):
        new = _static_calls(fold_function(func))
        if new is func:
            return func
        func = new
    return func


def _run(mod: IRModule, ctx: PassContext) -> IRModule:
    from .infer_type import InferType
    out = mod.copy()
    for name, func in mod.functions.items():
        if isinstance(func, Function) and not func.type_params:
            out[name] = dynamic_to_static(func)
    return InferType()(out)


def DynamicToStatic() -> Pass:  # noqa: N802
    """The pass (``relay.transform.DynamicToStatic()``)."""
    return ModulePass(_run, "DynamicToStatic", opt_level=3)
