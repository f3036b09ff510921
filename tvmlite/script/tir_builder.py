"""The builders of the ``T`` namespace of TVMScript: everything ``T`` holds but ``T.prim_func``
(:mod:`tvmlite.script.tir` adds the parser's entry point, as classic TVM's
``tvm.script.parser.tir`` re-exports ``tvm.script.ir_builder.tir``).

Expression helpers (``T.float32(0)``, ``T.max``, ``T.Cast`` …) build IR directly through
:mod:`tvmlite.tir.op`. Structural constructs (``T.grid``, ``T.block``, ``T.axis.spatial``,
``T.reads`` …) return small *spec* objects that the parser (:mod:`tvmlite.script.parser`)
turns into statements; they mean nothing outside a ``@T.prim_func`` body.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional

from ..ir import dtype as _dt
from ..tir import op as _op
from ..tir.expr import Broadcast as _BroadcastNode
from ..tir.expr import IterVar, PrimExpr, SizeVar, Var
from ..tir.expr import Let as _LetNode
from ..tir.expr import Ramp as _RampNode
from ..tir.expr import Range as _Range
from ..tir.expr import Select as _SelectNode
from ..tir.stmt import ALLOCATE_CONST_DATA, Evaluate, ForKind

# --------------------------------------------------------------------------- dtypes


class DTypeFunc:
    """``T.float32`` and friends: a dtype annotation, and called, a constant or a Var.

    ``T.float32(1.5)`` is a constant, ``T.int32()`` declares a variable (``is_size_var=True``
    for a :class:`SizeVar`), ``T.int32(expr)`` casts.
    """

    __slots__ = ("dtype",)

    def __init__(self, dtype: str):
        self.dtype = dtype

    def __call__(self, value=None, is_size_var: bool = False):
        if value is None:
            return VarSpec(self.dtype, is_size_var)
        if isinstance(value, str):
            if not _dt.is_float(self.dtype):
                raise TypeError(f"T.{self.dtype} takes a number, got {value!r}")
            return _op.const(float(value), self.dtype)
        if isinstance(value, (PrimExpr, IterVar)):
            return _op.cast(self.dtype, value)
        return _op.const(value, self.dtype)

    def __repr__(self) -> str:
        return f"T.{self.dtype}"


_SCALARS = [f"{k}{b}" for k in ("int", "uint") for b in (8, 16, 32, 64)] + [
    "float16", "float32", "float64", "bfloat16", "bool"]
for _name in _SCALARS:
    globals()[_name] = DTypeFunc(_name)
handle = DTypeFunc("handle")


def __getattr__(name: str):
    """Vector dtypes such as ``T.float32x8``; classic device intrinsics (``T.tvm_*``,
    ``T.ptx_*``) as opaque calls."""
    if name.startswith(("tvm_", "ptx_")):
        return lambda *args, dtype="handle": _op.call_intrin(dtype, name, *args)
    try:
        _dt.parse(name)
    except ValueError:
        raise AttributeError(f"module 'T' has no attribute {name!r}") from None
    return DTypeFunc(name)


# --------------------------------------------------------------------------- specs
@dataclass
class VarSpec:
    """``T.int32()``: declares a variable named by the assignment target."""

    dtype: str
    is_size_var: bool = False

    def make(self, name: str) -> Var:
        return (SizeVar if self.is_size_var else Var)(name, self.dtype)


@dataclass
class BufferSpec:
    """``T.Buffer(shape, dtype, ...)``: a parameter annotation or a buffer declaration."""

    shape: tuple
    dtype: str = "float32"
    data: Optional[Var] = None
    strides: tuple = ()
    elem_offset: Any = None
    scope: str = "global"
    align: int = -1
    offset_factor: int = 0
    axis_separators: tuple = ()


class _BufferMeta(type):
    def __getitem__(cls, item):
        """The older ``T.Buffer[(128, 128), "float32"]`` spelling."""
        if not isinstance(item, tuple):
            item = (item,)
        if item and isinstance(item[0], (tuple, list)):
            return Buffer(*item)
        return Buffer(item)


class Buffer(metaclass=_BufferMeta):
    """``T.Buffer((128, 128), "float32", data=None, strides=None, ...)``."""

    def __new__(cls, shape, dtype: str = "float32", data=None, strides=None, elem_offset=None,
                scope: str = "global", align: int = -1, offset_factor: int = 0,
                buffer_type: str = "", axis_separators=None):
        if not isinstance(shape, (tuple, list)):
            shape = (shape,)
        return BufferSpec(tuple(shape), _dt.canonical(dtype), data, tuple(strides or ()),
                          elem_offset, scope or "global", align, offset_factor,
                          tuple(axis_separators or ()))


@dataclass
class MatchBufferSpec:
    """``T.match_buffer(param, shape, dtype)``."""

    param: Any
    spec: BufferSpec


def match_buffer(param, shape, dtype: Optional[str] = None, data=None, strides=None,
                 elem_offset=None, scope: str = "global", align: int = -1,
                 offset_factor: int = 0, buffer_type: str = "default", axis_separators=None):
    """Bind a ``T.handle`` parameter to a buffer; inside a block, view a region of a buffer
    (``T.match_buffer(A[i, 0:16], (16,))``) as one, the dtype then defaulting to the
    buffer's."""
    if dtype is None:
        src = getattr(param, "buffer", None)
        dtype = src.dtype if src is not None else "float32"
    return MatchBufferSpec(param, Buffer(shape, dtype, data, strides, elem_offset, scope, align,
                                         offset_factor, buffer_type, axis_separators))


@dataclass
class AllocBufferSpec:
    """``T.alloc_buffer(shape, dtype)``: a buffer allocated by the enclosing block."""

    spec: BufferSpec


def alloc_buffer(shape, dtype: str = "float32", data=None, strides=None, elem_offset=None,
                 scope: str = "global", align: int = -1, offset_factor: int = 0,
                 buffer_type: str = "default", axis_separators=None):
    """Allocate a buffer in the enclosing block (the root block at function level)."""
    return AllocBufferSpec(Buffer(shape, dtype, data, strides, elem_offset, scope, align,
                                  offset_factor, buffer_type, axis_separators))


@dataclass
class LoopSpec:
    """``range``/``T.serial``/``T.parallel``/... and ``T.grid``: loops of a ``for``."""

    kind: ForKind
    mins: list
    extents: list
    thread: str = ""
    annotations: Optional[Dict[str, Any]] = None


def _loop(kind: ForKind, start, stop=None, thread: str = "", annotations=None) -> LoopSpec:
    if stop is None:
        start, stop = 0, start
    stop = _op.convert(stop)
    if isinstance(start, int) and start == 0:
        lo = _op.const(0, stop.dtype)
    else:
        lo = _op.convert(start)
    return LoopSpec(kind, [lo], [_op.sub(stop, lo)], thread, annotations)


def serial(start, stop=None, *, annotations=None) -> LoopSpec:
    """A serial loop over ``[start, stop)`` (or ``[0, start)``)."""
    return _loop(ForKind.SERIAL, start, stop, annotations=annotations)


def parallel(start, stop=None, *, annotations=None) -> LoopSpec:
    """A parallel loop."""
    return _loop(ForKind.PARALLEL, start, stop, annotations=annotations)


def vectorized(start, stop=None, *, annotations=None) -> LoopSpec:
    """A vectorized loop."""
    return _loop(ForKind.VECTORIZED, start, stop, annotations=annotations)


def unroll(start, stop=None, *, annotations=None) -> LoopSpec:
    """An unrolled loop."""
    return _loop(ForKind.UNROLLED, start, stop, annotations=annotations)


def thread_binding(start, stop=None, thread: str = "", *, annotations=None) -> LoopSpec:
    """A loop bound to a GPU thread axis (``thread="threadIdx.x"``)."""
    if isinstance(stop, str):  # T.thread_binding(n, "threadIdx.x")
        start, stop, thread = start, None, stop
    if not thread:
        raise TypeError("T.thread_binding needs thread=")
    return _loop(ForKind.THREAD_BINDING, start, stop, thread, annotations)


def grid(*extents) -> LoopSpec:
    """Perfectly nested serial loops ``for i, j in T.grid(n, m)``."""
    exts = [_op.convert(e) for e in extents]
    return LoopSpec(ForKind.SERIAL, [_op.const(0, e.dtype) for e in exts], exts)


@dataclass
class BlockSpec:
    """``with T.block("name"):``."""

    name: str


def block(name: str = "", no_realize: bool = False) -> BlockSpec:
    """Open a TensorIR block."""
    return BlockSpec(name)


@dataclass
class InitSpec:
    """``with T.init():``."""


def init() -> InitSpec:
    """The reduction initialisation of the enclosing block."""
    return InitSpec()


@dataclass
class AxisSpec:
    """``T.axis.spatial(dom, binding)`` and friends."""

    iter_type: int
    dom: _Range
    binding: PrimExpr


@dataclass
class RemapSpec:
    """``T.axis.remap("SSR", [i, j, k])``."""

    kinds: str
    bindings: list


def _dom(dom, binding) -> _Range:
    if isinstance(dom, _Range):
        return dom
    if isinstance(dom, (tuple, list)):
        if len(dom) != 2:
            raise TypeError(f"an axis domain is an extent or (begin, end), got {dom!r}")
        lo, hi = _op.convert(dom[0]), _op.convert(dom[1])
        return _Range(lo, _op.sub(hi, lo))
    ext = _op.convert(dom)
    return _Range(_op.const(0, ext.dtype), ext)


class _Axis:
    """``T.axis``: block iterator declarations."""

    @staticmethod
    def spatial(dom, binding) -> AxisSpec:
        return AxisSpec(IterVar.DataPar, _dom(dom, binding), _op.convert(binding))

    @staticmethod
    def reduce(dom, binding) -> AxisSpec:
        return AxisSpec(IterVar.CommReduce, _dom(dom, binding), _op.convert(binding))

    @staticmethod
    def scan(dom, binding) -> AxisSpec:
        return AxisSpec(IterVar.Ordered, _dom(dom, binding), _op.convert(binding))

    @staticmethod
    def opaque(dom, binding) -> AxisSpec:
        return AxisSpec(IterVar.Opaque, _dom(dom, binding), _op.convert(binding))

    @staticmethod
    def remap(kinds: str, bindings) -> RemapSpec:
        if len(kinds) != len(bindings) or set(kinds) - set("SR"):
            raise TypeError(f"T.axis.remap({kinds!r}, ...) needs one S/R letter per binding")
        return RemapSpec(kinds, list(bindings))

    S = spatial
    R = reduce


axis = _Axis()


@dataclass
class Directive:
    """A statement that annotates the enclosing function or block (``T.reads`` …)."""

    kind: str
    value: Any


def func_attr(attrs: Dict[str, Any]) -> Directive:
    """Attributes of the enclosing PrimFunc."""
    if not isinstance(attrs, dict):
        raise TypeError("T.func_attr takes a dict")
    return Directive("func_attr", attrs)


def reads(*regions) -> Directive:
    """Regions read by the enclosing block."""
    if len(regions) == 1 and isinstance(regions[0], (list, tuple)):
        regions = tuple(regions[0])
    return Directive("reads", tuple(regions))


def writes(*regions) -> Directive:
    """Regions written by the enclosing block."""
    if len(regions) == 1 and isinstance(regions[0], (list, tuple)):
        regions = tuple(regions[0])
    return Directive("writes", tuple(regions))


def where(predicate) -> Directive:
    """The predicate of the enclosing block realize."""
    return Directive("where", _op.convert(predicate))


def block_attr(attrs: Dict[str, Any]) -> Directive:
    """Annotations of the enclosing block."""
    if not isinstance(attrs, dict):
        raise TypeError("T.block_attr takes a dict")
    return Directive("block_attr", attrs)


@dataclass
class AllocateSpec:
    """``A = T.allocate([n], "float32", "global")``."""

    extents: tuple
    dtype: str
    scope: str
    condition: PrimExpr
    annotations: Optional[Dict[str, Any]]


def allocate(extents, dtype: str, scope: str = "global", condition=True,
             annotations=None) -> AllocateSpec:
    """Allocate memory for the rest of the enclosing scope; binds a handle variable."""
    if not isinstance(extents, (list, tuple)):
        extents = [extents]
    return AllocateSpec(tuple(_op.convert(e) for e in extents), _dt.canonical(dtype),
                        scope, _op.convert(condition), annotations)


def allocate_const(data, dtype: str, extents, annotations=None) -> AllocateSpec:
    """A constant buffer for the rest of the enclosing scope, holding ``data`` (row-major);
    binds a handle variable."""
    if not isinstance(extents, (list, tuple)):
        extents = [extents]
    values = tuple(data.flatten().tolist() if hasattr(data, "flatten") else data)
    count = 1
    for e in extents:
        count *= int(e)
    if len(values) != count:
        raise ValueError(f"T.allocate_const: {len(values)} values for extents {list(extents)}")
    anns = dict(annotations or {})
    anns[ALLOCATE_CONST_DATA] = values
    return AllocateSpec(tuple(_op.convert(e) for e in extents), _dt.canonical(dtype),
                        "global", _op.convert(True), anns)


@dataclass
class AttrSpec:
    """``T.attr(node, key, value)``."""

    node: Any
    key: str
    value: Any


def attr(node, attr_key: str, value) -> AttrSpec:
    """An AttrStmt over the following statements (or the ``with`` body)."""
    if isinstance(node, str):
        node = _op.convert(node)
    return AttrSpec(node, attr_key, _op.convert(value))


@dataclass
class LetSpec:
    """``with T.LetStmt(value) as x:``."""

    value: PrimExpr
    dtype: Optional[str] = None


def LetStmt(value, type_annotation=None) -> LetSpec:  # noqa: N802  (TVMScript's name)
    """A let binding over the ``with`` body."""
    value = _op.convert(value)
    dtype = type_annotation.dtype if isinstance(type_annotation, DTypeFunc) else None
    return LetSpec(value, dtype)


@dataclass
class AssertSpec:
    """``with T.Assert(cond, "message"):``."""

    condition: PrimExpr
    message: PrimExpr


def Assert(condition, message) -> AssertSpec:  # noqa: N802
    """An assertion guarding the ``with`` body."""
    return AssertSpec(_op.convert(condition), _op.convert(message))


def evaluate(value) -> Evaluate:
    """Evaluate an expression for its side effect."""
    return Evaluate(_op.convert(value))


# --------------------------------------------------------------------------- expressions
def Cast(dtype: str, value) -> PrimExpr:  # noqa: N802
    """``T.Cast("int32", x)``."""
    return _op.cast(dtype, value)


def Select(condition, true_value, false_value) -> PrimExpr:  # noqa: N802
    """Eager conditional (both branches evaluated)."""
    return _SelectNode(_op.convert(condition), _op.convert(true_value),
                       _op.convert(false_value))


def Ramp(base, stride, lanes: int) -> PrimExpr:  # noqa: N802
    """The vector ``base + stride * [0, 1, ..., lanes - 1]``."""
    return _RampNode(_op.convert(base), _op.convert(stride), int(lanes))


def Broadcast(value, lanes: int) -> PrimExpr:  # noqa: N802
    """``value`` repeated ``lanes`` times."""
    return _BroadcastNode(_op.convert(value), int(lanes))


def Let(body, where: Dict[Var, Any]) -> PrimExpr:  # noqa: N802
    """``T.Let(body, where={x: value})``."""
    if not isinstance(where, dict) or len(where) != 1:
        raise TypeError("T.Let(body, where={var: value}) binds exactly one variable")
    (var, value), = where.items()
    if not isinstance(var, Var):
        raise TypeError("T.Let binds a variable declared with T.int32() etc.")
    return _LetNode(var, _op.convert(value), _op.convert(body))



def Range(begin, end=None) -> _Range:  # noqa: N802
    """``T.Range(begin, end)``: the half-open interval ``[begin, end)``."""
    return _Range.make(begin, end)


def iter_var(var, dom, iter_type: str, thread_tag: str = "") -> IterVar:
    """``T.iter_var(v, T.Range(0, n), "ThreadIndex", "threadIdx.x")``."""
    if isinstance(dom, (tuple, list)):
        dom = _Range.make(*dom)
    code = _ITER_TYPES.get(iter_type) if isinstance(iter_type, str) else int(iter_type)
    if code is None:
        raise ValueError(f"unknown iter_var type {iter_type!r}")
    if not isinstance(var, Var):
        raise TypeError("T.iter_var needs a variable")
    return IterVar(dom, var, code, thread_tag)


ITER_TYPE_NAMES = ["DataPar", "ThreadIndex", "CommReduce", "Ordered", "Opaque", "Unrolled",
                   "Vectorized", "Parallelized", "Tensorized"]
_ITER_TYPES = {n: i for i, n in enumerate(ITER_TYPE_NAMES)}


def min(a, b) -> PrimExpr:  # noqa: A001
    """Elementwise minimum."""
    return _op.min(a, b)


def max(a, b) -> PrimExpr:  # noqa: A001
    """Elementwise maximum."""
    return _op.max(a, b)


def cast(value, dtype: str) -> PrimExpr:
    """``T.cast(x, "int32")`` (value first, as ``tvm.tir.generic.cast``)."""
    return _op.cast(dtype, value)


abs = _op.abs  # noqa: A001
min_value = _op.min_value
max_value = _op.max_value
truncdiv = _op.truncdiv
truncmod = _op.truncmod
floordiv = _op.floordiv
floormod = _op.floormod
if_then_else = _op.if_then_else
shift_left = _op.shift_left
shift_right = _op.shift_right
bitwise_and = _op.bitwise_and
bitwise_or = _op.bitwise_or
bitwise_xor = _op.bitwise_xor
bitwise_not = _op.bitwise_not
call_packed = _op.call_packed


def _dtype_first(fn):
    """Classic TVMScript also writes ``T.call_extern("f", x, dtype="int32")``: the dtype
    keyword goes first (an empty dtype is void)."""
    def wrapped(*args, **kwargs):
        if "dtype" in kwargs:
            args = (kwargs.pop("dtype") or "void",) + args
        return fn(*args, **kwargs)

    wrapped.__name__, wrapped.__doc__ = fn.__name__, fn.__doc__
    return wrapped


call_extern = _dtype_first(_op.call_extern)
call_pure_extern = _dtype_first(_op.call_pure_extern)
call_intrin = _dtype_first(_op.call_intrin)
fabs = _op.fabs
pow = _op.pow  # noqa: A001
fmod = _op.fmod
isnan = _op.isnan
popcount = _op.popcount
reinterpret = _op.reinterpret
all = _op.all  # noqa: A001
any = _op.any  # noqa: A001

#: Unary math intrinsics printed as ``T.<name>(x)``.
MATH_OPS = ("exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh",
            "sigmoid", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "erf",
            "floor", "ceil", "trunc", "round", "nearbyint")


def _accepting_dtype(fn):
    """Classic TVMScript passes the result dtype (``T.exp(x, dtype="float32")``,
    ``T.if_then_else(c, a, b, dtype="float32")``); a differing one casts the result."""
    def wrapped(*args, dtype=None, **kwargs):
        out = fn(*args, **kwargs)
        if dtype is not None and _dt.canonical(dtype) != out.dtype:
            out = _op.cast(dtype, out)
        return out

    wrapped.__name__, wrapped.__doc__ = fn.__name__, fn.__doc__
    return wrapped


for _name in MATH_OPS:
    globals()[_name] = _accepting_dtype(getattr(_op, _name))
if_then_else = _accepting_dtype(_op.if_then_else)
likely = _accepting_dtype(_op.likely)
assume = _op.assume


def q_multiply_shift(x, y, q, s, dtype: str = "int32") -> PrimExpr:
    """Fixed-point multiply with rounding right shift (``tir.q_multiply_shift``)."""
    return _op.call_intrin(dtype, "tir.q_multiply_shift", x, y, q, s)


def q_multiply_shift_per_axis(x, y, ls, rs, q, is_lshift_required, is_rshift_required,
                              dtype: str = "int32") -> PrimExpr:
    """Per-axis ``q_multiply_shift`` (``tir.q_multiply_shift_per_axis``)."""
    return _op.call_intrin(dtype, "tir.q_multiply_shift_per_axis", x, y, ls, rs, q,
                           _op.const(bool(is_lshift_required), "bool"),
                           _op.const(bool(is_rshift_required), "bool"))


def type_annotation(dtype: str) -> PrimExpr:
    """``T.type_annotation(dtype="float16")``: a value standing for a type (the first
    argument of ``T.tvm_access_ptr``)."""
    return _op.call_intrin(_dt.canonical(dtype), "type_annotation")


class _IntrinNamespace:
    """``T.tir.vta.coproc_sync()``: any other intrinsic, returning int32."""

    def __init__(self, prefix: str = ""):
        self._prefix = prefix

    def __getattr__(self, name: str) -> "_IntrinNamespace":
        if name.startswith("__"):
            raise AttributeError(name)
        return _IntrinNamespace(f"{self._prefix}.{name}" if self._prefix else name)

    def __call__(self, *args) -> PrimExpr:
        if not self._prefix:
            raise TypeError("T.tir needs an intrinsic name")
        return _op.call_intrin("int32", self._prefix, *args)


tir = _IntrinNamespace()
