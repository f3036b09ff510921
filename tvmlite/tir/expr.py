"""Expression nodes of the IR.

Nodes are immutable and hashed by identity. ``a == b`` on expressions builds an ``EQ`` node,
as in TVM; ``bool()`` of an ``EQ``/``NE`` node is object identity of its operands, so
``iv in C.op.axis`` works. Use :func:`tvmlite.ir.structural_equal` to compare structure.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any as _Any
from typing import Optional, Tuple

from ..error import TVMError
from ..ir import dtype as _dt
from ..ir.op import OpName as _OpName
from ..ir.printing import astext
from ..ir.type import PrimType as _PrimType
from ..ir.type import Type as _Type

_INF = float("inf")


def node(cls):
    """Make ``cls`` an immutable IR node: frozen, slotted, identity equality and hash."""
    return dataclass(frozen=True, slots=True, eq=False, repr=False)(cls)


class Node:
    """Base of every IR node; ``repr`` is its TVMScript text."""

    __slots__ = ()

    def __repr__(self) -> str:
        return astext(self)

    def script(self, **kwargs) -> str:
        return astext(self, **kwargs)

    def same_as(self, other) -> bool:
        return self is other

    __hash__ = object.__hash__


def _foreign(x) -> bool:
    """An operand that is not ours to combine (a TE tensor): let it handle the operator."""
    return hasattr(x, "value_index") and hasattr(x, "op")


def _binop(name):
    def method(self, other):
        if _foreign(other):
            return NotImplemented
        return getattr(_op, name)(self, other)

    return method


def _rbinop(name):
    def method(self, other):
        if _foreign(other):
            return NotImplemented
        return getattr(_op, name)(other, self)

    return method


class ExprOp:
    """Operator overloading shared by expressions and IterVars."""

    __slots__ = ()

    __add__ = _binop("add")

    __radd__ = _rbinop("add")

    __sub__ = _binop("sub")

    __rsub__ = _rbinop("sub")

    __mul__ = _binop("mul")

    __rmul__ = _rbinop("mul")

    __truediv__ = _binop("true_div")

    __rtruediv__ = _rbinop("true_div")

    __floordiv__ = _binop("floordiv")

    __rfloordiv__ = _rbinop("floordiv")

    __mod__ = _binop("floormod")

    __rmod__ = _rbinop("floormod")

    def __neg__(self):
        return _op.neg(self)

    def __lshift__(self, other):
        return _op.shift_left(self, other)

    def __rlshift__(self, other):
        return _op.shift_left(other, self)

    def __rshift__(self, other):
        return _op.shift_right(self, other)

    def __rrshift__(self, other):
        return _op.shift_right(other, self)

    def __and__(self, other):
        return _op.bitwise_and(self, other)

    def __rand__(self, other):
        return _op.bitwise_and(other, self)

    def __or__(self, other):
        return _op.bitwise_or(self, other)

    def __ror__(self, other):
        return _op.bitwise_or(other, self)

    def __xor__(self, other):
        return _op.bitwise_xor(self, other)

    def __rxor__(self, other):
        return _op.bitwise_xor(other, self)

    def __invert__(self):
        return _op.bitwise_not(self)

    def __lt__(self, other):
        return _op.lt(self, other)

    def __le__(self, other):
        return _op.le(self, other)

    def __gt__(self, other):
        return _op.gt(self, other)

    def __ge__(self, other):
        return _op.ge(self, other)

    def __eq__(self, other):
        return _op.eq(self, other)

    def __ne__(self, other):
        return _op.ne(self, other)

    __hash__ = object.__hash__

    def __bool__(self):
        raise ValueError(
            "Cannot use and / or / not operator to Expr, hint: use tvm.tir.all / tvm.tir.any "
            "instead"
        )

    def __index__(self):
        raise TypeError(f"expression {self!r} is not a constant integer")

    def astype(self, dtype: str):
        """Cast to ``dtype``."""
        return _op.cast(dtype, self)

    def equal(self, other):
        """``self == other`` as an expression (classic ``ExprOp.equal``)."""
        return _op.eq(self, other)


class PrimExpr(ExprOp, Node):
    """Base class of scalar/vector expressions."""

    __slots__ = ()
    __hash__ = object.__hash__
    __eq__ = ExprOp.__eq__


# --------------------------------------------------------------------------- leaves
@node
class Var(PrimExpr):
    """A variable, identified by object (not by name)."""

    _structural_def = "var"  # structural_equal maps it by binding (ir/structural.py)
    name: str = "v"
    dtype: str = "int32"

    @property
    def name_hint(self) -> str:
        return self.name

    @property
    def type_annotation(self):
        """The classic type of the variable (a ``PrimType``/``PointerType``, equal to its dtype
        string)."""
        return self.dtype if isinstance(self.dtype, _Type) else _PrimType(self.dtype)


@node
class SizeVar(Var):
    """A variable known to be non-negative (a shape size)."""


@node
class Any(PrimExpr):
    """A dimension unknown until run time (classic ``tvm.tir.Any``, ``relay.Any()``): relay
    type inference carries it, the relay VM compiles each call for the concrete shapes it
    meets. Printed ``?``; every ``Any`` is structurally equal to every other."""

    dtype: str = "int32"
    span: _Any = None

    def __repr__(self) -> str:
        return "?"

    __str__ = __repr__


class ConstRangeError(TVMError, ValueError):
    """A literal its dtype cannot hold (classic TVM's ``ValueError: Literal value ...``)."""


class DivideByZeroError(TVMError, ZeroDivisionError):
    """An integer division or modulo by a constant zero, refused as the node is built."""


class OperandTypeError(TVMError, TypeError):
    """An operator applied to operands of a dtype it does not accept (``float << 1``)."""


def check_literal(value, dtype: str) -> None:
    """Raise :class:`ConstRangeError` unless scalar ``dtype`` can hold ``value`` exactly.

    Used where users write constants (``tir.const``, TVMScript literals, Python numbers mixed
    with expressions); the IR's own arithmetic wraps or reasons in unbounded integers.
    inf and nan are representable by every float type; finite values beyond its range are not.
    """
    integral = _dt.is_integral(dtype) and not _dt.is_bool(dtype)
    if not (_dt.is_float(dtype) or integral):
        return
    try:
        v = float(value) if _dt.is_float(dtype) else value
        if integral and not isinstance(value, int):
            v = int(value)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"a constant of dtype {dtype} needs a finite number, got "
                        f"{value!r}") from None
    if _dt.is_float(dtype) and (v != v or v in (_INF, -_INF) or _dt.bits(dtype) == 64):
        return
    lo, hi = _dt.min_value(dtype), _dt.max_value(dtype)
    if not lo <= v <= hi:
        raise ConstRangeError(f"Literal value {value} is out of range for {dtype} [{lo}, {hi}]")


@node
class IntImm(PrimExpr):
    dtype: str
    value: int

    def __hash__(self):
        # classic TVM hashes integer constants by value, so ``{IntImm(1)}`` holds another 1
        # (``==`` folds to a true constant); the dtype keeps int32 1 and bool 1 apart
        return hash((self.dtype, self.value))

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __bool__(self):
        return self.value != 0

    def __float__(self):
        return float(self.value)


@node
class FloatImm(PrimExpr):
    dtype: str
    value: float

    def __float__(self):
        return self.value


@node
class StringImm(PrimExpr):
    value: str

    @property
    def dtype(self) -> str:
        return "handle"


@node
class Cast(PrimExpr):
    dtype: str
    value: PrimExpr


# --------------------------------------------------------------------------- binary
class BinaryOpExpr(PrimExpr):
    __slots__ = ("_dtype_memo",)

    @property
    def dtype(self) -> str:
        # the type of the left operand, found without recursion and remembered: a chain of
        # 10,000 additions must neither overflow the stack nor cost O(depth) per query
        try:
            return self._dtype_memo
        except AttributeError:
            pass
        chain = []
        x = self
        while isinstance(x, BinaryOpExpr):
            try:
                d = x._dtype_memo
                break
            except AttributeError:
                chain.append(x)
                x = x.a
        else:
            d = x.dtype
        for y in chain:
            object.__setattr__(y, "_dtype_memo", d)
        return d


@node
class Add(BinaryOpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class Sub(BinaryOpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class Mul(BinaryOpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class Div(BinaryOpExpr):
    """Truncated division (C semantics) for integers, true division for floats."""

    a: PrimExpr
    b: PrimExpr


@node
class Mod(BinaryOpExpr):
    """Truncated modulo (C semantics)."""

    a: PrimExpr
    b: PrimExpr


@node
class FloorDiv(BinaryOpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class FloorMod(BinaryOpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class Min(BinaryOpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class Max(BinaryOpExpr):
    a: PrimExpr
    b: PrimExpr


class CmpExpr(PrimExpr):
    __slots__ = ()

    @property
    def dtype(self) -> str:
        return _dt.with_lanes("bool", _dt.lanes(self.a.dtype))


@node
class EQ(CmpExpr):
    a: PrimExpr
    b: PrimExpr

    def __bool__(self):
        return self.a.same_as(self.b)


@node
class NE(CmpExpr):
    a: PrimExpr
    b: PrimExpr

    def __bool__(self):
        return not self.a.same_as(self.b)


@node
class LT(CmpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class LE(CmpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class GT(CmpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class GE(CmpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class And(BinaryOpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class Or(BinaryOpExpr):
    a: PrimExpr
    b: PrimExpr


@node
class Not(PrimExpr):
    a: PrimExpr

    @property
    def dtype(self) -> str:
        return self.a.dtype


# --------------------------------------------------------------------------- other
@node
class Select(PrimExpr):
    """Evaluates both branches; see ``if_then_else`` for the lazy form."""

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr

    @property
    def dtype(self) -> str:
        return self.true_value.dtype


@node
class Ramp(PrimExpr):
    base: PrimExpr
    stride: PrimExpr
    lanes: int

    @property
    def dtype(self) -> str:
        return _dt.with_lanes(self.base.dtype, self.lanes)


@node
class Broadcast(PrimExpr):
    value: PrimExpr
    lanes: int

    @property
    def dtype(self) -> str:
        return _dt.with_lanes(self.value.dtype, self.lanes)


@node
class Let(PrimExpr):
    var: Var
    value: PrimExpr
    body: PrimExpr

    @property
    def dtype(self) -> str:
        return self.body.dtype


@node
class Call(PrimExpr):
    """A call of a built-in op (``"exp"``, ``"if_then_else"``, ``"call_extern"`` …). ``op``
    compares as that string; as in classic TVM, ``op.name`` is the registry name
    (``"tir.exp"``)."""

    dtype: str
    op: str
    args: Tuple[_Any, ...]

    def __post_init__(self):
        if type(self.op) is str:
            object.__setattr__(self, "op", _OpName(self.op))


@node
class BufferLoad(PrimExpr):
    buffer: _Any  # tir.Buffer
    indices: Tuple[PrimExpr, ...]

    def __post_init__(self):
        object.__setattr__(self, "indices", as_indices(self.indices))

    @property
    def dtype(self) -> str:
        dt = self.buffer.dtype
        if self.indices:
            n = _dt.lanes(self.indices[-1].dtype)
            if n != 1:
                return _dt.with_lanes(dt, n)
        return dt


def as_indices(indices) -> Tuple[PrimExpr, ...]:
    """``indices`` as a tuple of expressions (classic code passes lists and Python ints)."""
    if type(indices) is tuple:
        for i in indices:
            if not isinstance(i, PrimExpr):
                break
        else:
            return indices
    return tuple(_op.convert(i) for i in indices)


@node
class ProducerLoad(PrimExpr):
    """An element of a TE tensor, ``A[i, j]``; becomes a BufferLoad in ``create_prim_func``."""

    producer: _Any  # te.Tensor
    indices: Tuple[PrimExpr, ...]

    @property
    def dtype(self) -> str:
        return self.producer.dtype


@node
class CommReducer(Node):
    """A commutative reducer ``lhs, rhs -> result`` with an identity element."""

    lhs: Tuple[Var, ...]
    rhs: Tuple[Var, ...]
    result: Tuple[PrimExpr, ...]
    identity_element: Tuple[PrimExpr, ...]

    def __call__(self, *args):
        return _op._reducer_call(self, *args)


@node
class Reduce(PrimExpr):
    combiner: CommReducer
    source: Tuple[PrimExpr, ...]
    axis: Tuple[_Any, ...]  # IterVars
    condition: PrimExpr
    value_index: int
    init: Tuple[PrimExpr, ...] = ()

    @property
    def dtype(self) -> str:
        return self.source[self.value_index].dtype


@node
class Range(Node):
    """The half-open interval ``[min, min + extent)``."""

    min: PrimExpr
    extent: PrimExpr

    @staticmethod
    def from_min_extent(min_value, extent) -> "Range":
        return Range(_op.convert(min_value), _op.convert(extent))

    @staticmethod
    def make(begin, end=None) -> "Range":
        """``Range(end)`` or ``Range(begin, end)`` in TVM's Python spelling."""
        if end is None:
            begin, end = 0, begin
        b, e = _op.convert(begin), _op.convert(end)
        return Range(b, _op.sub(e, b))


class IterVarType:
    DataPar = 0
    ThreadIndex = 1
    CommReduce = 2
    Ordered = 3
    Opaque = 4
    Unrolled = 5
    Vectorized = 6
    Parallelized = 7
    Tensorized = 8


@node
class IterVar(ExprOp, Node):
    """A loop/axis variable with its domain; in arithmetic it stands for its ``var``."""

    dom: Optional[Range]
    var: Var
    iter_type: int = IterVarType.DataPar
    thread_tag: str = ""

    DataPar = IterVarType.DataPar
    ThreadIndex = IterVarType.ThreadIndex
    CommReduce = IterVarType.CommReduce
    Ordered = IterVarType.Ordered
    Opaque = IterVarType.Opaque
    Unrolled = IterVarType.Unrolled
    Vectorized = IterVarType.Vectorized
    Parallelized = IterVarType.Parallelized
    Tensorized = IterVarType.Tensorized

    __hash__ = object.__hash__
    __eq__ = ExprOp.__eq__

    @property
    def dtype(self) -> str:
        return self.var.dtype


# The operators above build their nodes through tir.op, which is defined in terms of these
# nodes: tir.op installs itself here when it loads (``import tvmlite`` loads it).
_op: _Any = None


def _install_op(module) -> None:
    global _op
    _op = module
