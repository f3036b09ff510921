"""``InferType``: the type of every expression, from the parameters' annotations and each
operator's type relation. Errors name the operator and the argument types it was given."""
from __future__ import annotations

from typing import Dict

from ...error import TVMError
from ...ir.module import GlobalVar, IRModule
from ...ir.transform import ModulePass, Pass, register_pass
from ...tir.expr import Any, PrimExpr, SizeVar
from ...tir.functor import post_order_visit
from ..expr import Call, Constant, Expr, Function, If, Let, Tuple, TupleGetItem, Var, post_order
from ..op.registry import Op
from ..ty import FuncType, IncompleteType, TensorType, TupleType, Type, _same_dim, has_any, type_str


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


def _with_dims(t, dim):
    """``t`` with each ``Any`` dimension replaced by ``dim``."""
    if isinstance(t, TensorType) and has_any(t):
        return TensorType([dim if isinstance(d, Any) else d for d in t.shape], t.dtype)
    if isinstance(t, TupleType):
        return TupleType([_with_dims(f, dim) for f in t.fields])
    return t


def _with_any(t, depends) -> Type:
    """``t`` with each dimension for which ``depends(i, dim)`` holds made ``Any``."""
    if isinstance(t, TensorType):
        return TensorType([Any() if isinstance(d, Any) or depends(d) else d for d in t.shape],
                          t.dtype)
    if isinstance(t, TupleType):
        return TupleType([_with_any(f, depends) for f in t.fields])
    return t


def _uses(d, var) -> bool:
    if not isinstance(d, PrimExpr):
        return False
    found = []
    post_order_visit(d, lambda n: found.append(1) if n is var else None)
    return bool(found)


def _probe_dims(a: Type, b: Type, out: list) -> None:
    """Compare the results of two probes: a dimension that differs is data dependent."""
    if isinstance(a, TensorType):
        out.extend(x != y for x, y in zip(a.shape, b.shape))
    elif isinstance(a, TupleType):
        for x, y in zip(a.fields, b.fields):
            _probe_dims(x, y, out)


_PROBES = (23, 29)


def _tensors(types) -> list:
    out = []
    for t in types:
        if isinstance(t, TupleType):
            out.extend(_tensors(t.fields))
        elif isinstance(t, TensorType):
            out.append(t)
    return out


def _unified(types: list, probe: int) -> list:
    """``types`` with each ``Any`` dimension the int another tensor of the same rank has at
    that position (else ``probe``)."""
    known: Dict[tuple, int] = {}
    for t in _tensors(types):
        for i, d in enumerate(t.shape):
            if isinstance(d, int):
                known.setdefault((len(t.shape), i), d)

    def fill(t):
        if isinstance(t, TupleType):
            return TupleType([fill(f) for f in t.fields])
        if isinstance(t, TensorType) and has_any(t):
            n = len(t.shape)
            return TensorType([known.get((n, i), probe) if isinstance(d, Any) else d
                               for i, d in enumerate(t.shape)], t.dtype)
        return t
    return [fill(t) for t in types]


def apply_relation(op: Op, arg_types: list, attrs) -> Type:
    """``op``'s type relation on ``arg_types``. Where they hold ``Any`` dimensions the
    relation first sees a size variable in their place, and each output dimension that
    depends on it is ``Any``; a relation that needs known sizes is asked twice instead, with
    two sizes for the unknowns, and the output dimensions that differ are ``Any`` (classic's
    rule: only what is known is checked)."""
    if not any(has_any(t) for t in arg_types):
        return op.type_rel(arg_types, attrs)
    n = SizeVar("any_dim", "int64")
    try:
        out = op.type_rel([_with_dims(t, n) for t in arg_types], attrs)
        return _with_any(out, lambda d: _uses(d, n))
    except (TVMError, ValueError, TypeError, IndexError) as err:
        first = err
    try:
        probes = [op.type_rel([_with_dims(t, p) for t in arg_types], attrs) for p in _PROBES]
    except (TVMError, ValueError, TypeError, IndexError):
        # last: an unknown dimension takes the size that another argument of the same rank
        # has there (concatenate's or where's other dims must agree)
        try:
            probes = [op.type_rel(_unified(arg_types, p), attrs) for p in _PROBES]
        except (TVMError, ValueError, TypeError, IndexError):
            raise first from None
    differs: list = []
    _probe_dims(probes[0], probes[1], differs)
    flags = iter(differs)
    return _with_any(probes[0], lambda d: next(flags))


def type_matches(want: Type, got: Type) -> bool:
    """Whether a value of type ``got`` may be given where ``want`` is expected: equal types,
    or equal but where ``want`` (or ``got``) has an ``Any`` dimension."""
    if want == got:
        return True
    if isinstance(want, TensorType) and isinstance(got, TensorType):
        return (want.dtype == got.dtype and len(want.shape) == len(got.shape)
                and all(isinstance(a, Any) or isinstance(b, Any) or _same_dim(a, b)
                        for a, b in zip(want.shape, got.shape)))
    if isinstance(want, TupleType) and isinstance(got, TupleType):
        return len(want.fields) == len(got.fields) and all(
            type_matches(a, b) for a, b in zip(want.fields, got.fields))
    if isinstance(want, FuncType) and isinstance(got, FuncType):
        return len(want.arg_types) == len(got.arg_types) and all(
            type_matches(a, b) for a, b in zip(want.arg_types, got.arg_types)) and \
            type_matches(want.ret_type, got.ret_type)
    return False


def join_types(a: Type, b: Type) -> Type:
    """The type of a value that is ``a`` or ``b`` (an If's branches): where their dimensions
    differ, ``Any``."""
    if isinstance(a, TensorType) and isinstance(b, TensorType) and a != b:
        return TensorType([x if isinstance(x, int) and isinstance(y, int) and x == y else Any()
                           for x, y in zip(a.shape, b.shape)], a.dtype)
    if isinstance(a, TupleType) and isinstance(b, TupleType) and a != b:
        return TupleType([join_types(x, y) for x, y in zip(a.fields, b.fields)])
    return a


class _Untyped(RelayTypeInferenceError):
    """A function tvmlite's inference does not type (ADTs, references, polymorphism): the
    relay VM runs it untyped, and so do the functions calling it."""


_MODULES: list = []  # the module InferType is typing (calls through GlobalVars)
_IN_PROGRESS: set = set()


def _untypable(func: Function) -> bool:
    if func.type_params:
        return True
    return any(hasattr(n, "_children") or type(n).__name__ == "Constructor"
               for n in post_order(func))


def _global_type(gv: GlobalVar) -> Type:
    """The type of global function ``gv`` of the module being typed; a recursive call
    inside it takes its declared type (its return type unknown if not declared)."""
    if not _MODULES or gv.name_hint not in _MODULES[-1]:
        raise _fail(f"call of @{gv.name_hint}, which is not a function of the module")
    func = _MODULES[-1][gv.name_hint]
    if isinstance(func._checked_type, FuncType):
        return func._checked_type
    if gv.name_hint in _IN_PROGRESS:
        if any(p.type_annotation is None for p in func.params):
            raise _fail(f"recursive function @{gv.name_hint} needs type annotations on its "
                        "parameters")
        ret = func.ret_type if func.ret_type is not None else IncompleteType()
        return FuncType([p.type_annotation for p in func.params], ret)
    if not isinstance(func, Function) or _untypable(func):
        raise _Untyped(gv.name_hint)
    _IN_PROGRESS.add(gv.name_hint)
    try:
        infer_type(func)
    finally:
        _IN_PROGRESS.discard(gv.name_hint)
    return func.checked_type


def _call_type(e: Call) -> Type:
    if isinstance(e.op, GlobalVar):
        ftype = _global_type(e.op)
        arg_types = [a.checked_type for a in e.args]
        if len(ftype.arg_types) != len(arg_types):
            raise _fail(f"@{e.op.name_hint} takes {len(ftype.arg_types)} argument(s), got "
                        f"{len(arg_types)}")
        for i, (want, got) in enumerate(zip(ftype.arg_types, arg_types)):
            if not type_matches(want, got):
                raise _fail(f"argument {i} of @{e.op.name_hint} has type {type_str(got)}, "
                            f"the parameter expects {type_str(want)}")
        return ftype.ret_type
    arg_types = _arg_types(e)
    if isinstance(e.op, Op):
        op = e.op
        if op.num_inputs >= 0 and len(arg_types) != op.num_inputs:
            raise _fail(f"{op.name} takes {op.num_inputs} argument(s), got {len(arg_types)}")
        try:
            return apply_relation(op, arg_types, e.attrs)
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
        if not type_matches(want, got):
            raise _fail(f"argument {i} of a function call has type {type_str(got)}, the "
                        f"parameter expects {type_str(want)}")
    return ftype.ret_type


def _infer_node(e: Expr, let_value: Dict[int, Expr]) -> Type:
    if isinstance(e, Var):
        if id(e) in let_value and isinstance(let_value[id(e)], _CallArg):
            return let_value[id(e)].arg.checked_type  # an unannotated parameter: its argument
        if id(e) in let_value:
            value = let_value[id(e)]
            if value._checked_type is None and isinstance(value, Function):
                # a recursive function bound by let, used in its own body: its declared
                # type (the return type, if not declared, is left unknown until typed)
                if any(p.type_annotation is None for p in value.params):
                    raise _fail(f"recursive function %{e.name_hint} needs type annotations "
                                "on its parameters")
                ret = value.ret_type if value.ret_type is not None else IncompleteType()
                return FuncType([p.type_annotation for p in value.params], ret)
            t = value.checked_type
            if e.type_annotation is not None and not type_matches(e.type_annotation, t):
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
        if isinstance(tt, IncompleteType):  # a recursive call's unknown result
            return ft
        if isinstance(ft, IncompleteType):
            return tt
        if not type_matches(tt, ft):
            raise _fail(f"the branches of If have different types {type_str(tt)} and "
                        f"{type_str(ft)}")
        return join_types(tt, ft)
    if isinstance(e, Function):
        ret = e.body.checked_type
        if e.ret_type is not None and not type_matches(e.ret_type, ret):
            raise _fail(f"function declares return type {type_str(e.ret_type)} but its body "
                        f"has type {type_str(ret)}")
        if e.ret_type is not None:
            ret = e.ret_type
        if isinstance(ret, IncompleteType):
            raise _fail("cannot infer the return type of a recursive function: declare it "
                        "(relay.Function(params, body, ret_type))")
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
    let_var = {id(n.value): n.var for n in nodes if isinstance(n, Let)
               and isinstance(n.value, Function)}
    for n in nodes:
        if isinstance(n, Call) and isinstance(n.op, Function) \
                and len(n.op.params) == len(n.args):
            for p, a in zip(n.op.params, n.args):
                if p.type_annotation is None and p._checked_type is None:
                    let_value.setdefault(id(p), _CallArg(a))
    for n in nodes:
        if isinstance(n, GlobalVar):
            raise _Untyped(f"relay type inference: @{n.name_hint} used as a value (a function "
                           "passed around) is not typed by tvmlite; the relay VM runs it")
        if n._checked_type is None:
            n._checked_type = _infer_node(n, let_value)
            v = let_var.get(id(n))
            if v is not None:  # a let-bound function: its uses after the let see its type
                v._checked_type = n._checked_type
    return expr


def mark_untyped(func: Function) -> None:
    """Record that ``func``'s untyped nodes are so on purpose (their ``checked_type`` says
    why)."""
    from ..expr import UNTYPED
    for n in post_order(func):
        if isinstance(n, Expr) and n._checked_type is None:
            UNTYPED.add(n)


def _run(mod: IRModule, ctx) -> IRModule:
    _MODULES.append(mod)
    try:
        for name, func in list(mod.functions.items()):
            if not isinstance(func, Function) or isinstance(func._checked_type, FuncType):
                if isinstance(func, Expr):
                    infer_type(func)
                continue
            if _untypable(func):
                mark_untyped(func)
                continue
            try:
                _IN_PROGRESS.add(name)
                infer_type(func)
            except _Untyped:
                mark_untyped(func)
                continue
            finally:
                _IN_PROGRESS.discard(name)
    finally:
        _MODULES.pop()
    return mod


def InferType() -> Pass:  # noqa: N802
    """The type-inference pass (``relay.transform.InferType()``)."""
    return ModulePass(_run, "InferType", opt_level=0)


register_pass("InferType", InferType)


def retyped_function(func: Function, memo: Dict[int, Expr]) -> Function:
    """``func`` with its body replaced by its rewrite in ``memo`` (node id -> new node),
    typed; ``func`` itself when the body is unchanged."""
    body = memo.get(id(func.body), func.body)
    if body is func.body:
        return func
    return infer_type(Function(func.params, body, func.ret_type, func.type_params,
                               func.attrs))

