"""Buffers: a typed, shaped view of memory named by a handle variable."""
from __future__ import annotations

from typing import Tuple

from ..error import TVMError
from ..ir import dtype as _dt
from . import op as _op
from .expr import BufferLoad, Call, IntImm, Node, PrimExpr, Ramp, Var, node


def _simplify(e: PrimExpr) -> PrimExpr:
    return e  # replaced by arith's simplifier when tvmlite.tir loads (arith is a layer above)


def install_simplifier(fn) -> None:
    """Let :meth:`Buffer.offset_of` simplify with ``fn`` (called by ``tvmlite.tir``)."""
    global _simplify
    _simplify = fn


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

    def _vector_indices(self, begin, dtype: str, what: str) -> tuple:
        """``begin`` with its last index a ramp over the lanes ``dtype`` has beyond the
        buffer's own (classic ``vload``/``vstore``)."""
        begin = begin if isinstance(begin, (list, tuple)) else (begin,)
        idx = [_op.convert(i) for i in begin]
        lanes, own = _dt.lanes(dtype), _dt.lanes(self.dtype)
        if _dt.with_lanes(dtype, 1) != _dt.with_lanes(self.dtype, 1) or lanes % own:
            raise TVMError(f"{what}: Cannot {what[1:]} {dtype} from buffer {self.name} of "
                           f"{self.dtype}")
        if len(idx) != len(self.shape):
            raise TVMError(f"{what}: buffer {self.name} has {len(self.shape)} dimensions, "
                           f"indexed with {len(idx)}")
        if lanes // own > 1:
            idx[-1] = Ramp(idx[-1], IntImm(idx[-1].dtype, 1), lanes // own)
        return tuple(idx)

    def vload(self, begin, dtype=None) -> PrimExpr:
        """Load ``dtype`` (default: the buffer's) from ``begin``: a vector dtype loads that
        many consecutive elements along the last dimension."""
        dtype = _dt.canonical(dtype) if dtype else self.dtype
        return BufferLoad(self, self._vector_indices(begin, dtype, "vload"))

    def vstore(self, begin, value):
        """Store ``value`` at ``begin``; a vector value fills consecutive elements along the
        last dimension."""
        from .stmt import BufferStore

        value = _op.convert(value)
        return BufferStore(self, value, self._vector_indices(begin, value.dtype, "vstore"))

    READ = 1
    WRITE = 2

    def access_ptr(self, access_mask="rw", ptr_type="handle", content_lanes=1, offset=0,
                   extent=None) -> PrimExpr:
        """A pointer into the buffer, classic ``tvm_access_ptr(type_annotation(dtype), data,
        offset, extent, mask)``.

        Parameters
        ----------
        access_mask : str or int
            ``"r"``, ``"w"``, ``"rw"`` or a mask of :attr:`READ` | :attr:`WRITE`.
        ptr_type : str
            The dtype of the pointer expression.
        content_lanes : int
            Elements per pointed-to item (offset and extent count items).
        offset : PrimExpr
            Elements past the buffer's ``elem_offset``.
        extent : PrimExpr, optional
            Elements accessible from there; the rest of the buffer by default.

        Returns
        -------
        PrimExpr
            The call. tvmlite keeps the Buffer itself as its second argument (where classic TVM
            has ``data``) so that tensorize can rebase it onto the tile it replaces.
        """
        if isinstance(access_mask, str):
            bad = set(access_mask) - set("rw")
            if bad:
                raise TVMError(f"Buffer {self.name}.access_ptr: unknown access mask "
                               f"{access_mask!r} (use 'r', 'w' or 'rw')")
            access_mask = (self.READ if "r" in access_mask else 0) | (
                self.WRITE if "w" in access_mask else 0)
        offset = _op.convert(offset)
        if not self.shape:
            full = IntImm(offset.dtype if _dt.is_integral(offset.dtype) else "int32", 1)
        elif len(self.strides) == len(self.shape):
            full = _op.sub(_op.mul(self.strides[0], self.shape[0]), offset)
        else:
            full = IntImm("int32", 1)
            for s in self.shape:
                full = _op.mul(full, s)
            full = _op.sub(full, offset)
        elem_offset = _op.add(self.elem_offset, offset)
        dtype = self.dtype
        if content_lanes > 1:
            lanes = IntImm(self.elem_offset.dtype, content_lanes)
            dtype = _dt.with_lanes(dtype, content_lanes)
            full = _op.floordiv(full, lanes)
            elem_offset = _op.floordiv(elem_offset, lanes)
        if extent is not None:
            full = _op.convert(extent)
        return Call(ptr_type, "tvm_access_ptr", (Call(dtype, "type_annotation", ()), self,
                                                 elem_offset, full,
                                                 IntImm("int32", int(access_mask))))

    def offset_of(self, indices) -> list:
        """The flat element offset of ``indices`` (``elem_offset`` included), as a one-item
        list (classic ``Buffer.offset_of``)."""
        indices = indices if isinstance(indices, (list, tuple)) else (indices,)
        if len(indices) != len(self.shape):
            raise TVMError(f"Buffer {self.name}.offset_of: {len(indices)} indices for a buffer "
                           f"of {len(self.shape)} dimensions")
        off = self.elem_offset
        for i, st in zip(indices, self.get_flattened_strides()):
            off = _op.add(off, _op.mul(_op.convert(i), st))
        return [_simplify(off)]

    def get_flattened_strides(self) -> Tuple[PrimExpr, ...]:
        """Strides in elements (compact row-major when none are given). Strides that do not
        give one per dimension (a classic parser accepts ``strides=[1]`` on a 2-D buffer) are
        refused: no layout follows from them."""
        if self.strides:
            if len(self.strides) != len(self.shape):
                raise TVMError(f"Buffer {self.name}: {len(self.strides)} strides for "
                               f"{len(self.shape)} dimensions; give one stride per dimension "
                               "or none")
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
        strides = [Var("stride", "int32") for _ in shape]  # one name for all, as classic
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
