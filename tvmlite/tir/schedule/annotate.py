"""``annotate`` / ``unannotate``: attach or remove a key-value hint on a loop or block."""
from __future__ import annotations

from typing import Any, Union

from ..stmt import For
from .error import fail
from .state import BlockRV, LoopRV, ScheduleState, replace, with_block


def annotate(state: ScheduleState, rv: Union[BlockRV, LoopRV], ann_key: str,
             ann_val: Any) -> None:
    """Set annotation ``ann_key`` on a loop or block.

    Before: ``for i in range(8):`` — After ``annotate(i, "pragma_unroll", 1)``:
    ``for i in T.serial(8, annotations={"pragma_unroll": 1}):``
    """
    _update(state, rv, "annotate", ann_key, ann_val, remove=False)


def unannotate(state: ScheduleState, rv: Union[BlockRV, LoopRV], ann_key: str) -> None:
    """Remove annotation ``ann_key`` from a loop or block (the reverse of ``annotate``)."""
    _update(state, rv, "unannotate", ann_key, None, remove=True)


def _update(state, rv, prim, key, val, remove):
    if not isinstance(key, str):
        raise TypeError(f"{prim}: the annotation key must be a string, got {key!r}")
    if isinstance(rv, LoopRV):
        path = state.loop_path(rv, prim)
        node = path[-1]
        what = f'loop "{node.loop_var.name}"'
        anns = dict(node.annotations or {})
    elif isinstance(rv, BlockRV):
        path = state.block_path(rv, prim)
        node = path[-1]
        what = f'block "{node.block.name_hint}"'
        anns = dict(node.block.annotations or {})
    else:
        raise TypeError(f"{prim}: expected a LoopRV or BlockRV, got {type(rv).__name__}")
    if remove:
        if key not in anns:
            raise fail(prim, what, f'it has no annotation "{key}"')
        del anns[key]
    else:
        anns[key] = val
    anns = anns or None
    if isinstance(node, For):
        new = For(node.loop_var, node.min, node.extent, node.kind, node.body,
                  node.thread_binding, anns)
    else:
        new = with_block(node, annotations=anns)
    replace(state, path, new)
