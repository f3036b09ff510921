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

import dataclasses
from typing import Dict, Tuple

from ...arith import Analyzer
from ...error import TVMError
from .. import op as _op
from ..buffer import Buffer
from ..expr import BufferLoad, Call, IntImm, Range, Var
from ..functor import Mutator, collect_vars, post_order_visit
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

    def visit_Call(self, e):
        # a buffer passed whole (``access_ptr``): its offset argument already counts the
        # elem_offset variable bound above, so only the data changes hands
        e = self.generic(e)
        if any(isinstance(a, Buffer) and a in self.bmap for a in e.args):
            args = tuple(self.bmap[a][0] if isinstance(a, Buffer) and a in self.bmap else a
                         for a in e.args)
            return dataclasses.replace(e, args=args)
        return e

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
        used = collect_vars(b.body)  # a pointer taken (``.data``) or a buffer passed whole
        post_order_visit(b.body, lambda x: used.update(
            a.data for a in x.args if isinstance(a, Buffer)) if isinstance(x, Call) else None)
        for mb in b.match_buffers:
            self._bind(mb.buffer, self.visit(mb.source), b.name_hint, mb.buffer.data in used)
        new = self.generic(b)
        return Block(new.iter_vars, new.reads, new.writes, new.name_hint, new.body, new.init,
                     new.alloc_buffers, (), new.annotations)

    def _bind(self, buf: Buffer, src: BufferRegion, where: str, opaque: bool) -> None:
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
        if opaque:  # the pointer leaves the IR: its declared layout must be the real one
            self._check_layout(buf, src, mins, strides[n - k:], where)

    def _check_layout(self, buf: Buffer, src: BufferRegion, mins, tail, where: str) -> None:
        what = f"block {where}: T.match_buffer {buf.name} viewing {src.buffer.name}"
        declared = list(buf.strides) or (_row_major(buf.shape) if len(buf.shape) > 1 else [])
        for d, t in zip(declared, tail[len(tail) - len(declared):]):
            if not isinstance(d, Var) and not _provably_equal(d, t):
                kind = "strides" if buf.strides else "a compact layout"
                raise TVMError(f"{what}: the buffer declares {kind} (stride {d}) but the region "
                               f"it views has stride {t}; declare the buffer with strides")
        if not isinstance(buf.elem_offset, Var):
            off = src.buffer.elem_offset
            for m, st in zip(mins, list(src.buffer.strides) or _row_major(src.buffer.shape)):
                off = _op.add(off, _op.mul(m, st))
            if not _provably_equal(buf.elem_offset, off):
                raise TVMError(f"{what}: the buffer has the constant elem_offset "
                               f"{buf.elem_offset} but the region starts at {off}; declare it "
                               "with offset_factor so the offset is passed")


def _provably_equal(a, b) -> bool:
    r = Analyzer().simplify(_op.eq(a, b))
    return isinstance(r, IntImm) and bool(r.value)


def _row_major(shape):
    out, acc = [], IntImm("int32", 1)
    for d in reversed(shape):
        out.append(acc)
        acc = _op.mul(acc, d)
    return list(reversed(out))


def lower_match_buffer(body, func=None):
    """Replace matched buffers by their source regions everywhere below their blocks."""
    return _Lower().visit(body)
