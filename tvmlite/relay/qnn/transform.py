"""QNN passes (``relay.qnn.transform``): ``Legalize`` (target-dependent rewrites of QNN ops,
``FTVMQnnLegalize``) and ``CanonicalizeOps`` (every QNN op into core relay ops,
``FTVMQnnCanonicalize``). ``relay.build`` runs both before its other passes."""
from __future__ import annotations

from typing import Dict

from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext, register_pass
from ..expr import Call, Expr, Function, post_order, with_children
from ..op.registry import Op
from ..transform.infer_type import InferType, retyped_function

#: rewrites of a rewrite's own QNN ops before giving up (a rule that keeps making itself)
_MAX_ROUNDS = 8


def _rewrite_once(func: Function, key: str) -> Function:
    memo: Dict[int, Expr] = {}
    for n in post_order(func.body):
        new = with_children(n, memo)
        if isinstance(n, Call) and isinstance(n.op, Op):
            rule = n.op.get_attr(key)
            if rule is not None:
                types = [a.checked_type for a in n.args] + [n.checked_type]
                got = rule(new.attrs, list(new.args), types)
                if got is not None:
                    if not isinstance(got, Expr):
                        raise TVMError(f"{key} of {n.op.name} returned "
                                       f"{type(got).__name__}, not a relay expression")
                    new = got
        if new is not n:
            memo[id(n)] = new
    return retyped_function(func, memo)


def _has_rule(func: Function, key: str) -> bool:
    return any(isinstance(n, Call) and isinstance(n.op, Op) and n.op.get_attr(key) is not None
               for n in post_order(func.body))


def rewrite_function(func: Function, key: str, repeat: bool) -> Function:
    """``func`` (typed) with each call of an op that has attribute ``key`` replaced by what
    the rule returns (``rule(attrs, args, arg_types + [out_type])``; None keeps the call);
    with ``repeat``, the ops the rules create are rewritten too."""
    func = _rewrite_once(func, key)
    rounds = 1
    while repeat and _has_rule(func, key):
        if rounds == _MAX_ROUNDS:
            raise TVMError(f"{key}: the rules still leave operators to rewrite after "
                           f"{_MAX_ROUNDS} rounds")
        new = _rewrite_once(func, key)
        if new is func:
            break
        func, rounds = new, rounds + 1
    return func


def _pass(key: str, name: str, repeat: bool) -> Pass:
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        if not any(isinstance(f, Function) and _has_rule(f, key)
                   for f in mod.functions.values()):
            return mod  # no QNN op: nothing to type or rewrite
        mod = InferType()(mod)
        out = IRModule({}, mod.attrs)
        for gv, func in mod.functions.items():
            out[gv] = rewrite_function(func, key, repeat) if isinstance(func, Function) \
                else func
        return InferType()(out)
    return ModulePass(run, name, opt_level=0, required=("InferType",))


def CanonicalizeOps() -> Pass:  # noqa: N802
    """Lower every QNN operator to core relay operators (its ``FTVMQnnCanonicalize`` rule;
    the QNN ops a rule creates are lowered too)."""
    return _pass("FTVMQnnCanonicalize", "QnnCanonicalizeOps", True)


def Legalize() -> Pass:  # noqa: N802
    """Rewrite QNN operators for the current target (their ``FTVMQnnLegalize`` rules: on CPUs
    without fast int8 instructions a qnn.conv2d / qnn.dense becomes the core op of its
    zero-point-shifted inputs)."""
    return _pass("FTVMQnnLegalize", "QnnLegalize", False)


register_pass("QnnCanonicalizeOps", CanonicalizeOps)
register_pass("QnnLegalize", Legalize)

__all__ = ["CanonicalizeOps", "Legalize", "rewrite_function"]
