"""``set_scope``: change the storage scope of an intermediate buffer."""
from __future__ import annotations

import dataclasses

from .cache_read_write import check_scope
from .error import fail
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
    if not isinstance(buffer_index, int) or not 0 <= buffer_index < len(block.writes):
        raise fail(prim, what, f"buffer_index {buffer_index!r} is out of range (the block "
                   f"writes {len(block.writes)} buffers)")
    buf = block.writes[buffer_index].buffer
    if state.is_output_buffer(buf):
        raise fail(prim, what, f'"{buf.name}" is a function parameter; only an allocated '
                   "buffer can change scope")
    if buf.scope() == storage_scope:
        return
    new = dataclasses.replace(buf, scope_name=storage_scope)
    state.set_body(ReplaceBuffer({buf: new})(state.body))
