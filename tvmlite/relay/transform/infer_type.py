"""``InferType``: the type of every expression, from the parameters' annotations and each
operator's type relation. Errors name the operator and the argument types it was given."""
from __future__ import annotations

from typing import Dict

from ..._classic import UnsupportedError
from ...error import TVMError
from ...ir.module import GlobalVar, IRModule
from ...ir.transform import ModulePass, Pass, register_pass
from ...tir.expr import Any, PrimExpr, SizeVar
from ...tir.functor import post_order_visit
from ..adt import (
    Constructor,
    Match,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    RefType,
    TypeCall,
    TypeVar,
    unmatched_cases,
)
from ..expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    NodeTuple,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
    children,
    post_order,
)
from ..op.registry import Op
from ..ty import FuncType, IncompleteType, TensorType, TupleType, Type, _same_dim, has_any, type_str


class RelayTypeInferenceError(TVMError):
    """Type inference failed (a shape or dtype mismatch, a missing annotation)."""


def _fail(msg: str) -> RelayTypeInferenceError:
    return RelayTypeInferenceError(f"relay type inference: {msg}")


def _unannotated(v: Var) -> RelayTypeInferenceError:
    return _fail(f"variable %{v.name_hint} has no type annotation: give it one with "
                 "relay.var(name, shape=..., dtype=...)")


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


# ------------------------------------------------------------------------------ unification
# Types under inference may hold holes (``IncompleteType``): unknowns that unification binds
# (``hole._link``) as the program is walked. Type variables (``TypeVar``) are rigid: a
# polymorphic function's type is instantiated with fresh holes where it is called.
class _NotReady(Exception):
    """An operator's relation (a projection) needs argument types still unknown: the node
    is typed again once the rest of its function is."""


def find(t: Type) -> Type:
    """``t`` with the holes it was unified with followed (shallow)."""
    while isinstance(t, IncompleteType) and t._link is not None:
        t = t._link
    return t


def resolve(t):
    """``t`` with every bound hole replaced by what it was unified with (deep)."""
    t = find(t)
    if isinstance(t, TupleType):
        fields = [resolve(f) for f in t.fields]
        return t if all(a is b for a, b in zip(fields, t.fields)) else TupleType(fields)
    if isinstance(t, FuncType):
        args, ret = [resolve(a) for a in t.arg_types], resolve(t.ret_type)
        if ret is t.ret_type and all(a is b for a, b in zip(args, t.arg_types)):
            return t
        return FuncType(args, ret, t.type_params)
    if isinstance(t, TypeCall):
        args = [resolve(a) for a in t.args]
        return t if all(a is b for a, b in zip(args, t.args)) else TypeCall(t.func, args)
    if isinstance(t, RefType):
        v = resolve(t.value)
        return t if v is t.value else RefType(v)
    return t


def _parts(t: Type) -> list:
    if isinstance(t, TupleType):
        return list(t.fields)
    if isinstance(t, FuncType):
        return list(t.arg_types) + [t.ret_type]
    if isinstance(t, TypeCall):
        return list(t.args)
    if isinstance(t, RefType):
        return [t.value]
    return []


def has_hole(t) -> bool:
    """Whether ``t`` still holds an unknown (an unbound ``IncompleteType``)."""
    t = find(t)
    return isinstance(t, IncompleteType) or any(has_hole(p) for p in _parts(t))


def _occurs(hole: IncompleteType, t: Type) -> bool:
    t = find(t)
    return t is hole or any(_occurs(hole, p) for p in _parts(t))


def subst_type(t: Type, mapping: Dict[int, Type]) -> Type:
    """``t`` with each type variable ``v`` with ``id(v)`` in ``mapping`` replaced."""
    t = find(t)
    if isinstance(t, TypeVar):
        return mapping.get(id(t), t)
    if isinstance(t, TupleType):
        return TupleType([subst_type(f, mapping) for f in t.fields])
    if isinstance(t, FuncType):
        inner = {k: v for k, v in mapping.items() if all(k != id(p) for p in t.type_params)}
        return FuncType([subst_type(a, inner) for a in t.arg_types],
                        subst_type(t.ret_type, inner), t.type_params)
    if isinstance(t, TypeCall):
        return TypeCall(t.func, [subst_type(a, mapping) for a in t.args])
    if isinstance(t, RefType):
        return RefType(subst_type(t.value, mapping))
    return t


def instantiate(ft: FuncType) -> tuple:
    """A polymorphic ``ft`` with fresh holes for its type parameters: (type, holes)."""
    if ft.type_constraints:
        raise UnsupportedError(f"relay type inference: function types with type constraints "
                               f"({type_str(ft)}) are not supported by tvmlite")
    holes = [IncompleteType() for _ in ft.type_params]
    if not holes:
        return ft, []
    mapping = {id(p): h for p, h in zip(ft.type_params, holes)}
    return FuncType([subst_type(a, mapping) for a in ft.arg_types],
                    subst_type(ft.ret_type, mapping)), holes


def unify(a: Type, b: Type, what: str = "") -> Type:
    """The type both ``a`` and ``b`` are, binding their holes (classic's type solver); a
    mismatch raises an error naming ``what`` and both types."""
    out = _unify(a, b)
    if out is None:
        where = f"{what}: " if what else ""
        raise _fail(f"{where}type {type_str(resolve(a))} does not match {type_str(resolve(b))}")
    return out


def _unify(a: Type, b: Type):
    a, b = find(a), find(b)
    if a is b:
        return a
    if isinstance(a, IncompleteType) or isinstance(b, IncompleteType):
        hole, other = (a, b) if isinstance(a, IncompleteType) else (b, a)
        if _occurs(hole, other):
            return None
        hole._link = other
        return other
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        if not type_matches(a, b):
            return None
        return b if has_any(a) and not has_any(b) else a
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        if len(a.fields) != len(b.fields):
            return None
        fields = [_unify(x, y) for x, y in zip(a.fields, b.fields)]
        return None if any(f is None for f in fields) else TupleType(fields)
    if isinstance(a, FuncType) and isinstance(b, FuncType):
        if len(a.arg_types) != len(b.arg_types):
            return None
        if len(a.type_params) < len(b.type_params):
            a, b = b, a
        # the type parameters they share are renamed alike, the rest are unknowns
        mapping: Dict[int, Type] = {id(p): q for p, q in zip(a.type_params, b.type_params)}
        for p in a.type_params[len(b.type_params):]:
            mapping[id(p)] = IncompleteType()
        inner = FuncType(a.arg_types, a.ret_type)
        a1 = subst_type(inner, mapping)
        ret = _unify(a1.ret_type, b.ret_type)
        args = [_unify(x, y) for x, y in zip(a1.arg_types, b.arg_types)]
        if ret is None or any(x is None for x in args):
            return None
        return FuncType(args, ret, b.type_params)
    if isinstance(a, TypeCall) and isinstance(b, TypeCall):
        if a.func != b.func or len(a.args) != len(b.args):
            return None
        args = [_unify(x, y) for x, y in zip(a.args, b.args)]
        return None if any(x is None for x in args) else TypeCall(a.func, args)
    if isinstance(a, RefType) and isinstance(b, RefType):
        v = _unify(a.value, b.value)
        return None if v is None else RefType(v)
    if a == b:
        return a
    return None


def constructor_type(c: Constructor) -> FuncType:
    """``fn [T...](inputs) -> ADT[T...]``: the type of constructor ``c``."""
    if c.tag < 0:
        raise _fail(f"constructor {c.name_hint} belongs to no relay.TypeData (add its ADT to "
                    "the module)")
    return FuncType(list(c.inputs), TypeCall(c.belong_to, list(c.type_vars)), c.type_vars)


def _bind_pattern(pat: Pattern, t: Type) -> None:
    """Unify ``t`` (the matched value's type) with what ``pat`` takes; type its variables."""
    if isinstance(pat, PatternVar):
        v = pat.var
        if v._checked_type is None:
            v._checked_type = v.type_annotation if v.type_annotation is not None \
                else IncompleteType()
        unify(v._checked_type, t, f"pattern variable %{v.name_hint}")
    elif isinstance(pat, PatternConstructor):
        c = pat.constructor
        if len(pat.patterns) != len(c.inputs):
            raise _fail(f"pattern {c.name_hint}: the constructor takes {len(c.inputs)} "
                        f"field(s), the pattern gives {len(pat.patterns)}")
        holes = [IncompleteType() for _ in c.type_vars]
        unify(t, TypeCall(c.belong_to, holes), f"pattern {c.name_hint}")
        mapping = {id(p): h for p, h in zip(c.type_vars, holes)}
        for sub, field in zip(pat.patterns, c.inputs):
            _bind_pattern(sub, subst_type(field, mapping))
    elif isinstance(pat, PatternTuple):
        holes = [IncompleteType() for _ in pat.patterns]
        unify(t, TupleType(holes), "tuple pattern")
        for sub, h in zip(pat.patterns, holes):
            _bind_pattern(sub, h)


class _Untyped(RelayTypeInferenceError):
    """A global that is not a relay function (tvmlite does not type it): the functions
    calling it run untyped on the relay VM."""


_MODULES: list = []  # the module InferType is typing (calls through GlobalVars)
_IN_PROGRESS: set = set()
_REC_RET: Dict[int, IncompleteType] = {}  # a function being typed -> its recursive result
_PENDING: list = []  # per infer_type call: the nodes waiting for argument types


def _global_type(gv: GlobalVar) -> Type:
    """The type of global function ``gv`` of the module being typed; a recursive call
    inside it takes the types its parameters have so far and an unknown result (unless
    declared), unified with the body's type once that is known."""
    if not _MODULES or gv.name_hint not in _MODULES[-1]:
        raise _fail(f"call of @{gv.name_hint}, which is not a function of the module")
    func = _MODULES[-1][gv.name_hint]
    if isinstance(func._checked_type, FuncType):
        return func._checked_type
    if not isinstance(func, Function):
        raise _Untyped(gv.name_hint)
    if gv.name_hint in _IN_PROGRESS:
        ret = func.ret_type if func.ret_type is not None else \
            _REC_RET.setdefault(id(func), IncompleteType())
        return FuncType([_type_of(p) for p in func.params], ret, func.type_params)
    _IN_PROGRESS.add(gv.name_hint)
    try:
        infer_type(func)
    finally:
        _IN_PROGRESS.discard(gv.name_hint)
    return func.checked_type


def _ctype(e):
    """The type of ``e`` so far (``None``: not known)."""
    return _global_type(e) if isinstance(e, GlobalVar) else e._checked_type


def _type_of(e) -> Type:
    """The type of the typed node ``e``; a variable without one gets a hole (an unknown)."""
    if isinstance(e, GlobalVar):
        return _global_type(e)
    if e._checked_type is None:
        if not isinstance(e, Var):
            return e.checked_type  # the usual error
        e._checked_type = e.type_annotation if e.type_annotation is not None \
            else IncompleteType()
    return e._checked_type


def _arg_types(e: Call) -> list:
    """The argument types of operator call ``e``; an argument of unknown type gets the type
    the operator determines from the others (classic's conv2d weight), or an error.
    Raises ``_NotReady`` where an unknown may still be learnt from the rest of the
    function."""
    raw = [_ctype(a) for a in e.args]
    known = [None if t is None or has_hole(t) else resolve(t) for t in raw]
    if all(t is not None for t in known):
        return known
    waiting = any(t is not None and has_hole(t) for t in raw)
    arg_types = known
    if e.op.arg_types is not None:
        try:
            arg_types = list(e.op.arg_types(known, e.attrs))
        except TVMError as err:
            if waiting:
                raise _NotReady() from None
            raise _fail(f"{err} [in {e.op.name}]") from None
    for a, t in zip(e.args, arg_types):
        if t is None:
            if waiting:
                raise _NotReady()
            if isinstance(a, Var):
                raise _unannotated(a)
            return [x.checked_type for x in e.args]  # the usual error
    for a, t, r in zip(e.args, arg_types, raw):
        if r is None:
            a._checked_type = t
            if isinstance(a, Var):  # classic records it as the variable's annotation
                a.type_annotation = t
        elif has_hole(r):
            unify(r, t, f"an argument of {e.op.name}")
            if isinstance(a, Var) and a.type_annotation is None and not has_hole(t):
                a.type_annotation = t
    return arg_types


def _call_type(e: Call) -> Type:
    if isinstance(e.op, Op):
        arg_types = _arg_types(e)
        op = e.op
        if op.num_inputs >= 0 and len(arg_types) != op.num_inputs:
            raise _fail(f"{op.name} takes {op.num_inputs} argument(s), got {len(arg_types)}")
        shown = ", ".join(type_str(t) for t in arg_types)
        try:
            out = apply_relation(op, arg_types, e.attrs)
        except TVMError as err:
            raise _fail(f"{err} [in {op.name}({shown})]") from None
        except Exception as err:  # noqa: BLE001  (a user's relation: AssertionError ...)
            raise _fail(f"the type relation of {op.name} failed: {type(err).__name__}: {err} "
                        f"[in {op.name}({shown})]") from None
        if out is None:
            raise _fail(f"the type relation of {op.name} returned None, not a type "
                        f"[in {op.name}({shown})]")
        return out
    # a global function, a constructor, or a function-typed expression
    if isinstance(e.op, GlobalVar):
        ftype, name = _global_type(e.op), f"@{e.op.name_hint}"
    elif isinstance(e.op, Constructor):
        ftype, name = constructor_type(e.op), f"constructor {e.op.name_hint}"
    elif isinstance(e.op, Expr):
        ftype, name = find(_type_of(e.op)), None
    else:
        raise _fail(f"cannot call {e.op!r}: it is not an operator or a function")
    arg_types = [_type_of(a) for a in e.args]
    if isinstance(ftype, IncompleteType):  # a parameter of unknown type, called
        ret = IncompleteType()
        unify(ftype, FuncType(arg_types, ret), "a call of a function-typed variable")
        return ret
    if not isinstance(ftype, FuncType):
        raise _fail(f"cannot call an expression of type {type_str(resolve(ftype))}: it is not "
                    "a function")
    ftype, holes = instantiate(ftype)
    if holes:
        e.type_args = NodeTuple(holes)  # resolved once the function is typed
    if len(ftype.arg_types) != len(arg_types):
        if name is None:
            raise _fail(f"function of {len(ftype.arg_types)} parameter(s) called with "
                        f"{len(arg_types)} argument(s)")
        raise _fail(f"{name} takes {len(ftype.arg_types)} argument(s), got {len(arg_types)}")
    for i, (want, got) in enumerate(zip(ftype.arg_types, arg_types)):
        if _unify(want, got) is None:
            raise _fail(f"argument {i} of {name or 'a function call'} has type "
                        f"{type_str(resolve(got))}, the parameter expects "
                        f"{type_str(resolve(want))}")
    return ftype.ret_type


_BOOL = TensorType((), "bool")


def _infer_node(e: Expr, let_value: Dict[int, Expr]) -> Type:
    if isinstance(e, Var):
        if id(e) in let_value and isinstance(let_value[id(e)], _CallArg):
            return _type_of(let_value[id(e)].arg)  # an unannotated parameter: its argument
        if id(e) in let_value:
            value = let_value[id(e)]
            if value._checked_type is None and isinstance(value, Function):
                # a recursive function bound by let, used in its own body: its parameters'
                # types so far (the result, unless declared, unknown until typed)
                ret = value.ret_type if value.ret_type is not None else \
                    _REC_RET.setdefault(id(value), IncompleteType())
                return FuncType([_type_of(p) for p in value.params], ret, value.type_params)
            t = _type_of(value)
            if e.type_annotation is not None:
                if _unify(e.type_annotation, t) is None:
                    raise _fail(f"let variable %{e.name_hint} is annotated "
                                f"{type_str(e.type_annotation)} but bound to "
                                f"{type_str(resolve(t))}")
            return t
        return e.type_annotation  # None: the operator using it may determine it
    if isinstance(e, Constant):
        return TensorType(e.data.shape, e.data.dtype)
    if isinstance(e, Constructor):
        return constructor_type(e)
    if isinstance(e, Call):
        return _call_type(e)
    if isinstance(e, Tuple):
        return TupleType([_type_of(f) for f in e.fields])
    if isinstance(e, TupleGetItem):
        t = find(_type_of(e.tuple_value))
        if isinstance(t, IncompleteType):
            raise _NotReady()
        if not isinstance(t, TupleType):
            raise _fail(f"TupleGetItem .{e.index} of a non-tuple of type {type_str(t)}")
        if not 0 <= e.index < len(t.fields):
            raise _fail(f"TupleGetItem index {e.index} out of range for {type_str(t)}")
        return t.fields[e.index]
    if isinstance(e, Let):
        return _type_of(e.body)
    if isinstance(e, If):
        ct = find(_type_of(e.cond))
        if _unify(ct, _BOOL) is None:
            raise _fail(f"the condition of If must be a scalar bool, got {type_str(ct)}")
        tt, ft = _type_of(e.true_branch), _type_of(e.false_branch)
        if not has_hole(tt) and not has_hole(ft) and type_matches(resolve(tt), resolve(ft)):
            return join_types(resolve(tt), resolve(ft))  # Any where the dimensions differ
        out = _unify(tt, ft)  # a polymorphic branch is instantiated
        if out is None:
            raise _fail(f"the branches of If have different types {type_str(resolve(tt))} "
                        f"and {type_str(resolve(ft))}")
        return out
    if isinstance(e, Function):
        ret = _type_of(e.body)
        if e.ret_type is not None:
            if _unify(e.ret_type, ret) is None:
                raise _fail(f"function declares return type {type_str(e.ret_type)} but its "
                            f"body has type {type_str(resolve(ret))}")
            ret = e.ret_type
        if id(e) in _REC_RET:
            unify(_REC_RET.pop(id(e)), ret, "the result of a recursive call")
        return FuncType([_type_of(p) for p in e.params], ret, e.type_params)
    if isinstance(e, Match):
        ret: Type = IncompleteType()
        for c in e.clauses:
            ret = unify(ret, _type_of(c.rhs), "the clauses of a match")
        if e.complete and _MODULES:
            missed = unmatched_cases(e, _MODULES[-1])
            if missed:
                raise _fail(f"match expression does not handle {len(missed)} case(s): "
                            f"{', '.join(_pattern_str(p) for p in missed)}")
        return ret
    if isinstance(e, RefCreate):
        return RefType(_type_of(e.value))
    if isinstance(e, RefRead):
        value = IncompleteType()
        unify(_type_of(e.ref), RefType(value), "RefRead of a non-reference")
        return value
    if isinstance(e, RefWrite):
        unify(_type_of(e.ref), RefType(_type_of(e.value)), "RefWrite")
        return TupleType([])
    raise _fail(f"unknown expression {type(e).__name__}")


def _pattern_str(p) -> str:
    if isinstance(p, PatternConstructor):
        inner = ", ".join(_pattern_str(q) for q in p.patterns)
        return p.constructor.name_hint + (f"({inner})" if p.patterns else "")
    if isinstance(p, PatternTuple):
        return f"({', '.join(_pattern_str(q) for q in p.patterns)})"
    return "_"


class _CallArg:
    """The argument an unannotated parameter of a called function takes its type from (the
    arguments of a call are typed before the function it calls)."""

    __slots__ = ("arg",)

    def __init__(self, arg: Expr):
        self.arg = arg


class _Bind:
    """A step of the walk: type a function's parameters before its body, a match's pattern
    variables before its clauses."""

    __slots__ = ("node",)

    def __init__(self, node: Expr):
        self.node = node


def _walk_children(e) -> list:
    if isinstance(e, Function):
        return [_Bind(e), e.body]
    if isinstance(e, Match):
        return [e.data, _Bind(e)] + [c.rhs for c in e.clauses]
    if isinstance(e, _Bind):
        return []
    return children(e)


def _bind(n: Expr, let_value: Dict[int, Expr]) -> None:
    if isinstance(n, Function):
        for p in n.params:
            if p._checked_type is not None:
                continue
            arg = let_value.get(id(p))
            if p.type_annotation is None and isinstance(arg, _CallArg) \
                    and _ctype(arg.arg) is not None:
                p._checked_type = _ctype(arg.arg)
            else:
                _type_of(p)
    else:
        dt = _type_of(n.data)
        for c in n.clauses:
            _bind_pattern(c.lhs, dt)


def _pattern_vars(p) -> list:
    return p.bound_vars() if isinstance(p, Pattern) else []


def _finish(nodes: list, let_value: Dict[int, Expr]) -> None:
    """Type the nodes that waited for unknowns, then replace every hole by what it was
    unified with; a parameter whose type stayed unknown is an error."""
    pending = _PENDING[-1]
    progress = True
    while pending and progress:
        progress = False
        for item in list(pending):
            node, hole = item
            try:
                t = _infer_node(node, let_value)
            except _NotReady:
                continue
            unify(hole, t, "an operator's result")
            pending.remove(item)
            progress = True
    if pending:
        node = pending[0][0]
        for a in getattr(node, "args", ()):
            if isinstance(a, Var) and isinstance(find(_type_of(a)), IncompleteType):
                raise _unannotated(a)
        what = node.op.name if isinstance(node, Call) and isinstance(node.op, Op) \
            else type(node).__name__
        raise _fail(f"cannot infer the argument types of {what}: give its inputs type "
                    "annotations")
    extra = []
    for n in nodes:
        if isinstance(n, Function):
            extra.extend(n.params)
        elif isinstance(n, Match):
            for c in n.clauses:
                extra.extend(_pattern_vars(c.lhs))
    for n in list(nodes) + extra:
        if isinstance(n, Expr) and n._checked_type is not None:
            n._checked_type = resolve(n._checked_type)
        if isinstance(n, Call) and n.type_args:
            n.type_args = NodeTuple(resolve(t) for t in n.type_args)
    for n in nodes:
        if isinstance(n, Function):
            for p in n.params:
                if isinstance(p._checked_type, IncompleteType):
                    raise _unannotated(p)
            if n.ret_type is None:
                n.ret_type = n._checked_type.ret_type  # classic's inference fills it in


def infer_type(expr: Expr) -> Expr:
    """Annotate ``expr`` and every sub-expression with ``checked_type``; return ``expr``."""
    nodes = [n for n in post_order(expr, _walk_children)]
    exprs = [n for n in nodes if not isinstance(n, _Bind)]
    let_value = {id(n.var): n.value for n in exprs if isinstance(n, Let)}
    let_var = {id(n.value): n.var for n in exprs if isinstance(n, Let)
               and isinstance(n.value, Function)}
    for n in exprs:
        if isinstance(n, Call) and isinstance(n.op, Function) \
                and len(n.op.params) == len(n.args):
            for p, a in zip(n.op.params, n.args):
                if p.type_annotation is None and p._checked_type is None:
                    let_value.setdefault(id(p), _CallArg(a))
    _PENDING.append([])
    try:
        for n in nodes:
            if isinstance(n, _Bind):
                _bind(n.node, let_value)
                continue
            if isinstance(n, GlobalVar):
                continue  # typed where it is used
            if n._checked_type is None:
                try:
                    n._checked_type = _infer_node(n, let_value)
                except _NotReady:
                    n._checked_type = IncompleteType()
                    _PENDING[-1].append((n, n._checked_type))
                v = let_var.get(id(n))
                if v is not None:  # a let-bound function: its uses after the let see its type
                    v._checked_type = n._checked_type
        _finish(exprs, let_value)
    except TVMError:
        _forget_holes(exprs)
        raise
    finally:
        _PENDING.pop()
        for n in exprs:  # a failure leaves the recursive results of its functions
            if isinstance(n, Function):
                _REC_RET.pop(id(n), None)
    return expr


def _forget_holes(nodes: list) -> None:
    """After a failure: the nodes whose types hold unknowns are left untyped."""
    for n in nodes:
        if isinstance(n, Function):
            for p in n.params:
                if p._checked_type is not None and has_hole(p._checked_type):
                    p._checked_type = None
        if isinstance(n, Expr) and n._checked_type is not None and has_hole(n._checked_type):
            n._checked_type = None
        if isinstance(n, Call) and any(has_hole(t) for t in n.type_args):
            n.type_args = NodeTuple()


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


def InferTypeLocal(expr: Expr) -> Type:  # noqa: N802
    """Type ``expr`` and its sub-expressions in place, without a module (classic
    ``relay.transform.InferTypeLocal``); returns its type."""
    return infer_type(expr).checked_type


def retyped_function(func: Function, memo: Dict[int, Expr]) -> Function:
    """``func`` with its body replaced by its rewrite in ``memo`` (node id -> new node),
    typed; ``func`` itself when the body is unchanged."""
    body = memo.get(id(func.body), func.body)
    if body is func.body:
        return func
    return infer_type(Function(func.params, body, func.ret_type, func.type_params,
                               func.attrs))

