"""``set_scope``: change the storage scope of an intermediate buffer."""
from __future__ import annotations

import dataclasses

from ..functor import post_order_visit
from ..stmt import Block
from .cache_read_write import check_scope
from .error import allocated_write
from .state import BlockRV, ReplaceBuffer, ScheduleState


def set_scope(state: ScheduleState, block_rv: BlockRV, buffer_index: int,
              storage_scope: str) -> None:
    """Put the ``buffer_index``-th buffer ``block`` writes in ``storage_scope``.

    Before::

        B = T.alloc_buffer((8,))
        ... B[vi] = A[vi] * 2.0 ...

    After ``set_scope(B, 0, "shared")``::

        B = T.alloc_buffer((8,), scope="shared")
        ... B[vi] = A[vi] * 2.0 ...
    """
    prim = "set_scope"
    path = state.block_path(block_rv, prim)
    block = path[-1].block
    what = f'block "{block.name_hint}"'
    check_scope(prim, what, storage_scope)
    buf = allocated_write(state, block, buffer_index, prim, what, "change scope")
    if buf.scope() == storage_scope:
        return
    bmap = {buf: dataclasses.replace(buf, scope_name=storage_scope)}

    def matched(x):  # buffers matched to a region of ``buf`` live in the same scope
        if isinstance(x, Block):
            for m in x.match_buffers:
                if m.source.buffer is buf:
                    bmap[m.buffer] = dataclasses.replace(m.buffer, scope_name=storage_scope)

    post_order_visit(state.body, matched)
    state.set_body(ReplaceBuffer(bmap)(state.body))
