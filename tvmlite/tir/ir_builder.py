"""``tvm.tir.ir_builder``: build statements imperatively (classic TVM's IRBuilder).

::

    ib = tvm.tir.ir_builder.create()
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(i % 2 == 0):
            ib.emit(tvm.tir.call_extern("int32", "f", i))
    stmt = ib.get()
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, List, Optional, Sequence, Union

from ..error import TVMError
from ..ir import dtype as _dt
from . import op as _op
from .buffer import Buffer, decl_buffer
from .expr import BufferLoad, IntImm, PrimExpr, Var
from .stmt import (
    Allocate,
    AttrStmt,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    SeqStmt,
    Stmt,
    While,
)
from .transform.flatten_buffer import flat_extent

_KINDS = {"serial": ForKind.SERIAL, "parallel": ForKind.PARALLEL,
          "vectorize": ForKind.VECTORIZED, "vectorized": ForKind.VECTORIZED,
          "unroll": ForKind.UNROLLED, "unrolled": ForKind.UNROLLED}


class BufferVar:
    """A 1-D view of memory for element reads and writes inside the builder
    (``a[i]``, ``a[i] = v``)."""

    def __init__(self, builder: "IRBuilder", buffer: Buffer, flat: Optional[Buffer] = None):
        self._builder = builder
        self._buffer = buffer
        self._flat = flat  # a 1-D view of the same memory, for classic single-index access

    @property
    def asobject(self) -> Buffer:
        return self._buffer

    @property
    def dtype(self) -> str:
        return self._buffer.dtype

    @property
    def data(self) -> Var:
        return self._buffer.data

    def _buf_idx(self, index):
        index = index if isinstance(index, tuple) else (index,)
        buf = self._buffer
        if len(index) == 1 and len(buf.shape) != 1 and self._flat is not None:
            buf = self._flat  # classic: one index into a multi-dimensional buffer is flat
        if len(index) != len(buf.shape):
            raise TVMError(f"buffer {buf.name} has {len(buf.shape)} "
                           f"dimensions, indexed with {len(index)}")
        return buf, tuple(_op.convert(i) for i in index)

    def __getitem__(self, index) -> PrimExpr:
        return BufferLoad(*self._buf_idx(index))

    def __setitem__(self, index, value) -> None:
        buf, idx = self._buf_idx(index)
        value = _op.convert(value, buf.dtype)
        if value.dtype != buf.dtype:
            value = _op.cast(buf.dtype, value)
        self._builder.emit(BufferStore(buf, value, idx))


class IRBuilder:
    """Accumulates statements; scopes (loops, ifs, attributes) nest with ``with``."""

    def __init__(self):
        self._seq: List[List[Union[Stmt, Callable[[Stmt], Stmt]]]] = [[]]

    # ---------------------------------------------------------------- plumbing
    def _pop(self) -> Stmt:
        items = self._seq.pop()
        if not items or callable(items[-1]):
            items.append(Evaluate(IntImm("int32", 0)))
        out: List[Stmt] = []
        for it in reversed(items):
            if callable(it):
                body = SeqStmt.flatten(*reversed(out))
                out = [it(body)]
            else:
                out.append(it)
        return SeqStmt.flatten(*reversed(out))

    def emit(self, stmt: Union[Stmt, PrimExpr, Callable[[Stmt], Stmt]]) -> None:
        """Append a statement (an expression is evaluated for its effect)."""
        if isinstance(stmt, PrimExpr):
            stmt = Evaluate(stmt)
        if not (isinstance(stmt, Stmt) or callable(stmt)):
            raise TypeError(f"emit expects a Stmt or PrimExpr, got {type(stmt).__name__}")
        self._seq[-1].append(stmt)

    def get(self) -> Stmt:
        """The statement built so far."""
        if len(self._seq) != 1:
            raise TVMError("IRBuilder.get called inside an open scope")
        body = self._pop()
        self._seq.append([])
        return body

    # ---------------------------------------------------------------- scopes
    def scope_attr(self, node: Any, attr_key: str, value: Any) -> None:
        """Wrap the rest of the current scope in ``AttrStmt(node, attr_key, value)``."""
        val = value if isinstance(value, str) else _op.convert(value)
        self.emit(lambda body: AttrStmt(node, attr_key, val, body))

    @contextmanager
    def for_range(self, begin, end, name: str = "i", dtype: str = "int32",
                  kind: str = "serial"):
        """``with ib.for_range(0, n, name="i") as i:`` — a loop over ``[begin, end)``."""
        if kind not in _KINDS:
            raise ValueError(f"for_range: unknown kind {kind!r} (one of {sorted(_KINDS)})")
        begin, end = _op.convert(begin), _op.convert(end)
        var = Var(name, dtype)
        self._seq.append([])
        yield var
        body = self._pop()
        extent = _op.sub(end, begin) if not (isinstance(begin, IntImm) and begin.value == 0) \
            else end
        self.emit(For(var, begin, extent, _KINDS[kind], body))

    @contextmanager
    def while_loop(self, condition):
        self._seq.append([])
        yield
        self.emit(While(_op.convert(condition), self._pop()))

    @contextmanager
    def new_scope(self):
        self._seq.append([])
        yield
        self.emit(self._pop())

    @contextmanager
    def if_scope(self, cond):
        """``with ib.if_scope(cond):`` — may be followed by ``else_scope``."""
        self._seq.append([])
        yield
        stmt = IfThenElse(_op.convert(cond), self._pop())
        self.emit(stmt)

    @contextmanager
    def else_scope(self):
        """The else branch of the ``if_scope`` just closed."""
        cur = self._seq[-1]
        if not cur or not isinstance(cur[-1], IfThenElse) or cur[-1].else_case is not None:
            raise TVMError("else_scope must follow an if_scope")
        self._seq.append([])
        yield
        last = cur.pop()
        cur.append(IfThenElse(last.condition, last.then_case, self._pop()))

    # ---------------------------------------------------------------- values
    def let(self, var_name: str, value) -> Var:
        """Bind ``value`` to a new variable for the rest of the scope."""
        value = _op.convert(value)
        var = Var(var_name, value.dtype)
        self.emit(lambda body: LetStmt(var, value, body))
        return var

    def allocate(self, dtype: str, shape, name: str = "buf", axis_separators=None,
                 scope: str = "") -> BufferVar:
        """Allocate a buffer for the rest of the scope; returns a :class:`BufferVar`."""
        shape = shape if isinstance(shape, (list, tuple)) else [shape]
        buf = decl_buffer(shape, _dt.canonical(dtype), name, scope=scope or "global")
        self.emit(lambda body: Allocate(buf.data, buf.dtype, buf.shape, IntImm("bool", 1),
                                        body, None, scope or "global"))
        return BufferVar(self, buf)

    def pointer(self, content_type: str, name: str = "ptr", scope: str = "") -> BufferVar:
        """A pointer to ``content_type`` elements, indexed like a 1-D buffer (``A[i]``)."""
        return BufferVar(self, decl_buffer((1,), _dt.canonical(content_type), name,
                                           scope=scope or "global"))

    def buffer_ptr(self, buf: Buffer, shape: Optional[Sequence] = None) -> BufferVar:
        """Element access to an existing buffer (``ib.buffer_ptr(A)[i] = ...``)."""
        if shape is None and len(buf.shape) != 1 and not buf.strides:
            # indexed as declared, or flat with one index (classic accepts both)
            return BufferVar(self, buf, decl_buffer([flat_extent(buf)], buf.dtype, buf.name,
                                                    data=buf.data))
        if shape is None:
            shape = [flat_extent(buf)] if len(buf.shape) != 1 or buf.strides else buf.shape
        return BufferVar(self, decl_buffer(shape, buf.dtype, buf.name, data=buf.data))

    def likely(self, expr) -> PrimExpr:
        return _op.likely(expr)


def create() -> IRBuilder:
    """A new :class:`IRBuilder`."""
    return IRBuilder()
