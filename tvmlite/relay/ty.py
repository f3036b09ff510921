"""Relay types: ``TensorType`` (static shape + dtype), ``TupleType``, ``FuncType`` and
``IncompleteType`` (left to inference)."""
from __future__ import annotations

import enum
from typing import Sequence, Tuple

from ..error import TVMError
from ..ir import dtype as _dt
from ..ir.structural import structural_equal
from ..tir.expr import Any


class TypeKind(enum.IntEnum):
    """The kinds of type variables (classic ``relay.TypeKind``)."""

    Type = 0
    ShapeVar = 1
    BaseType = 2
    Constraint = 4
    AdtHandle = 5
    TypeData = 6


class Type:
    """Base class of relay types (compared structurally)."""

    __slots__ = ()
    _ir_object = True  # ``tvm.runtime.convert`` passes it through


def _canonical_dtype(dtype: str) -> str:
    """Classic's spelling of ``dtype`` ("int" is int32, "float" float32); others as given."""
    try:
        return _dt.canonical(dtype)
    except Exception:  # noqa: BLE001  (a dtype tvmlite cannot parse stays as written)
        return dtype


class IncompleteType(Type):
    """A type left to inference (classic ``relay.IncompleteType``): a variable annotated
    with it is an unannotated one, whose type the operators using it determine."""

    __slots__ = ("kind", "_link")

    def __init__(self, kind: int = 0):
        self.kind = kind
        self._link: "Type | None" = None  # what inference unified it with

    def __repr__(self) -> str:
        return "?"


def _same_dim(a, b) -> bool:
    if isinstance(a, int) or isinstance(b, int):
        return isinstance(a, int) and isinstance(b, int) and a == b
    return structural_equal(a, b, map_free_vars=False)


class TensorType(Type):
    """A tensor of ``shape`` and ``dtype``. Dimensions may be symbolic (classic's dynamic
    shapes: type inference carries them), but ``relay.build`` compiles static shapes only."""

    __slots__ = ("shape", "dtype")
    # structural equality compares fields, so symbolic dimensions map like variables
    _structural_fields = ("shape", "dtype")

    def __init__(self, shape: Sequence[int], dtype: str = "float32"):
        dims = []
        for d in shape:
            try:
                dims.append(int(d))
            except (TypeError, ValueError):
                if isinstance(d, str) or not hasattr(d, "dtype"):
                    raise TVMError(f"TensorType: shape must hold ints or integer expressions, "
                                   f"got {tuple(shape)!r}") from None
                dims.append(d)  # a symbolic dimension (relay.build refuses it)
        if any(isinstance(d, int) and d < 0 for d in dims):
            raise TVMError(f"TensorType: negative dimension in shape {tuple(dims)}")
        self.shape: Tuple[int, ...] = tuple(dims)
        self.dtype = _canonical_dtype(str(dtype))

    @property
    def is_static(self) -> bool:
        """Whether every dimension is a known int (tvmlite compiles only those)."""
        return all(isinstance(d, int) for d in self.shape)

    @property
    def concrete_shape(self) -> Tuple[int, ...]:
        return self.shape

    def __eq__(self, other) -> bool:
        return (isinstance(other, TensorType) and self.dtype == other.dtype
                and len(self.shape) == len(other.shape)
                and all(_same_dim(a, b) for a, b in zip(self.shape, other.shape)))

    def __hash__(self) -> int:
        return hash((tuple(d if isinstance(d, int) else "?" for d in self.shape), self.dtype))

    def __repr__(self) -> str:
        return type_str(self)


class TupleType(Type):
    """A tuple of ``fields`` types."""

    __slots__ = ("fields",)
    _structural_fields = ("fields",)

    def __init__(self, fields: Sequence[Type]):
        self.fields = tuple(fields)

    def __eq__(self, other) -> bool:
        return type_equal(self, other)

    def __hash__(self) -> int:
        return hash(self.fields)

    def __repr__(self) -> str:
        return type_str(self)


class FuncType(Type):
    """The type of a function: ``arg_types -> ret_type``."""

    __slots__ = ("arg_types", "ret_type", "type_params", "type_constraints")
    _structural_fields = ("arg_types", "ret_type", "type_params")

    def __init__(self, arg_types: Sequence[Type], ret_type: Type, type_params=None,
                 type_constraints=None):
        self.arg_types, self.ret_type = tuple(arg_types), ret_type
        #: the type variables it is polymorphic over (``fn [A](A) -> A``)
        self.type_params = tuple(type_params or ())
        for t in self.type_params:
            if not isinstance(t, TypeVar):
                raise TVMError(f"relay.FuncType: type parameters must be relay.TypeVar, got "
                               f"{type(t).__name__}")
        #: type relations among them (kept and kind-checked; type inference refuses them)
        self.type_constraints = tuple(type_constraints or ())

    def __eq__(self, other) -> bool:
        return type_equal(self, other)

    def __hash__(self) -> int:
        return hash((self.arg_types, self.ret_type, len(self.type_params)))

    def __repr__(self) -> str:
        return type_str(self)


class TypeVar(Type):
    """A type variable (classic ``relay.TypeVar``): a parameter of a polymorphic type."""

    __slots__ = ("name_hint", "kind")
    # structural equality maps type variables one to one where they are bound
    _structural_def = "var"

    def __init__(self, name_hint: str, kind: int = 0):
        self.name_hint, self.kind = str(name_hint), kind

    def __repr__(self) -> str:
        return self.name_hint


class GlobalTypeVar(Type):
    """The name of an ADT in a module (classic ``relay.GlobalTypeVar``)."""

    __slots__ = ("name_hint", "kind")
    _is_global_type_var = True

    def __init__(self, name_hint: str, kind: int = 5):
        self.name_hint, self.kind = str(name_hint), kind

    def __call__(self, *args: Type) -> "TypeCall":
        return TypeCall(self, args)

    def __eq__(self, other) -> bool:
        return isinstance(other, GlobalTypeVar) and other.name_hint == self.name_hint

    def __hash__(self) -> int:
        return hash(("GlobalTypeVar", self.name_hint))

    def __repr__(self) -> str:
        return self.name_hint


class TypeCall(Type):
    """An ADT applied to type arguments: ``List[float32]`` (classic ``relay.TypeCall``)."""

    __slots__ = ("func", "args")
    _structural_fields = ("func", "args")

    def __init__(self, func: Type, args: Sequence[Type]):
        self.func, self.args = func, tuple(args)

    def __eq__(self, other) -> bool:
        return type_equal(self, other)

    def __hash__(self) -> int:
        return hash((self.func, self.args))

    def __repr__(self) -> str:
        return f"{self.func!r}[{', '.join(map(repr, self.args))}]"


class RefType(Type):
    """The type of a mutable reference to a ``value`` (classic ``relay.RefType``)."""

    __slots__ = ("value",)
    _structural_fields = ("value",)

    def __init__(self, value: Type):
        self.value = value

    def __eq__(self, other) -> bool:
        return type_equal(self, other)

    def __hash__(self) -> int:
        return hash(("Ref", self.value))

    def __repr__(self) -> str:
        return f"Ref[{self.value!r}]"


class TypeRelation(Type):
    """A type constraint: ``func`` relates ``args`` (its first ``num_inputs`` the inputs)
    under ``attrs`` (classic ``relay.TypeRelation``). tvmlite's operators carry their
    relations as Python functions; this node is for classic code that builds one."""

    __slots__ = ("func", "args", "num_inputs", "attrs")
    _structural_fields = ("func", "args", "num_inputs", "attrs")

    def __init__(self, func, args: Sequence[Type], num_inputs: int, attrs=None):
        self.func, self.args = func, tuple(args)
        self.num_inputs, self.attrs = int(num_inputs), attrs

    def __repr__(self) -> str:
        return f"TypeRelation({self.func!r}, {list(self.args)!r}, {self.num_inputs})"


def type_equal(a: Type, b: Type, env: "dict | None" = None) -> bool:
    """Whether ``a`` and ``b`` are the same type (classic's structural equality): the type
    parameters of function types are bound, so ``fn [a](a) -> a`` equals ``fn [b](b) -> b``;
    ``env`` maps ``id`` of ``b``'s bound variables to ``a``'s."""
    env = env or {}
    while isinstance(a, IncompleteType) and a._link is not None:
        a = a._link
    while isinstance(b, IncompleteType) and b._link is not None:
        b = b._link
    if isinstance(b, TypeVar) and id(b) in env:
        return env[id(b)] is a
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, TupleType):
        return len(a.fields) == len(b.fields) and all(
            type_equal(x, y, env) for x, y in zip(a.fields, b.fields))
    if isinstance(a, FuncType):
        if len(a.type_params) != len(b.type_params) or len(a.arg_types) != len(b.arg_types):
            return False
        if any(p.kind != q.kind for p, q in zip(a.type_params, b.type_params)):
            return False
        inner = {**env, **{id(q): p for p, q in zip(a.type_params, b.type_params)}}
        return type_equal(a.ret_type, b.ret_type, inner) and all(
            type_equal(x, y, inner) for x, y in zip(a.arg_types, b.arg_types))
    if isinstance(a, TypeCall):
        return len(a.args) == len(b.args) and type_equal(a.func, b.func, env) and all(
            type_equal(x, y, env) for x, y in zip(a.args, b.args))
    if isinstance(a, RefType):
        return type_equal(a.value, b.value, env)
    if isinstance(a, (TensorType, GlobalTypeVar)):
        return a == b
    return False


def scalar_type(dtype: str) -> TensorType:
    """The type of a scalar of ``dtype`` (a 0-d tensor)."""
    return TensorType((), dtype)


def check_static(t: Type, what: str) -> None:
    """Refuse a type with a symbolic dimension (tvmlite's relay compiles static shapes)."""
    if isinstance(t, TensorType) and not t.is_static:
        raise TVMError(f"{what}: shape must be a sequence of ints, got {t.shape!r} (dynamic "
                       "shapes are not supported by tvmlite)")
    for f in getattr(t, "fields", ()):
        check_static(f, what)


def has_any(t) -> bool:
    """Whether type ``t`` (a tensor, tuple or function type) has an ``Any`` dimension."""
    if isinstance(t, TensorType):
        return any(isinstance(d, Any) for d in t.shape)
    if isinstance(t, TupleType):
        return any(has_any(f) for f in t.fields)
    if isinstance(t, FuncType):
        return any(has_any(a) for a in t.arg_types) or has_any(t.ret_type)
    return False


def type_str(t: Type) -> str:
    """The classic text form: ``Tensor[(1, 3), float32]``, ``Tensor[(3), int32]``, ``float32``
    (a scalar), ``(Tensor[...], ...)``."""
    if isinstance(t, TensorType):
        if not t.shape:
            return t.dtype
        return f"Tensor[({', '.join(map(str, t.shape))}), {t.dtype}]"
    if isinstance(t, TupleType):
        inner = ", ".join(type_str(f) for f in t.fields) + ("," if len(t.fields) == 1 else "")
        return f"({inner})"
    if isinstance(t, FuncType):
        tps = f"[{', '.join(map(repr, t.type_params))}]" if t.type_params else ""
        return (f"fn {tps}({', '.join(type_str(a) for a in t.arg_types)}) -> "
                f"{type_str(t.ret_type)}")
    if isinstance(t, IncompleteType) and t._link is not None:
        return type_str(t._link)
    return repr(t)
