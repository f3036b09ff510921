"""``merge``: run several sibling loop nests of the same shape under one shared nest."""
from __future__ import annotations

from typing import List, Sequence

from ..expr import IntImm, Range, Var
from ..stmt import Block, BlockRealize, For, ForKind, SeqStmt
from .error import fail
from .state import (
    LoopRV,
    ScheduleState,
    buffers_read,
    buffers_written,
    can_prove,
    loop_domains,
    rebind_blocks,
    replace,
    walk_stmts,
)


def merge(state: ScheduleState, loop_rvs: Sequence[LoopRV]) -> LoopRV:
    """Merge loops of sibling nests: the loops from their lowest common ancestor down to each
    given loop become one shared nest (extents equal level by level), whose body runs the
    nests' bodies one after the other.

    Before::

        for i in range(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = B[vi] + 1.0
        for i in range(8):
            with T.block("D"):
                vi = T.axis.spatial(8, i)
                D[vi] = B[vi] * 2.0

    After ``merge(i_of_C, i_of_D)``::

        for i_m in range(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i_m)
                C[vi] = B[vi] + 1.0
            with T.block("D"):
                vi = T.axis.spatial(8, i_m)
                D[vi] = B[vi] * 2.0

    Interleaving the nests changes the order of their iterations, so tvmlite only merges
    nests that are adjacent and independent (no buffer one writes is accessed by another).
    """
    prim = "merge"
    if len(loop_rvs) < 2:
        raise fail(prim, "loops", "at least two loops are needed")
    paths = [state.loop_path(rv, prim) for rv in loop_rvs]
    names = ", ".join(f'loop "{p[-1].loop_var.name}"' for p in paths)
    if len({id(p[-1]) for p in paths}) != len(paths):
        raise fail(prim, names, "a loop is given twice")
    for p in paths:
        if any(q is not p and any(s is p[-1] for s in q) for q in paths):
            raise fail(prim, names, "one loop is nested in another; merge takes loops of "
                       "sibling nests")
    common = 0
    while all(len(p) > common + 1 and p[common] is paths[0][common] for p in paths):
        common += 1
    lca = paths[0][common - 1]
    if not isinstance(lca, SeqStmt):
        raise fail(prim, names, "the loops are not in sibling nests of one sequence")
    nests: List[List[For]] = []
    for p in paths:
        chain = p[common:]
        for s in chain:
            if isinstance(s, (Block, BlockRealize)):
                raise fail(prim, names, "the loops are not in the same block scope")
            if not isinstance(s, For):
                raise fail(prim, names, f"{type(s).__name__} between the loops and their "
                           "common ancestor: each merged loop must be the only child of the "
                           "one above it")
        for outer, inner in zip(chain, chain[1:]):
            if outer.body is not inner:
                raise fail(prim, f'loop "{inner.loop_var.name}"', f'it is not the only child '
                           f'of loop "{outer.loop_var.name}"')
        for lp in chain:
            what = f'loop "{lp.loop_var.name}"'
            if lp.kind != ForKind.SERIAL or lp.thread_binding is not None or lp.annotations:
                raise fail(prim, what, "only serial loops without annotations can be merged")
            if not (isinstance(lp.min, IntImm) and lp.min.value == 0):
                raise fail(prim, what, "the loop must start at 0")
        nests.append(chain)
    depth = len(nests[0])
    outer_dom = loop_domains(paths[0][:common])
    for chain in nests[1:]:
        if len(chain) != depth:
            raise fail(prim, names, "the loops are at different depths below their common "
                       "ancestor")
        for a, b in zip(nests[0], chain):
            if not can_prove(a.extent == b.extent, outer_dom):
                raise fail(prim, f'loops "{a.loop_var.name}" and "{b.loop_var.name}"',
                           f"their extents differ ({a.extent} and {b.extent})")
    positions = [next(k for k, c in enumerate(lca.seq) if c is chain[0]) for chain in nests]
    order = sorted(range(len(nests)), key=lambda k: positions[k])
    first = positions[order[0]]
    if sorted(positions) != list(range(first, first + len(nests))):
        raise fail(prim, names, "the nests must be adjacent statements: moving a nest past "
                   "another statement would change what it computes")
    accesses = [_buffers(chain[0]) for chain in nests]
    for x in range(len(nests)):
        for y in range(len(nests)):
            if x == y:
                continue
            shared = [b for b in accesses[x][1] if any(b is c for c in accesses[y][0])
                      or any(b is c for c in accesses[y][1])]
            if shared:
                raise fail(prim, names, f'the nest of loop "{nests[x][-1].loop_var.name}" '
                           f'writes "{shared[0].name}", which the nest of loop '
                           f'"{nests[y][-1].loop_var.name}" accesses: merging would reorder '
                           "dependent iterations")
    new_vars = [Var(lp.loop_var.name + "_m", lp.loop_var.dtype) for lp in nests[0]]
    dom = dict(outer_dom)
    for v, lp in zip(new_vars, nests[0]):
        dom[v] = Range(IntImm(v.dtype, 0), lp.extent)
    bodies = []
    for k in order:
        vmap = {lp.loop_var: v for lp, v in zip(nests[k], new_vars)}
        bodies.append(rebind_blocks(nests[k][-1].body, vmap, dom))
    new = SeqStmt.flatten(*bodies)
    for v, lp in reversed(list(zip(new_vars, nests[0]))):
        new = For(v, IntImm(v.dtype, 0), lp.extent, ForKind.SERIAL, new)
    items = list(lca.seq[:first]) + [new] + list(lca.seq[first + len(nests):])
    replace(state, paths[0][:common], SeqStmt.flatten(*items))
    return LoopRV(new_vars[-1], loop_rvs[0].func_name)


def _buffers(s) -> tuple:
    reads, writes = [], []

    def visit(x):
        if isinstance(x, BlockRealize):
            reads.extend(buffers_read(x.block))
            writes.extend(buffers_written(x.block))

    walk_stmts(s, visit)
    return reads, writes
