"""Analyses of a schedule's blocks (``tvm.tir.schedule.analysis``): which loops of a block map
to the loops of a tensor intrinsic's description."""
from __future__ import annotations

from typing import Dict, List, Optional

from ...arith import Analyzer
from ..expr import IntImm, IterVarType
from ..function import PrimFunc
from ..functor import collect_vars
from ..stmt import BlockRealize, For, SeqStmt, Stmt
from .state import BlockRV, StmtSRef


class TensorizeInfo:
    """How a block's loops map onto a tensor intrinsic description's loops (classic
    ``TensorizeInfo``).

    Attributes
    ----------
    loop_map : dict of StmtSRef to For
        A loop of the block (its reference) to the description loop it is tiled for.
    desc_loop_indexer : dict of For to int
        Each description loop to its position, outermost first.
    block_iter_paddings : list of int or None
        With ``allow_padding``, how much each block iterator must be padded to a multiple of
        its description loop's extent (None when nothing needs padding).
    """

    def __init__(self, loop_map, desc_loop_indexer, block_iter_paddings, positions):
        self.loop_map: Dict[StmtSRef, For] = loop_map
        self.desc_loop_indexer: Dict[For, int] = desc_loop_indexer
        self.block_iter_paddings: Optional[List[int]] = block_iter_paddings
        # the mapped loops as positions among the block's loops (outermost first) -> the
        # description loop's position: what survives a transformation of the loops
        self.positions: Dict[int, int] = positions

    def __repr__(self) -> str:
        return (f"TensorizeInfo(loops={sorted(self.positions.items())}, "
                f"paddings={self.block_iter_paddings})")


def _desc_nest(desc: PrimFunc):
    """The description's loops (outermost first) and its one block."""
    s: Stmt = desc.body
    loops: List[For] = []
    while True:
        if isinstance(s, BlockRealize) and isinstance(s.block.body, (For, BlockRealize)) and \
                not loops and (not s.block.iter_vars):
            s = s.block.body  # the root block around the nest
        elif isinstance(s, For):
            loops.append(s)
            s = s.body
        elif isinstance(s, BlockRealize):
            return loops, s
        else:
            return None, None


def _uses(e, vs) -> bool:
    return bool(collect_vars(e) & vs)


def get_tensorize_loop_mapping(sch, block: BlockRV, desc_func: PrimFunc,
                               allow_padding: bool = False) -> Optional[TensorizeInfo]:
    """Map the loops of ``block`` to the loops of the intrinsic description ``desc_func``
    (classic ``get_tensorize_loop_mapping``).

    Description iterators are matched from the innermost, each with the innermost unmatched
    block iterator of the same kind (spatial or reduction), and that iterator with the loop
    binding it directly (plus terms free of the block's loops). Loops must start at 0 and
    have constant extents divisible by the description's (or padded, with ``allow_padding``
    and trivially bound iterators).

    Returns
    -------
    TensorizeInfo, or None when the loops do not fit the description.
    """
    ana = Analyzer()
    desc_loops, desc_realize = _desc_nest(desc_func)
    if desc_realize is None:
        return None
    desc_vars = {lp.loop_var for lp in desc_loops}
    for lp in desc_loops:
        if not ana.can_prove(lp.min == 0):
            return None
    path = sch._state.block_path(block, "get_tensorize_loop_mapping")
    realize = path[-1]
    all_loops = [x for x in path if isinstance(x, For)]
    block_loops: List[For] = []
    for x in reversed(path[:-1]):
        if not isinstance(x, For) or isinstance(x.body, SeqStmt):
            break
        block_loops.insert(0, x)
        if not ana.can_prove(x.min == 0):
            return None
    block_vars = {lp.loop_var for lp in block_loops}
    n_block, n_desc = len(realize.iter_values), len(desc_realize.iter_values)
    if n_block < n_desc or len(desc_loops) != n_desc or len(block_loops) != n_block:
        return None
    kinds = [iv.iter_type for iv in realize.block.iter_vars]
    desc_kinds = [iv.iter_type for iv in desc_realize.block.iter_vars]
    if any(k not in (IterVarType.DataPar, IterVarType.CommReduce) for k in kinds):
        return None
    mapped: Dict[int, int] = {}  # block loop index -> desc loop index
    paddings: Dict[int, int] = {}
    next_ind = len(block_loops) - 1
    for i_desc in range(n_desc - 1, -1, -1):
        bind = desc_realize.iter_values[i_desc]
        found = next((i for i, lp in enumerate(desc_loops)
                      if not _uses(ana.simplify(bind - lp.loop_var), desc_vars)), None)
        if found is None or not isinstance(desc_loops[found].extent, IntImm):
            return None
        desc_ext = desc_loops[found].extent.value
        kind = desc_kinds[found]
        cur = next((k for k in range(next_ind, -1, -1) if kinds[k] == kind), None)
        if cur is None:
            return None
        next_ind = cur - 1
        block_bind = realize.iter_values[cur]
        for i, lp in enumerate(block_loops):
            if i in mapped:
                continue
            residual = ana.simplify(block_bind - lp.loop_var)
            if _uses(residual, block_vars):
                continue
            if allow_padding and not (isinstance(residual, IntImm) and residual.value == 0):
                allow_padding = False  # padding needs trivial bindings
            if not isinstance(lp.extent, IntImm):
                return None
            rem = lp.extent.value % desc_ext
            if rem:
                if not allow_padding:
                    return None
                paddings[cur] = desc_ext - rem
            mapped[i] = found
            break
    if paddings and not allow_padding:
        return None
    offset = len(all_loops) - len(block_loops)
    state = sch._state
    loop_map = {state.get_sref(block_loops[i]): desc_loops[d] for i, d in mapped.items()}
    pads = None
    if paddings:
        pads = [paddings.get(k, 0) for k in range(n_block)]
    return TensorizeInfo(loop_map, {lp: k for k, lp in enumerate(desc_loops)}, pads,
                         {offset + i: d for i, d in mapped.items()})


__all__ = ["TensorizeInfo", "get_tensorize_loop_mapping"]
