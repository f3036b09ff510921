"""``storage_align``: pad a buffer's strides (to avoid shared-memory bank conflicts)."""
from __future__ import annotations

from ..stmt_util import ALIGN_ATTR as ATTR
from .error import allocated_write, fail
from .state import BlockRV, ScheduleState, replace, with_block


def storage_align(state: ScheduleState, block_rv: BlockRV, buffer_index: int, axis: int,
                  factor: int, offset: int) -> None:
    """Make the stride of dimension ``axis`` of the ``buffer_index``-th buffer ``block``
    writes equal ``k * factor + offset`` (the smallest such value not below the compact
    stride). Recorded, as in TVM, as the block annotation ``buffer_dim_align`` (a list of
    ``[buffer_index, axis, factor, offset]``); :func:`aligned_strides` computes the strides
    when buffers are flattened.

    Before::

        with T.block("A_shared"):
            ...

    After ``storage_align(A_shared_block, 0, axis=0, factor=32, offset=8)``::

        with T.block("A_shared"):
            T.block_attr({"buffer_dim_align": [[0, 0, 32, 8]]})
            ...
    """
    prim = "storage_align"
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    buf = allocated_write(state, block, buffer_index, prim, what, "be aligned")
    ndim = len(buf.shape)
    if not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise fail(prim, what, f"axis {axis!r} is out of range for the {ndim}-dimensional "
                   f'buffer "{buf.name}"')
    axis = axis + ndim if axis < 0 else axis
    if not isinstance(factor, int) or factor <= 0:
        raise fail(prim, what, f"factor must be a positive integer, got {factor!r}")
    if not isinstance(offset, int) or not 0 <= offset < factor:
        raise fail(prim, what, f"offset must be in [0, factor), got {offset!r}")
    anns = dict(block.annotations or {})
    entries = [list(e) for e in anns.get(ATTR, []) if not (e[0] == buffer_index
                                                           and e[1] == axis)]
    entries.append([buffer_index, axis, factor, offset])
    anns[ATTR] = entries
    replace(state, path, with_block(realize, annotations=anns))
