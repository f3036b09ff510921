"""Buffers: a typed, shaped view of memory named by a handle variable."""
from __future__ import annotations

from typing import Tuple

from ..error import TVMError
from ..ir import dtype as _dt
from . import op as _op
from .expr import BufferLoad, Call, IntImm, Node, PrimExpr, Var, node


@node
class Buffer(Node):
    """A multi-dimensional view of ``data``; ``strides`` empty means compact row-major."""

    _structural_def = "buffer"  # structural_equal maps it by binding (ir/structural.py)
    data: Var
    dtype: str
    shape: Tuple[PrimExpr, ...]
    strides: Tuple[PrimExpr, ...] = ()
    elem_offset: PrimExpr = IntImm("int32", 0)
    name: str = "buffer"
    data_alignment: int = 64
    offset_factor: int = 1
    scope_name: str = "global"
    axis_separators: Tuple[int, ...] = ()
    # "auto_broadcast": a dimension of extent 1 at call time gets stride 0, so the buffer reads
    # as if repeated along it (numpy broadcasting of a function parameter)
    buffer_type: str = ""

    def scope(self) -> str:
        return self.scope_name

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        return BufferLoad(self, tuple(_op.convert(i) for i in indices))

    def vload(self, begin, dtype=None):
        begin = begin if isinstance(begin, (list, tuple)) else (begin,)
        return BufferLoad(self, tuple(_op.convert(i) for i in begin))

    def vstore(self, begin, value):
        from .stmt import BufferStore

        begin = begin if isinstance(begin, (list, tuple)) else (begin,)
        return BufferStore(self, _op.convert(value), tuple(_op.convert(i) for i in begin))

    def access_ptr(self, access_mask="rw", ptr_type="handle", content_lanes=1, offset=0,
                   extent=None):
        """A pointer to the buffer's first element (plus ``offset`` elements)."""
        off = _op.add(self.elem_offset, offset)
        return Call("handle", "address_of_elem", (self, off))

    def get_flattened_strides(self) -> Tuple[PrimExpr, ...]:
        """Strides in elements (compact row-major when none are given)."""
        if self.strides:
            return self.strides
        strides, acc = [], IntImm("int32", 1)
        for s in reversed(self.shape):
            strides.append(acc)
            acc = _op.mul(acc, s)
        return tuple(reversed(strides))


def decl_buffer(shape, dtype="float32", name="buffer", data=None, strides=None,
                elem_offset=None, scope="", data_alignment=-1, offset_factor=0,
                buffer_type="", axis_separators=None, span=None) -> Buffer:
    """Declare a buffer (``tvm.tir.decl_buffer``)."""
    if isinstance(shape, (PrimExpr, int)):
        shape = (shape,)
    shape = tuple(_op.convert(s) for s in shape)
    dtype = _dt.canonical(dtype)
    if data is None:
        data = Var(name, "handle")
    if buffer_type not in ("", "default", "auto_broadcast"):
        raise TVMError(f"decl_buffer {name}: unknown buffer_type {buffer_type!r} (use "
                       f"'default' or 'auto_broadcast')")
    if buffer_type == "auto_broadcast" and shape and not strides:
        # strides bound at call time, 0 along dimensions of extent 1
        strides = [Var(f"{name}_stride_{k}", "int32") for k in range(len(shape))]
    strides = tuple(_op.convert(s) for s in strides) if strides else ()
    if elem_offset is None and offset_factor > 0:
        # as in TVM: a buffer that may start anywhere (a tensorize operand) gets a variable
        elem_offset = Var(name + "_elem_offset", "int32")
    elem_offset = _op.convert(elem_offset) if elem_offset is not None else IntImm("int32", 0)
    return Buffer(data, dtype, shape, strides, elem_offset, name,
                  data_alignment if data_alignment > 0 else 64,
                  offset_factor if offset_factor > 0 else 1, scope or "global",
                  tuple(axis_separators or ()),
                  "auto_broadcast" if buffer_type == "auto_broadcast" else "")
