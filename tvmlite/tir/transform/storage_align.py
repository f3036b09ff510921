"""Give buffers annotated by ``storage_align`` (block attribute ``buffer_dim_align``) their
padded strides, so flattening uses them.

Before (``storage_align(block P, 0, axis=0, factor=8, offset=1)`` on a 16×16 buffer)::

    P = T.alloc_buffer((16, 16))
    with T.block("P"):
        T.block_attr({"buffer_dim_align": [[0, 0, 8, 1]]})
        P[vi, vj] = ...

After: ``P`` has strides ``(17, 1)`` — row ``i`` starts at ``17 * i``.
"""
from __future__ import annotations

from typing import Dict

from ..buffer import Buffer
from ..functor import Mutator, Visitor
from ..stmt_util import ALIGN_ATTR as ATTR
from ..stmt_util import aligned_strides


class _Collect(Visitor):
    def __init__(self):
        self.aligns: Dict[int, tuple] = {}

    def visit_Block(self, b):
        for idx, axis, factor, offset in (b.annotations or {}).get(ATTR, []):
            buf = b.writes[idx].buffer
            entry = self.aligns.setdefault(id(buf), (buf, []))
            entry[1].append((axis, factor, offset))
        self.generic(b)


class _Replace(Mutator):
    def __init__(self, bmap: Dict[int, Buffer]):
        self.bmap = bmap

    def visit_Buffer(self, b):
        return self.bmap.get(id(b), b)


def collect_aligns(body) -> Dict[int, tuple]:
    """``id(buffer) -> (buffer, [(axis, factor, offset), ...])`` for every buffer a block of
    ``body`` aligns (``lower_blocks`` keeps them on the ``Allocate`` so that compaction can
    re-align the shrunk buffer)."""
    col = _Collect()
    col.visit(body)
    return col.aligns


def apply_storage_align(body, func=None):
    """Replace aligned buffers by strided ones (see the module docstring)."""
    col = _Collect()
    col.visit(body)
    if not col.aligns:
        return body
    # a parameter's layout is the caller's (``Schedule.storage_align`` refuses one; an
    # annotation left behind by a later primitive must not restride it)
    params = {id(b) for b in func.buffer_map.values()} if func is not None else set()
    bmap = {}
    for key, (buf, aligns) in col.aligns.items():
        if key in params:
            continue
        strides = tuple(aligned_strides(buf.shape, aligns))
        bmap[key] = Buffer(buf.data, buf.dtype, buf.shape, strides, buf.elem_offset, buf.name,
                           buf.data_alignment, buf.offset_factor, buf.scope_name,
                           buf.axis_separators)
    return _Replace(bmap).visit(body)
