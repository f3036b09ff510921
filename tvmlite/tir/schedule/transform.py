"""Compound transformations over a schedule (``tvm.tir.schedule.transform``)."""
from __future__ import annotations

from typing import List, Optional

from ..tensor_intrin import TensorIntrin
from .analysis import get_tensorize_loop_mapping
from .state import BlockRV, LoopRV


def tile_with_tensor_intrin(sch, block: BlockRV, intrin_name: str,
                            allow_padding: bool = False) -> Optional[LoopRV]:
    """Tile the loops of ``block`` for the tensor intrinsic ``intrin_name``: each loop that
    maps to a loop of the intrinsic's description is split by that loop's extent (after
    padding the block, with ``allow_padding``), and the inner parts are moved innermost, in
    the description's order.

    Parameters
    ----------
    sch : Schedule
    block : BlockRV
    intrin_name : str
        A registered :class:`~tvmlite.tir.TensorIntrin`.
    allow_padding : bool
        Pad iterators whose extents the intrinsic's do not divide (``pad_einsum``).

    Returns
    -------
    LoopRV or None
        The outermost of the tiled inner loops (where ``tensorize`` applies), or None when the
        block's loops do not map to the intrinsic.
    """
    info = get_tensorize_loop_mapping(sch, block, TensorIntrin.get(intrin_name).desc,
                                      allow_padding)
    if info is None:
        return None
    if info.block_iter_paddings is not None:
        sch.pad_einsum(block, info.block_iter_paddings)
    loops = sch.get_loops(block)
    desc_loops = sorted(info.desc_loop_indexer, key=info.desc_loop_indexer.get)
    suffix: List[Optional[LoopRV]] = [None] * len(info.positions)
    inner = []
    for pos, d in sorted(info.positions.items()):
        factor = desc_loops[d].extent.value
        _, loop_in = sch.split(loops[pos], [None, factor])
        inner.append(loop_in)
        suffix[sorted(info.positions.values()).index(d)] = loop_in
    order, meet = [], False
    inner_loops = {id(sch.get(x)) for x in inner}
    for lp in sch.get_loops(block):
        if id(sch.get(lp)) in inner_loops:
            meet = True
        elif meet:
            order.append(lp)
    sch.reorder(*order, *suffix)
    return suffix[0]


__all__ = ["tile_with_tensor_intrin"]
