"""``reorder``: permute loops of one nest."""
from __future__ import annotations

from typing import List, Sequence

from ..expr import IterVarType
from ..functor import collect_vars
from ..stmt import For
from .error import fail
from .state import LoopRV, ScheduleState, child_blocks, replace, with_loop_body


def reorder(state: ScheduleState, loop_rvs: Sequence[LoopRV]) -> None:
    """Reorder loops of a single nest: the given loops take, in the given order, the positions
    the given loops occupy; loops in between that are not given stay where they are.

    Before::

        for i, j in T.grid(4, 6):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

    After ``reorder(j, i)``::

        for j, i in T.grid(6, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
    """
    prim = "reorder"
    if not loop_rvs:
        return
    paths = [state.loop_path(rv, prim) for rv in loop_rvs]
    loops = [p[-1] for p in paths]
    names = ", ".join(f'"{lp.loop_var.name}"' for lp in loops)
    if len({id(lp) for lp in loops}) != len(loops):
        raise fail(prim, f"loops {names}", "a loop is given twice")
    # the outermost given loop is the one with the shortest path; all must lie on the
    # longest path
    order = sorted(range(len(loops)), key=lambda k: len(paths[k]))
    outer_k, inner_k = order[0], order[-1]
    chain_path = paths[inner_k]
    start = len(paths[outer_k]) - 1
    for lp in loops:
        if not any(s is lp for s in chain_path):
            raise fail(prim, f"loops {names}",
                       f'loop "{lp.loop_var.name}" is not in the same loop nest as loop '
                       f'"{loops[inner_k].loop_var.name}" (the loops must be nested in one '
                       "another)")
    chain: List[For] = list(chain_path[start:])
    for k, s in enumerate(chain[:-1]):
        if not isinstance(s, For):
            raise fail(prim, f"loops {names}", "a block lies between the loops")
        if s.body is not chain[k + 1]:
            raise fail(prim, f"loops {names}", f'loop "{s.loop_var.name}" has more than one '
                       "child statement; only a single-branch loop nest can be reordered")
    given = {id(lp) for lp in loops}
    all_vars = {s.loop_var for s in chain}
    for s in chain:
        if collect_vars(s.min) & all_vars or collect_vars(s.extent) & all_vars:
            raise fail(prim, f'loop "{s.loop_var.name}"', "its range depends on another loop "
                       "of the nest")
    it = iter(loops)
    new_chain = [next(it) if id(s) in given else s for s in chain]
    moved = {s.loop_var for s, t in zip(chain, new_chain) if s is not t}
    for realize in child_blocks(chain[-1]):
        sp, red = set(), set()
        for iv, val in zip(realize.block.iter_vars, realize.iter_values):
            (red if iv.iter_type == IterVarType.CommReduce else sp).update(collect_vars(val))
        for v in moved & sp & red:
            raise fail(prim, f'loop "{v.name}"', f'it feeds both spatial and reduction '
                       f'iterators of block "{realize.block.name_hint}"; reordering it would '
                       "break the reduction's init order")
    body = chain[-1].body
    for s in reversed(new_chain):
        body = with_loop_body(s, body)
    replace(state, chain_path[:start + 1], body)
