"""``decompose_reduction``: give a reduction block's init its own block before a loop."""
from __future__ import annotations

import dataclasses

from ..analysis import block_regions
from ..stmt import BlockRealize, SeqStmt
from ..stmt_util import hoist_init
from .error import fail
from .state import (
    BlockRV,
    LoopRV,
    ScheduleState,
    find_path,
    is_true,
    loop_domains,
    loops_above,
    rebuild,
    replace,
    simplify,
    with_block,
)


def decompose_reduction(state: ScheduleState, block_rv: BlockRV, loop_rv: LoopRV) -> BlockRV:
    """Move the ``T.init`` of reduction ``block`` into a new block ``<name>_init`` placed just
    before ``loop``, under copies of the spatial loops between ``loop`` and the block (named
    ``<loop>_init``). Returns the init block. The lowering pass ``LowerReductionInit`` does
    the same at the first reduction loop (one shared implementation, ``hoist_init``).

    Before::

        for i, k in T.grid(8, 16):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = 0.0
                B[vi] = B[vi] + A[vi, vk]

    After ``decompose_reduction(B, k)``::

        for i in range(8):
            with T.block("B_init"):
                vi = T.axis.spatial(8, i)
                B[vi] = 0.0
            for k in range(16):
                with T.block("B_update"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    B[vi] = B[vi] + A[vi, vk]

    The block keeps the update and is renamed ``<name>_update`` (as in classic TVM); handles
    to it follow the new name.
    """
    prim = "decompose_reduction"
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    block = realize.block
    lpath = state.loop_path(loop_rv, prim)
    loop = lpath[-1]
    what = f'block "{block.name_hint}" at loop "{loop.loop_var.name}"'
    if block.init is None:
        raise fail(prim, what, "the block has no init (it is not a reduction block, or its "
                   "reduction was already decomposed)")
    loops = loops_above(path)
    index = next((i for i, lp in enumerate(loops) if lp is loop), None)
    if index is None:
        raise fail(prim, what, "the loop is not an ancestor of the block")
    res = hoist_init(realize, loops, index)
    if isinstance(res, str):
        raise fail(prim, what, res)
    _, nest, update = res
    nest = _simplify_init_predicate(nest, loop_domains(path))
    # without its init the update reads back what it writes (tir.analysis's convention)
    names = state.block_names()
    # as in classic TVM, the block keeps the update under ``<name>_update`` (handles follow)
    update_name = block.name_hint + "_update"
    k = 1
    while update_name in names:
        update_name = f"{block.name_hint}_update_{k}"
        k += 1
    update = with_block(update, reads=block_regions(update.block)[0], name_hint=update_name)
    init_name = nest_name = block.name_hint + "_init"
    k = 1
    while init_name in names:
        init_name = f"{nest_name}_{k}"
        k += 1
    if init_name != nest_name:
        nest = _rename(nest, init_name)
    replace(state, path, update)
    state.rename_block(block.name_hint, update_name)
    lpath = state.loop_path(loop_rv, prim)
    loop = lpath[-1]
    parent = lpath[-2] if len(lpath) > 1 else None
    if isinstance(parent, SeqStmt):
        items = []
        for s in parent.seq:
            if s is loop:
                items.append(nest)
            items.append(s)
        replace(state, lpath[:-1], SeqStmt.flatten(*items))
    else:
        replace(state, lpath, SeqStmt.flatten(nest, loop))
    return BlockRV(init_name, block_rv.func_name)


def _simplify_init_predicate(nest, dom):
    """The init nest with its predicate simplified (a reduction-loop conjunct taken at the
    loop's start, ``0 * 7 + 0 < 128``, folds to true and goes, as in classic TVM)."""
    p = find_path(nest, lambda s: isinstance(s, BlockRealize))
    realize = p[-1]
    if is_true(realize.predicate):
        return nest
    dom = {**dom, **loop_domains(p)}
    pred = simplify(realize.predicate, dom)
    if pred is realize.predicate:
        return nest
    return rebuild(p, dataclasses.replace(realize, predicate=pred))


def _rename(nest, name):
    p = find_path(nest, lambda s: isinstance(s, BlockRealize))
    return rebuild(p, with_block(p[-1], name_hint=name))
