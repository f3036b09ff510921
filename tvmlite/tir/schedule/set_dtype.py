"""``unsafe_set_dtype``: change the element type of an intermediate buffer."""
from __future__ import annotations

import dataclasses
from typing import Dict

from ...ir import dtype as _dt
from ..buffer import Buffer
from ..expr import BufferLoad, Cast
from ..functor import ir_transform, post_order_visit
from ..stmt import Block, BufferStore
from .error import allocated_write, fail
from .state import BlockRV, ReplaceBuffer, ScheduleState


def buffer_and_matches(state: ScheduleState, buf: Buffer, **changes) -> Dict[Buffer, Buffer]:
    """``buf`` and the buffers matched to a region of it, each mapped to a copy with
    ``changes`` (a buffer view shares the storage it views)."""
    bmap = {buf: dataclasses.replace(buf, **changes)}

    def matched(x):
        if isinstance(x, Block):
            for m in x.match_buffers:
                if m.source.buffer is buf:
                    bmap[m.buffer] = dataclasses.replace(m.buffer, **changes)

    post_order_visit(state.body, matched)
    return bmap


def unsafe_set_dtype(state: ScheduleState, block_rv: BlockRV, buffer_index: int,
                     dtype: str) -> None:
    """Store the ``buffer_index``-th buffer ``block`` writes as ``dtype``: stores cast to it,
    loads cast back to the old type (unsafe: precision or range may be lost).

    Before::

        B = T.alloc_buffer((8,))
        ... B[vi] = A[vi] * 2.0 ...
        ... C[vi] = B[vi] + 1.0 ...

    After ``unsafe_set_dtype(B, 0, "float16")``::

        B = T.alloc_buffer((8,), "float16")
        ... B[vi] = T.Cast("float16", A[vi] * 2.0) ...
        ... C[vi] = T.Cast("float32", B[vi]) + 1.0 ...
    """
    prim = "unsafe_set_dtype"
    path = state.block_path(block_rv, prim)
    block = path[-1].block
    what = f'block "{block.name_hint}"'
    try:
        dtype = _dt.canonical(dtype)
    except (TypeError, ValueError):
        raise fail(prim, what, f"{dtype!r} is not a data type") from None
    if _dt.is_handle(dtype) or _dt.lanes(dtype) != 1:
        raise fail(prim, what, f"the new dtype {dtype!r} is not a scalar number type")
    buf = allocated_write(state, block, buffer_index, prim, what, "change its dtype")
    old = buf.dtype
    if old == dtype:
        return
    bmap = buffer_and_matches(state, buf, dtype=dtype)
    new_bufs = set(bmap.values())

    def post(x):
        if isinstance(x, BufferStore) and x.buffer in new_bufs:
            return dataclasses.replace(x, value=Cast(dtype, x.value))
        if isinstance(x, BufferLoad) and x.buffer in new_bufs:
            return Cast(old, x)
        return None

    body = ReplaceBuffer(bmap)(state.body)
    state.set_body(ir_transform(body, None, post, ["BufferStore", "BufferLoad"]))
