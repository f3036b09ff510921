"""``InferType``: the type of every expression, from the parameters' annotations and each
operator's type relation. Errors name the operator and the argument types it was given."""
from __future__ import annotations

from typing import Dict

from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, register_pass
from ..expr import Call, Constant, Expr, Function, If, Let, Tuple, TupleGetItem, Var, post_order
from ..op.registry import Op
from ..ty import FuncType, TensorType, TupleType, Type, type_str


class RelayTypeInferenceError(TVMError):
    """Type inference failed (a shape or dtype mismatch, a missing annotation)."""


def _fail(msg: str) -> RelayTypeInferenceError:
    return RelayTypeInferenceError(f"relay type inference: {msg}")


def _unannotated(v: Var) -> RelayTypeInferenceError:
    return _fail(f"variable %{v.name_hint} has no type annotation: give it one with "
                 "relay.var(name, shape=..., dtype=...)")


def _arg_types(e: Call) -> list:
    """The argument types of ``e``; an argument that is a variable without annotation gets
    the type the operator determines from the others (classic's conv2d weight) or the called
    function's parameter type, or an error."""
    arg_types = [a._checked_type for a in e.args]
    if all(t is not None for t in arg_types):
        return arg_types
    if isinstance(e.op, Op) and e.op.arg_types is not None:
        try:
            arg_types = list(e.op.arg_types(arg_types, e.attrs))
        except TVMError as err:
            raise _fail(f"{err} [in {e.op.name}]") from None
    elif isinstance(e.op, Expr) and isinstance(e.op._checked_type, FuncType) \
            and len(e.op._checked_type.arg_types) == len(arg_types):
        # a function's parameters type its unannotated arguments
        arg_types = [t if t is not None else want
                     for t, want in zip(arg_types, e.op._checked_type.arg_types)]
    for a, t in zip(e.args, arg_types):
        if a._checked_type is None:
            if t is None:
                if isinstance(a, Var):
                    raise _unannotated(a)
                return [x.checked_type for x in e.args]  # the usual error
            a._checked_type = t
            if isinstance(a, Var):  # classic records it as the variable's annotation
                a.type_annotation = t
    return arg_types


def _call_type(e: Call) -> Type:
    arg_types = _arg_types(e)
    if isinstance(e.op, Op):
        op = e.op
        if op.num_inputs >= 0 and len(arg_types) != op.num_inputs:
            raise _fail(f"{op.name} takes {op.num_inputs} argument(s), got {len(arg_types)}")
        try:
            return op.type_rel(arg_types, e.attrs)
        except TVMError as err:
            shown = ", ".join(type_str(t) for t in arg_types)
            raise _fail(f"{err} [in {op.name}({shown})]") from None
    ftype = e.op.checked_type if isinstance(e.op, Expr) else None
    if not isinstance(ftype, FuncType):
        raise _fail(f"cannot call {e.op!r}: it is not an operator or a function")
    if len(ftype.arg_types) != len(arg_types):
        raise _fail(f"function of {len(ftype.arg_types)} parameter(s) called with "
                    f"{len(arg_types)} argument(s)")
    for i, (want, got) in enumerate(zip(ftype.arg_types, arg_types)):
        if want != got:
            raise _fail(f"argument {i} of a function call has type {type_str(got)}, the "
                        f"parameter expects {type_str(want)}")
    return ftype.ret_type


def _infer_node(e: Expr, let_value: Dict[int, Expr]) -> Type:
    if isinstance(e, Var):
        if id(e) in let_value and isinstance(let_value[id(e)], _CallArg):
            return let_value[id(e)].arg.checked_type  # an unannotated parameter: its argument
        if id(e) in let_value:
            t = let_value[id(e)].checked_type
            if e.type_annotation is not None and e.type_annotation != t:
                raise _fail(f"let variable %{e.name_hint} is annotated "
                            f"{type_str(e.type_annotation)} but bound to {type_str(t)}")
            return t
        return e.type_annotation  # None: the operator using it may determine it
    if isinstance(e, Constant):
        return TensorType(e.data.shape, e.data.dtype)
    if isinstance(e, Call):
        return _call_type(e)
    if isinstance(e, Tuple):
        return TupleType([f.checked_type for f in e.fields])
    if isinstance(e, TupleGetItem):
        t = e.tuple_value.checked_type
        if not isinstance(t, TupleType):
            raise _fail(f"TupleGetItem .{e.index} of a non-tuple of type {type_str(t)}")
        if not 0 <= e.index < len(t.fields):
            raise _fail(f"TupleGetItem index {e.index} out of range for {type_str(t)}")
        return t.fields[e.index]
    if isinstance(e, Let):
        return e.body.checked_type
    if isinstance(e, If):
        ct = e.cond.checked_type
        if ct != TensorType((), "bool"):
            raise _fail(f"the condition of If must be a scalar bool, got {type_str(ct)}")
        tt, ft = e.true_branch.checked_type, e.false_branch.checked_type
        if tt != ft:
            raise _fail(f"the branches of If have different types {type_str(tt)} and "
                        f"{type_str(ft)}")
        return tt
    if isinstance(e, Function):
        ret = e.body.checked_type
        if e.ret_type is not None and e.ret_type != ret:
            raise _fail(f"function declares return type {type_str(e.ret_type)} but its body "
                        f"has type {type_str(ret)}")
        params = []
        for p in e.params:
            if p._checked_type is None:
                p._checked_type = _infer_node(p, let_value)
            if p._checked_type is None:
                raise _unannotated(p)
            params.append(p._checked_type)
        if e.ret_type is None:
            e.ret_type = ret  # classic's inference fills in the return type
        return FuncType(params, ret)
    raise _fail(f"unknown expression {type(e).__name__}")


class _CallArg:
    """The argument an unannotated parameter of a called function takes its type from (the
    arguments of a call are typed before the function it calls)."""

    __slots__ = ("arg",)

    def __init__(self, arg: Expr):
        self.arg = arg


def infer_type(expr: Expr) -> Expr:
    """Annotate ``expr`` and every sub-expression with ``checked_type``; return ``expr``."""
    nodes = post_order(expr)
    let_value = {id(n.var): n.value for n in nodes if isinstance(n, Let)}
    for n in nodes:
        if isinstance(n, Call) and isinstance(n.op, Function) \
                and len(n.op.params) == len(n.args):
            for p, a in zip(n.op.params, n.args):
                if p.type_annotation is None and p._checked_type is None:
                    let_value.setdefault(id(p), _CallArg(a))
    for n in nodes:
        if n._checked_type is None:
            n._checked_type = _infer_node(n, let_value)
    return expr


def _run(mod: IRModule, ctx) -> IRModule:
    for func in mod.functions.values():
        if isinstance(func, Expr):
            infer_type(func)
    return mod


def InferType() -> Pass:  # noqa: N802
    """The type-inference pass (``relay.transform.InferType()``)."""
    return ModulePass(_run, "InferType", opt_level=0)


register_pass("InferType", InferType)
