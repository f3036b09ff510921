"""``fuse``: merge a chain of perfectly nested loops into one."""
from __future__ import annotations

from typing import List, Sequence

from ...ir.dtype import bits as dtype_bits
from .. import op as _op
from ..expr import IntImm, Range, Var
from ..functor import collect_vars
from ..stmt import For, ForKind
from .error import fail
from .state import LoopRV, ScheduleState, loop_domains, rebind_blocks, replace, simplify


def fuse(state: ScheduleState, loop_rvs: Sequence[LoopRV],
         preserve_unit_iters: bool = True) -> LoopRV:
    """Fuse consecutive loops (each the only child of the previous one) into one loop.

    Before::

        for i, j in T.grid(3, 5):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

    After ``fuse(i, j)``::

        for i_j_fused in range(15):
            with T.block("B"):
                vi = T.axis.spatial(3, i_j_fused // 5)
                vj = T.axis.spatial(5, i_j_fused % 5)
                B[vi, vj] = A[vi, vj]
    """
    prim = "fuse"
    if len(loop_rvs) < 1:
        raise fail(prim, "loops", "at least one loop is needed")
    paths = [state.loop_path(rv, prim) for rv in loop_rvs]
    loops: List[For] = [p[-1] for p in paths]
    if len({id(lp) for lp in loops}) != len(loops):
        raise fail(prim, ", ".join(f'loop "{lp.loop_var.name}"' for lp in loops),
                   "a loop is given twice")
    for a, b in zip(loops, loops[1:]):
        if a.body is not b:
            raise fail(prim, f'loops "{a.loop_var.name}" and "{b.loop_var.name}"',
                       "the loops are not consecutive: the inner loop must be the only "
                       "statement in the body of the outer one")
    for lp in loops:
        if lp.kind != ForKind.SERIAL or lp.thread_binding is not None:
            raise fail(prim, f'loop "{lp.loop_var.name}"', "only serial loops can be fused")
        if lp.annotations:
            raise fail(prim, f'loop "{lp.loop_var.name}"', "the loop has annotations "
                       f"({', '.join(map(str, lp.annotations))}); an annotated loop cannot "
                       "be fused")
        if not (isinstance(lp.min, IntImm) and lp.min.value == 0):
            raise fail(prim, f'loop "{lp.loop_var.name}"', "the loop must start at 0")
    inner_vars = {lp.loop_var for lp in loops}

    for lp in loops:
        if collect_vars(lp.extent) & inner_vars:
            raise fail(prim, f'loop "{lp.loop_var.name}"',
                       "its extent depends on another of the fused loops")
    dt = loops[0].loop_var.dtype
    outer_dom = loop_domains(paths[0][:-1])
    total = IntImm(dt, 1)
    for lp in loops:
        total = _op.mul(total, lp.extent)
    if all(isinstance(lp.extent, IntImm) for lp in loops):
        n = 1
        for lp in loops:
            n *= lp.extent.value
        if n >= 1 << (dtype_bits(dt) - 1):  # the product would wrap around
            raise fail(prim, ", ".join(f'loop "{lp.loop_var.name}"' for lp in loops),
                       f"the fused extent {n} does not fit the loops' dtype {dt}")
    total = simplify(total, outer_dom)
    fused = Var("_".join(lp.loop_var.name for lp in loops) + "_fused", dt)
    vmap = {}
    stride = IntImm(dt, 1)
    # an empty loop (a zero extent) empties the fused one: its body never runs, so the loop
    # variables need no recovery from the fused one (which would divide by zero)
    empty = any(isinstance(lp.extent, IntImm) and lp.extent.value == 0 for lp in loops)
    for k in range(len(loops) - 1, -1, -1):
        lp = loops[k]
        if empty:
            vmap[lp.loop_var] = IntImm(dt, 0)
            continue
        # classic's spelling: (fused % (stride * extent)) // stride
        v = _op.floormod(fused, _op.mul(stride, lp.extent)) if k > 0 else fused
        if not _is_one(stride):
            v = _op.floordiv(v, stride)
        if _is_one(lp.extent):  # classic: a unit loop contributes 0, whatever preserve says
            v = IntImm(dt, 0)
        vmap[lp.loop_var] = v
        stride = _op.mul(stride, lp.extent)
    dom = dict(outer_dom)
    dom[fused] = Range(IntImm(dt, 0), total)
    keep = [v for v, r in dom.items() if preserve_unit_iters and _is_one(r.extent)]
    body = rebind_blocks(loops[-1].body, vmap, dom, keep_vars=keep)
    new = For(fused, IntImm(dt, 0), total, ForKind.SERIAL, body, None,
              dict(loops[0].annotations or {}) or None)
    replace(state, paths[0], new)
    return LoopRV(fused, loop_rvs[0].func_name)


def _is_one(e) -> bool:
    return isinstance(e, IntImm) and e.value == 1
