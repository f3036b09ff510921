"""Lower ``T.match_buffer`` regions of blocks: every access to a matched buffer becomes an
access to its source buffer, offset by the region's start.

Before::

    with T.block("B"):
        Bs = T.match_buffer(B[vi, 0:16], (16,))
        Bs[j] = ...

After: ``B[vi, 0 + j] = ...``. The matched buffer's trailing dimensions map onto the
region's trailing ones; the leading region dimensions must have extent 1. Its ``data`` is the
source's, its ``elem_offset`` and strides (when variables) the source's row-major ones.
"""
from __future__ import annotations

from typing import Dict, Tuple

from ...error import TVMError
from .. import op as _op
from ..buffer import Buffer
from ..expr import BufferLoad, IntImm, Range, Var
from ..functor import Mutator
from ..stmt import Block, BufferRegion, BufferStore


class _Lower(Mutator):
    def __init__(self):
        self.bmap: Dict[Buffer, Tuple[Buffer, tuple]] = {}
        self.vmap: Dict[Var, object] = {}

    def _index(self, buf: Buffer, indices):
        src, mins = self.bmap[buf]
        lead = len(mins) - len(indices)
        return src, tuple(mins[:lead]) + tuple(_op.add(m, i) for m, i in
                                               zip(mins[lead:], indices))

    def visit_Var(self, v):
        return self.vmap.get(v, v)

    visit_SizeVar = visit_Var

    def visit_BufferLoad(self, e):
        e = self.generic(e)
        if e.buffer in self.bmap:
            src, idx = self._index(e.buffer, e.indices)
            return BufferLoad(src, idx)
        return e

    def visit_BufferStore(self, s):
        s = self.generic(s)
        if s.buffer in self.bmap:
            src, idx = self._index(s.buffer, s.indices)
            return BufferStore(src, s.value, idx)
        return s

    def visit_BufferRegion(self, r):
        r = self.generic(r)
        if r.buffer in self.bmap:
            src, mins = self.bmap[r.buffer]
            lead = len(mins) - len(r.region)
            ranges = [Range(m, IntImm(m.dtype, 1)) for m in mins[:lead]]
            ranges += [Range(_op.add(m, x.min), x.extent) for m, x in zip(mins[lead:], r.region)]
            return BufferRegion(src, tuple(ranges))
        return r

    def visit_Block(self, b):
        if not b.match_buffers:
            return self.generic(b)
        for mb in b.match_buffers:
            self._bind(mb.buffer, self.visit(mb.source), b.name_hint)
        new = self.generic(b)
        return Block(new.iter_vars, new.reads, new.writes, new.name_hint, new.body, new.init,
                     new.alloc_buffers, (), new.annotations)

    def _bind(self, buf: Buffer, src: BufferRegion, where: str) -> None:
        region = src.region
        n, k = len(region), len(buf.shape)
        if k > n or any(not (isinstance(r.extent, IntImm) and r.extent.value == 1)
                        for r in region[:n - k]):
            raise TVMError(f"block {where}: T.match_buffer {buf.name} ({k}-D) cannot view the "
                           f"region of {src.buffer.name} whose leading dimensions are not 1")
        mins = tuple(r.min for r in region)
        self.bmap[buf] = (src.buffer, mins)
        self.vmap[buf.data] = src.buffer.data
        shape = src.buffer.shape
        strides = list(src.buffer.strides) or _row_major(shape)
        if isinstance(buf.elem_offset, Var):
            off = src.buffer.elem_offset
            for m, st in zip(mins, strides):
                off = _op.add(off, _op.mul(m, st))
            self.vmap[buf.elem_offset] = off
        for s, st in zip(buf.strides, strides[n - k:]):
            if isinstance(s, Var):
                self.vmap[s] = st
        for s, r in zip(buf.shape, region[n - k:]):
            if isinstance(s, Var):
                self.vmap[s] = r.extent


def _row_major(shape):
    out, acc = [], IntImm("int32", 1)
    for d in reversed(shape):
        out.append(acc)
        acc = _op.mul(acc, d)
    return list(reversed(out))


def lower_match_buffer(body, func=None):
    """Replace matched buffers by their source regions everywhere below their blocks."""
    return _Lower().visit(body)
