"""Relay expressions: ``Var``, ``Constant``, ``Call``, ``Tuple``, ``TupleGetItem``, ``Let``,
``If`` and ``Function``.

Nodes are identified by object (a shared sub-expression is one node used twice, a DAG).
Type inference stores each node's type in ``checked_type``; it is a function of the node's
structure, so it is set once and never invalidated.
"""
from __future__ import annotations

import weakref
from typing import Any, Dict, Iterator, List, Optional, Sequence

import numpy as np

from ..error import TVMError
from ..ir.module import GlobalVar
from ..runtime import ndarray
from .ty import IncompleteType, TensorType, Type

#: expressions InferType left untyped on purpose (they call a global that is not a relay
#: function)
UNTYPED: "weakref.WeakSet" = weakref.WeakSet()


class Attrs:
    """Operator attributes: read as ``attrs.strides`` or ``attrs["strides"]``."""

    __slots__ = ("_fields",)

    def __init__(self, fields: Optional[Dict[str, Any]] = None):
        object.__setattr__(self, "_fields", dict(fields or {}))

    def __reduce__(self):
        return Attrs, (self._fields,)

    def __getattr__(self, name: str):
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"attrs have no field {name!r} "
                                 f"(fields: {sorted(self._fields)})") from None

    def __getitem__(self, name: str):
        return self._fields[name]

    def __setattr__(self, name, value):
        raise TVMError("relay attrs are immutable")

    def keys(self):
        return self._fields.keys()

    def items(self):
        return self._fields.items()

    def get(self, name: str, default=None):
        return self._fields.get(name, default)

    def __contains__(self, name) -> bool:
        return name in self._fields

    def __len__(self) -> int:
        return len(self._fields)

    def __repr__(self) -> str:
        return f"Attrs({self._fields!r})"

    def _structural_value(self) -> dict:
        return dict(self._fields)


class NodeTuple(tuple):
    """The children of a node (a call's args, a function's params): a tuple that also equals
    the list of the same items, as classic's ``Array`` does."""

    __slots__ = ()

    def __eq__(self, other) -> bool:
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = tuple.__hash__


class Expr:
    """Base class of relay expressions."""

    #: source locations are not tracked (classic's ``span``)
    span = None

    __slots__ = ("_checked_type", "__weakref__")
    _ir_object = True  # ``tvm.runtime.convert`` passes it through

    def __init__(self):
        self._checked_type: Optional[Type] = None

    @property
    def checked_type(self) -> Type:
        """The type inferred by ``relay.transform.InferType``."""
        if self._checked_type is None:
            if self in UNTYPED:
                from .._classic import UnsupportedError
                raise UnsupportedError(
                    "relay type inference: tvmlite does not type a function that calls a "
                    "global which is not a relay function (a PrimFunc); this one runs "
                    "untyped on the relay VM")
            raise TVMError("the type of this expression has not been inferred: run "
                           "relay.transform.InferType() on its module first")
        return self._checked_type

    def astext(self, show_meta_data: bool = True, annotate=None) -> str:
        """Classic's text format of this expression (``#[version = "0.0.5"]`` ...), with the
        metadata section when ``show_meta_data``; :func:`tvmlite.relay.parse_expr` reads it."""
        from .printer import astext
        return astext(self, show_meta_data, annotate)

    def __str__(self) -> str:
        from .printer import pretty_print
        return pretty_print(self)

    def __repr__(self) -> str:
        return str(self)

    # arithmetic builds calls of the broadcasting ops
    def _binary(self, name: str, other, swap: bool = False) -> "Call":
        from .op import registry
        other = other if isinstance(other, Expr) else const(other, _dtype_hint(self))
        args = [other, self] if swap else [self, other]
        return Call(registry.get(name), args)

    def __add__(self, other):
        return self._binary("add", other)

    def __radd__(self, other):
        return self._binary("add", other, True)

    def __sub__(self, other):
        return self._binary("subtract", other)

    def __rsub__(self, other):
        return self._binary("subtract", other, True)

    def __mul__(self, other):
        return self._binary("multiply", other)

    def __rmul__(self, other):
        return self._binary("multiply", other, True)

    def __truediv__(self, other):
        return self._binary("divide", other)

    def __rtruediv__(self, other):
        return self._binary("divide", other, True)

    def _compare(self, name: str, other) -> "Call":
        if not isinstance(other, Expr):
            raise TypeError(f'convert "{other}" with `const` first' if isinstance(
                other, (int, float)) else f"type {type(other)} not supported")
        return self._binary(name, other)

    def __lt__(self, other):
        return self._compare("less", other)

    def __gt__(self, other):
        return self._compare("greater", other)

    def __le__(self, other):
        return self._compare("less_equal", other)

    def __ge__(self, other):
        return self._compare("greater_equal", other)

    def astype(self, dtype: str) -> "Call":
        """This value cast to ``dtype`` (classic ``ExprWithOp.astype``)."""
        from .op.tensor import cast
        return cast(self, dtype)

    def __neg__(self) -> "Call":
        from .op import registry
        return Call(registry.get("negative"), [self])

    def __call__(self, *args) -> "Call":
        """A call of this (function-typed) expression: ``f(x, y)``."""
        return Call(self, list(args))

    __hash__ = object.__hash__


def _dtype_hint(e: Expr) -> str:
    t = e._checked_type
    if isinstance(t, TensorType):
        return t.dtype
    if isinstance(e, Var) and isinstance(e.type_annotation, TensorType):
        return e.type_annotation.dtype
    if isinstance(e, Constant):
        return str(e.data.dtype)
    return "float32"


class Var(Expr):
    """A variable (function parameter or let binding), identified by object; ``name_hint``
    is only for printing."""

    __slots__ = ("name_hint", "type_annotation")
    # structural equality maps variables one to one; their annotations must match
    _structural_def = "var"
    _structural_fields = ("type_annotation",)

    def __init__(self, name_hint: str, type_annotation: Optional[Type] = None):
        super().__init__()
        self.name_hint = str(name_hint)
        self.type_annotation = type_annotation

    @property
    def vid(self) -> "Id":
        """The variable's identity (classic ``Var.vid``): the same for every use of it."""
        return Id(self)


class Id:
    """The identity of a relay variable (classic ``relay.Id``), with its ``name_hint``."""

    __slots__ = ("_var",)
    _structural_fields = ("_var",)  # structurally: its variable (mapped as variables are)

    def __init__(self, var: Var):
        self._var = var

    @property
    def name_hint(self) -> str:
        return self._var.name_hint

    def same_as(self, other) -> bool:
        return isinstance(other, Id) and other._var is self._var

    def __eq__(self, other) -> bool:
        return self.same_as(other)

    def __hash__(self) -> int:
        return id(self._var)


class Constant(Expr):
    """A constant tensor (``data`` is a ``tvm.nd.NDArray``)."""

    __slots__ = ("data",)

    def __init__(self, data):
        super().__init__()
        if not isinstance(data, ndarray.NDArray):
            data = ndarray.array(np.asarray(data))
        self.data = data

    def _structural_value(self) -> tuple:
        arr = self.data.numpy()
        return ("Constant", str(arr.dtype), tuple(arr.shape), arr.tobytes())


class Call(Expr):
    """``op(args...)`` with ``attrs``: ``op`` is an :class:`~tvmlite.relay.op.Op` or a
    Function."""

    __slots__ = ("op", "args", "attrs", "type_args", "span")
    _structural_graph = True  # sharing is structure (classic's graph nodes)
    _structural_fields = ("op", "args", "_structural_attrs", "type_args")

    @property
    def _structural_attrs(self) -> dict:
        return {} if self.attrs is None else dict(self.attrs.items())

    def __init__(self, op, args: Sequence[Expr], attrs=None, type_args=None, span=None):
        super().__init__()
        self.span = span  # where the call came from (printed, not structure)
        for i, a in enumerate(args):
            if not isinstance(a, (Expr, GlobalVar)):
                raise TVMError(f"argument {i} of a call to {getattr(op, 'name', op)} is "
                               f"{type(a).__name__}, not a relay expression")
        self.op = op
        self.args = NodeTuple(args)
        self.attrs = attrs if isinstance(attrs, Attrs) or attrs is None else Attrs(attrs)
        self.type_args = NodeTuple(type_args or ())


class Tuple(Expr):
    """A tuple of expressions."""

    __slots__ = ("fields",)
    _structural_graph = staticmethod(lambda t: len(t.fields) > 0)  # not ()
    _structural_fields = ("fields",)

    def __init__(self, fields: Sequence[Expr]):
        super().__init__()
        self.fields = NodeTuple(fields)
        for i, f in enumerate(self.fields):
            if not isinstance(f, (Expr, GlobalVar)):
                raise TVMError(f"tuple field {i} is {type(f).__name__}, not a relay expression")

    def __getitem__(self, i: int) -> Expr:
        return self.fields[i]

    def __len__(self) -> int:
        return len(self.fields)


class TupleGetItem(Expr):
    """Field ``index`` of a tuple-typed expression."""

    __slots__ = ("tuple_value", "index")
    _structural_fields = ("tuple_value", "index")

    def __init__(self, tuple_value: Expr, index: int):
        super().__init__()
        self.tuple_value = tuple_value
        self.index = int(index)


class Let(Expr):
    """``let var = value; body``."""

    __slots__ = ("var", "value", "body")
    _structural_graph = True  # sharing is structure (classic's graph nodes)
    _structural_fields = ("var", "value", "body")

    def __init__(self, var: Var, value: Expr, body: Expr):
        super().__init__()
        if not isinstance(var, Var):
            raise TVMError(f"Let binds a Var, got {type(var).__name__}")
        self.var, self.value, self.body = var, value, body


class If(Expr):
    """``if (cond) { true_branch } else { false_branch }``; ``cond`` is a scalar bool."""

    __slots__ = ("cond", "true_branch", "false_branch")
    _structural_graph = True  # sharing is structure (classic's graph nodes)
    _structural_fields = ("cond", "true_branch", "false_branch")

    def __init__(self, cond: Expr, true_branch: Expr, false_branch: Expr):
        super().__init__()
        self.cond, self.true_branch, self.false_branch = cond, true_branch, false_branch


class Function(Expr):
    """``fn (params) -> ret_type { body }``."""

    __slots__ = ("params", "body", "ret_type", "type_params", "attrs")
    # the return type is compared where both sides know it (declared or inferred): classic
    # type inference fills in every function's return type
    _structural_graph = True  # sharing is structure (classic's graph nodes)
    _structural_fields = ("params", "_structural_ret", "attrs", "type_params", "body")
    _structural_optional = ("_structural_ret",)

    @property
    def _structural_ret(self) -> Optional[Type]:
        if self.ret_type is not None:
            return self.ret_type
        return self.body._checked_type

    def __init__(self, params: Sequence[Var], body: Expr, ret_type: Optional[Type] = None,
                 type_params=None, attrs=None):
        super().__init__()
        for p in params:
            if not isinstance(p, Var):
                raise TVMError(f"function parameters must be relay Vars, got {p!r}")
        if not isinstance(body, Expr):
            raise TVMError(f"function body must be a relay expression, got {type(body)}")
        self.params = NodeTuple(params)
        self.body = body
        self.ret_type = ret_type
        self.type_params = NodeTuple(type_params or ())
        self.attrs = dict(attrs or {})

    def with_attr(self, key: str, value) -> "Function":
        return Function(self.params, self.body, self.ret_type, self.type_params,
                        {**self.attrs, key: value})


class TupleWrapper:
    """The result of a multi-output op (``relay.nn.batch_norm(...)[0]``)."""

    def __init__(self, tuple_value: Expr, size: int):
        self.tuple_value, self.size = tuple_value, size

    def astuple(self) -> Expr:
        return self.tuple_value

    def astext(self, *args, **kwargs) -> str:
        """The text form of the wrapped tuple expression (classic ``TupleWrapper.astext``)."""
        return self.tuple_value.astext(*args, **kwargs)

    def __getitem__(self, index: int) -> TupleGetItem:
        if not -self.size <= index < self.size:
            raise IndexError(f"tuple index {index} out of range for {self.size} fields")
        return TupleGetItem(self.tuple_value, index % self.size)

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[TupleGetItem]:
        return (self[i] for i in range(self.size))


def children(e: Expr) -> List[Expr]:
    """The direct sub-expressions of ``e`` in evaluation order (a Function's params
    excluded)."""
    if isinstance(e, Call):
        return list(e.args) + ([e.op] if isinstance(e.op, Expr) else [])
    if isinstance(e, Tuple):
        return list(e.fields)
    if isinstance(e, TupleGetItem):
        return [e.tuple_value]
    if isinstance(e, Let):
        return [e.value, e.body]
    if isinstance(e, If):
        return [e.cond, e.true_branch, e.false_branch]
    if isinstance(e, Function):
        return [e.body]
    if hasattr(e, "_children"):  # Match, RefCreate, ... (relay.adt and below)
        return e._children()
    return []


def dataflow_children(e: Expr) -> List[Expr]:
    """The dataflow inputs of ``e``: a call's arguments (a function it calls is not walked
    into), a tuple's fields, a projection's tuple; a let, an if or a function is a leaf."""
    if isinstance(e, Call):
        return list(e.args)
    if isinstance(e, Tuple):
        return list(e.fields)
    if isinstance(e, TupleGetItem):
        return [e.tuple_value]
    return []


def post_order(root: Expr, children_of=None) -> List[Expr]:
    """Every node reachable from ``root`` once, each after its children (an explicit stack,
    so a chain of any length is walked without recursion); ``children_of`` replaces
    :func:`children`."""
    children_of = children_of or children
    out: List[Expr] = []
    seen = set()
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            out.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for c in reversed(children_of(node)):
            if id(c) not in seen:
                stack.append((c, False))
    return out


def with_children(n: Expr, memo: Dict[int, Expr]) -> Expr:
    """``n`` with each child ``c`` replaced by ``memo[id(c)]`` where present; ``n`` itself
    when nothing changes. The copy keeps ``n``'s type: replacements must have their
    originals' types (passes replace like with like)."""
    def sub(c):
        return memo.get(id(c), c)
    if isinstance(n, Call):
        args = [sub(a) for a in n.args]
        if all(a is b for a, b in zip(args, n.args)):
            return n
        new = Call(n.op, args, n.attrs, n.type_args)
    elif isinstance(n, Tuple):
        fields = [sub(f) for f in n.fields]
        if all(a is b for a, b in zip(fields, n.fields)):
            return n
        new = Tuple(fields)
    elif isinstance(n, TupleGetItem):
        t = sub(n.tuple_value)
        if t is n.tuple_value:
            return n
        new = TupleGetItem(t, n.index)
    elif isinstance(n, (Var, Constant)):
        return n
    elif isinstance(n, Let):
        value, body = sub(n.value), sub(n.body)
        if value is n.value and body is n.body:
            return n
        new = Let(n.var, value, body)
    elif isinstance(n, If):
        parts = [sub(n.cond), sub(n.true_branch), sub(n.false_branch)]
        if all(a is b for a, b in zip(parts, (n.cond, n.true_branch, n.false_branch))):
            return n
        new = If(*parts)
    elif isinstance(n, Function):
        body = sub(n.body)
        if body is n.body:
            return n
        new = Function(n.params, body, n.ret_type, n.type_params, n.attrs)
    else:
        raise TVMError(f"{type(n).__name__} is not supported here yet")
    new._checked_type = n._checked_type
    return new


def visit_children(e) -> list:
    """The children of ``e`` in classic ``ExprVisitor`` order: a call's operator (an ``Op``,
    a ``GlobalVar`` or an expression) before its arguments, a function's parameters before
    its body, a let's value, variable and body."""
    if isinstance(e, Call):
        return [e.op] + list(e.args)
    if isinstance(e, Function):
        return list(e.params) + [e.body]
    if isinstance(e, Let):
        return [e.value, e.var, e.body]
    if isinstance(e, If):
        return [e.cond, e.true_branch, e.false_branch]
    if isinstance(e, Tuple):
        return list(e.fields)
    if isinstance(e, TupleGetItem):
        return [e.tuple_value]
    return []


def replace_children(n: Expr, sub) -> Expr:
    """``n`` with each child ``c`` (:func:`visit_children`) replaced by ``sub(c)``: an untyped
    copy, or ``n`` itself when nothing changes."""
    old = visit_children(n)
    new = [sub(c) for c in old]
    if all(a is b for a, b in zip(old, new)):
        return n
    if isinstance(n, Call):
        return Call(new[0], new[1:], n.attrs, n.type_args, n.span)
    if isinstance(n, Function):
        return Function(new[:-1], new[-1], n.ret_type, n.type_params, n.attrs)
    if isinstance(n, Let):
        return Let(new[1], new[0], new[2])
    if isinstance(n, If):
        return If(*new)
    if isinstance(n, Tuple):
        return Tuple(new)
    if isinstance(n, TupleGetItem):
        return TupleGetItem(new[0], n.index)
    raise TVMError(f"cannot rebuild {type(n).__name__}")


def substitute(expr: Expr, mapping: Dict[int, Expr], into_values: bool = False) -> Expr:
    """``expr`` with every node whose id is in ``mapping`` replaced by its value there (an
    explicit stack: any depth); with ``into_values`` the values are substituted in too
    (classic ``ExprSubst``)."""
    memo: Dict[int, Expr] = {}

    def sub(c):
        if id(c) in mapping and not into_values:
            return mapping[id(c)]
        return memo.get(id(c), c)

    def target(e):
        return mapping.get(id(e), e) if into_values else e

    def kids(e):
        if id(e) in mapping and not into_values:
            return []
        return visit_children(target(e))
    for n in post_order(expr, kids):
        if into_values or id(n) not in mapping:
            memo[id(n)] = replace_children(target(n), sub)
    return sub(expr)


def bind(expr: Expr, binds: Dict[Var, Expr]) -> Expr:
    """``expr`` with the variables of ``binds`` replaced by their expressions; a function
    loses the parameters that are bound (classic ``relay.bind``)."""
    for v, e in binds.items():
        if not isinstance(v, Var) or not isinstance(e, Expr):
            raise TVMError(f"relay.bind: binds map relay Vars to expressions, got "
                           f"{type(v).__name__} -> {type(e).__name__}")
    mapping = {id(v): e for v, e in binds.items()}
    if isinstance(expr, Function):
        params = [p for p in expr.params if id(p) not in mapping]
        return Function(params, substitute(expr.body, mapping), expr.ret_type,
                        expr.type_params, expr.attrs)
    return substitute(expr, mapping)


def rebuild_call(n: Call, args: Sequence[Expr], **changes) -> Call:
    """``n``'s op on ``args`` with its attributes updated by ``changes`` (an untyped copy)."""
    attrs = n.attrs if not changes else Attrs({**dict(n.attrs.items()), **changes})
    return Call(n.op, list(args), attrs, n.type_args)


def wrap_in_function(e):
    """``e`` itself if it is a Function (or not a relay expression), else a Function of ``e``
    over its free variables (what classic ``IRModule.from_expr`` makes ``main`` of)."""
    if not isinstance(e, Expr) or isinstance(e, Function):
        return e
    from .analysis import free_vars
    return Function(free_vars(e), e)


# ------------------------------------------------------------------------------- constructors
def var(name_hint: str, type_annotation: Optional[Type] = None, shape=None,
        dtype: str = "float32") -> Var:
    """A relay variable: ``relay.var("x", shape=(1, 3), dtype="float32")`` or with a
    ``TensorType`` annotation."""
    if type_annotation is not None and shape is not None:
        raise TVMError("relay.var: give either type_annotation or shape, not both")
    if isinstance(type_annotation, str):  # relay.var("x", "float32"): a scalar
        type_annotation = TensorType((), type_annotation)
    if isinstance(type_annotation, IncompleteType):  # left to inference: unannotated
        type_annotation = None
    if shape is not None:
        type_annotation = TensorType(shape, dtype)
    return Var(name_hint, type_annotation)


def const(value, dtype: Optional[str] = None) -> Constant:
    """A constant from a Python scalar, list, numpy array or NDArray. Without ``dtype``,
    64-bit floats and ints (Python's, and numpy's) become float32 and int32, as in classic
    relay; pass ``dtype`` to keep them."""
    if isinstance(value, ndarray.NDArray):
        if dtype is not None and value.dtype != dtype:
            raise TVMError(f"relay.const: NDArray of dtype {value.dtype} given with "
                           f"dtype={dtype!r}")
        return Constant(value)
    if isinstance(dtype, TensorType):  # classic accepts a scalar type for its dtype
        dtype = dtype.dtype
    arr = np.asarray(value)
    if dtype is None:
        dtype = {np.dtype("float64"): "float32", np.dtype("int64"): "int32"}.get(arr.dtype)
    if dtype is not None:
        arr = arr.astype(dtype)
    return Constant(ndarray.array(arr))


class RefCreate(Expr):
    """A new mutable reference holding ``value`` (classic ``relay.RefCreate``)."""

    __slots__ = ("value",)
    _structural_fields = ("value",)

    def __init__(self, value: Expr):
        super().__init__()
        self.value = value

    def _children(self) -> List[Expr]:
        return [self.value]


class RefRead(Expr):
    """The value a reference holds (classic ``relay.RefRead``)."""

    __slots__ = ("ref",)
    _structural_fields = ("ref",)

    def __init__(self, ref: Expr):
        super().__init__()
        self.ref = ref

    def _children(self) -> List[Expr]:
        return [self.ref]


class RefWrite(Expr):
    """Store ``value`` in reference ``ref``; evaluates to the empty tuple (classic
    ``relay.RefWrite``)."""

    __slots__ = ("ref", "value")
    _structural_fields = ("ref", "value")

    def __init__(self, ref: Expr, value: Expr):
        super().__init__()
        self.ref, self.value = ref, value

    def _children(self) -> List[Expr]:
        return [self.ref, self.value]


__all__ = ["RefCreate", "RefRead", "RefWrite", "NodeTuple", "Attrs", "Expr", "Var", "Constant",
           "Call", "Tuple", "TupleGetItem", "Let", "If", "Function", "TupleWrapper", "var",
           "const", "children", "post_order", "with_children", "rebuild_call",
           "wrap_in_function", "dataflow_children", "visit_children", "replace_children",
           "substitute", "bind"]
