"""Flatten multi-dimensional buffer accesses to 1-D element offsets (row-major or strided).

Before::

    C[x, y] = A[x, k] * B[k, y]            # C, A, B: T.Buffer((100, 100))

After::

    C_1 = T.Buffer((10000,), data=C.data)
    C_1[x * 100 + y] = A_1[x * 100 + k] * B_1[k * 100 + y]

Parameter buffers keep their shapes in ``buffer_map`` (the call-time checks use them); the body
sees flat views sharing their ``data`` variable.
"""
from __future__ import annotations

from typing import Dict

from .. import op as _op
from ..buffer import Buffer
from ..expr import BufferLoad, IntImm
from ..functor import Mutator
from ..stmt import Allocate, BufferStore


def flat_index(buf: Buffer, indices) -> "object":
    """The element offset of ``buf[indices]``."""
    strides = buf.get_flattened_strides()
    off = buf.elem_offset
    for i, s in zip(indices, strides):
        off = _op.add(off, _op.mul(i, s))
    if not indices:
        off = _op.add(off, 0)
    return off


def flat_extent(buf: Buffer):
    """Number of elements a flat view of ``buf`` spans."""
    if not buf.strides:
        n = IntImm("int32", 1)
        for s in buf.shape:
            n = _op.mul(n, s)
        return n
    n = IntImm("int32", 1)
    for s, st in zip(buf.shape, buf.get_flattened_strides()):
        n = _op.add(n, _op.mul(_op.sub(s, 1), st))
    return n


class _Flatten(Mutator):
    def __init__(self):
        self.flat: Dict[int, Buffer] = {}

    def flat_buffer(self, buf: Buffer) -> Buffer:
        f = self.flat.get(id(buf))
        if f is None:
            if len(buf.shape) == 1 and not buf.strides and isinstance(buf.elem_offset, IntImm) \
                    and buf.elem_offset.value == 0:
                f = buf
            else:
                f = Buffer(buf.data, buf.dtype, (flat_extent(buf),), (), IntImm("int32", 0),
                           buf.name, buf.data_alignment, buf.offset_factor, buf.scope_name)
            self.flat[id(buf)] = f
        return f

    def _index(self, buf, indices):
        if len(buf.shape) == 1 and not buf.strides:
            return (indices[0],) if isinstance(buf.elem_offset, IntImm) and \
                buf.elem_offset.value == 0 else (_op.add(indices[0], buf.elem_offset),)
        return (flat_index(buf, indices),)

    def visit_BufferLoad(self, e):
        idx = self.visit(e.indices)
        return BufferLoad(self.flat_buffer(e.buffer), self._index(e.buffer, idx))

    def visit_BufferStore(self, s):
        idx = self.visit(s.indices)
        value = self.visit(s.value)
        return BufferStore(self.flat_buffer(s.buffer), value, self._index(s.buffer, idx))

    def visit_Allocate(self, a):
        body = self.visit(a.body)
        if len(a.extents) == 1:
            return a if body is a.body else Allocate(
                a.buffer_var, a.dtype, a.extents, a.condition, body, a.annotations, a.scope)
        n = IntImm("int32", 1)
        for e in a.extents:
            n = _op.mul(n, e)
        return Allocate(a.buffer_var, a.dtype, (n,), a.condition, body, a.annotations, a.scope)


def flatten_buffer(body, func=None):
    """Flatten every buffer access in ``body`` (see the module docstring)."""
    return _Flatten().visit(body)
