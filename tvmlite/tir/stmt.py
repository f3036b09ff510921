"""Statement nodes of the IR, including TensorIR blocks."""
from __future__ import annotations

import enum
from typing import Any, Dict, Optional, Tuple

from . import op as _op
from .buffer import Buffer
from .expr import IntImm, IterVar, Node, PrimExpr, Range, Var, as_indices, node


class Stmt(Node):
    __slots__ = ()


class ForKind(enum.IntEnum):
    SERIAL = 0
    PARALLEL = 1
    VECTORIZED = 2
    UNROLLED = 3
    THREAD_BINDING = 4


@node
class LetStmt(Stmt):
    var: Var
    value: PrimExpr
    body: Stmt


@node
class AttrStmt(Stmt):
    node: Any
    attr_key: str
    value: PrimExpr
    body: Stmt


@node
class AssertStmt(Stmt):
    condition: PrimExpr
    message: PrimExpr
    body: Stmt


@node
class BufferStore(Stmt):
    buffer: Buffer
    value: PrimExpr
    indices: Tuple[PrimExpr, ...]

    def __post_init__(self):
        if not isinstance(self.value, PrimExpr):
            object.__setattr__(self, "value", _op.convert(self.value, self.buffer.dtype))
        object.__setattr__(self, "indices", as_indices(self.indices))


# Allocate annotation of ``T.allocate_const``: the buffer's constant contents (a flat tuple).
ALLOCATE_CONST_DATA = "tvmlite.allocate_const"


@node
class Allocate(Stmt):
    """Allocate ``extents`` elements of ``dtype`` in ``scope``, bound to ``buffer_var``
    (constant data when ``annotations`` holds :data:`ALLOCATE_CONST_DATA`)."""

    buffer_var: Var
    dtype: str
    extents: Tuple[PrimExpr, ...]
    condition: PrimExpr
    body: Stmt
    annotations: Dict[str, Any] = None  # type: ignore[assignment]
    scope: str = "global"


@node
class For(Stmt):
    loop_var: Var
    min: PrimExpr
    extent: PrimExpr
    kind: ForKind
    body: Stmt
    thread_binding: Optional[IterVar] = None
    annotations: Dict[str, Any] = None  # type: ignore[assignment]


_for_fields_init = For.__init__


def _for_init(self, loop_var: Var, min: Any = None, extent: Any = None,  # noqa: A002
              kind: Any = ForKind.SERIAL, body: Optional[Stmt] = None,
              thread_binding: Optional[IterVar] = None, annotations: Any = None, *,
              min_val: Any = None, span: Any = None) -> None:
    # classic spells the lower bound ``min_val`` and passes the kind as an int
    if min_val is not None:
        min = min_val  # noqa: A001
    if not isinstance(min, PrimExpr):
        min = _op.convert(min)  # noqa: A001
    if not isinstance(extent, PrimExpr):
        extent = _op.convert(extent)
    _for_fields_init(self, loop_var, min, extent, ForKind(kind), body, thread_binding,
                     annotations)


For.__init__ = _for_init


@node
class BufferRealize(Stmt):
    """Classic TE's realize of ``buffer`` over ``bounds`` (a construct of classic ScheduleOps
    output; tvmlite lowers blocks instead, so the C backend refuses it with a TVMError)."""

    buffer: Buffer
    bounds: Tuple[Range, ...]
    condition: PrimExpr
    body: Stmt

    def __post_init__(self):
        object.__setattr__(self, "bounds", tuple(self.bounds))
        if not isinstance(self.condition, PrimExpr):
            object.__setattr__(self, "condition", _op.convert(self.condition))


@node
class Prefetch(Stmt):
    """A hint that region ``bounds`` of ``buffer`` will be read soon (classic
    ``tir.Prefetch``); the C backend emits nothing for it."""

    buffer: Buffer
    bounds: Tuple[Range, ...]

    def __post_init__(self):
        object.__setattr__(self, "bounds", tuple(self.bounds))


@node
class While(Stmt):
    condition: PrimExpr
    body: Stmt


@node
class SeqStmt(Stmt):
    seq: Tuple[Stmt, ...]

    def __len__(self):
        return len(self.seq)

    def __getitem__(self, i):
        return self.seq[i]

    @staticmethod
    def flatten(*stmts) -> Stmt:
        """Concatenate statements, dropping no-ops and nested sequences."""
        out = []
        for s in stmts:
            if s is None or is_no_op(s):
                continue
            if isinstance(s, SeqStmt):
                out.extend(s.seq)
            elif isinstance(s, (list, tuple)):
                f = SeqStmt.flatten(*s)
                out.extend(f.seq if isinstance(f, SeqStmt) else ([] if is_no_op(f) else [f]))
            else:
                out.append(s)
        if not out:
            return Evaluate(IntImm("int32", 0))
        return out[0] if len(out) == 1 else SeqStmt(tuple(out))


@node
class IfThenElse(Stmt):
    condition: PrimExpr
    then_case: Stmt
    else_case: Optional[Stmt] = None


@node
class Evaluate(Stmt):
    value: PrimExpr


@node
class BufferRegion(Node):
    buffer: Buffer
    region: Tuple[Range, ...]

    @staticmethod
    def full_region(buffer: Buffer) -> "BufferRegion":
        return BufferRegion(buffer, tuple(Range(IntImm(s.dtype, 0), s) for s in buffer.shape))


@node
class MatchBufferRegion(Node):
    buffer: Buffer
    source: BufferRegion


@node
class Block(Stmt):
    """A TensorIR block: iterators, accessed regions, an optional reduction init, a body."""

    iter_vars: Tuple[IterVar, ...]
    reads: Tuple[BufferRegion, ...]
    writes: Tuple[BufferRegion, ...]
    name_hint: str
    body: Stmt
    init: Optional[Stmt] = None
    alloc_buffers: Tuple[Buffer, ...] = ()
    match_buffers: Tuple[MatchBufferRegion, ...] = ()
    annotations: Dict[str, Any] = None  # type: ignore[assignment]

    def __post_init__(self):
        # classic's constructor takes lists, and None for an empty one
        for f in ("iter_vars", "reads", "writes", "alloc_buffers", "match_buffers"):
            v = getattr(self, f)
            if type(v) is not tuple:
                object.__setattr__(self, f, tuple(v or ()))


@node
class BlockRealize(Stmt):
    """An instance of ``block`` with its iterators bound to ``iter_values``."""

    iter_values: Tuple[PrimExpr, ...]
    predicate: PrimExpr
    block: Block

    def __post_init__(self):
        if type(self.iter_values) is not tuple:
            object.__setattr__(self, "iter_values", tuple(self.iter_values))
        if not isinstance(self.predicate, PrimExpr):  # classic accepts a Python bool
            object.__setattr__(self, "predicate", _op.convert(self.predicate))


def is_no_op(s: Stmt) -> bool:
    return isinstance(s, Evaluate) and isinstance(s.value, IntImm)


def stmt_seq(*args) -> Stmt:
    """Classic ``tir.stmt_seq``: the statements in order (an expression is evaluated), nested
    sequences flattened; a single statement stays as it is."""
    out = []
    for x in args:
        if isinstance(x, PrimExpr):
            x = Evaluate(x)
        if not isinstance(x, Stmt):
            raise TypeError(f"stmt_seq: expected Stmt or PrimExpr, got {type(x).__name__}")
        out.extend(x.seq if isinstance(x, SeqStmt) else [x])
    return out[0] if len(out) == 1 else SeqStmt(tuple(out))


def stmt_list(stmt: Stmt) -> list:
    """Classic ``tir.stmt_list``: the statements of a (nested) sequence, flattened."""
    if isinstance(stmt, SeqStmt):
        return [y for x in stmt.seq for y in stmt_list(x)]
    return [stmt]
