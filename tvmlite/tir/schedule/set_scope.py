"""``set_scope``: change the storage scope of an intermediate buffer."""
from __future__ import annotations

import dataclasses

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
    new = dataclasses.replace(buf, scope_name=storage_scope)
    state.set_body(ReplaceBuffer({buf: new})(state.body))
