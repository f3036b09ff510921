"""Statement helpers shared by ``tir.schedule`` and ``tir.transform``, which both sit above
this module (neither imports the other): reduction-init hoisting (``decompose_reduction`` and
the ``LowerReductionInit`` pass) and ``storage_align`` strides (the primitive, the pass and
buffer compaction).
"""
from __future__ import annotations

from typing import Dict, List, Sequence

from . import op as _op
from .expr import And, IntImm, IterVar, IterVarType, PrimExpr, Var
from .functor import collect_vars, substitute
from .stmt import Block, BlockRealize, For

ALIGN_ATTR = "buffer_dim_align"  # block annotation written by ``Schedule.storage_align``


def _conjuncts(e) -> list:
    if isinstance(e, And):
        return _conjuncts(e.a) + _conjuncts(e.b)
    return [e]


def hoist_init(realize: BlockRealize, loops: List[For], index=None):
    """Separate ``realize``'s init into its own loop nest placed before ``loops[index]``.

    ``loops`` are the loops around the block, outermost first. ``index`` None picks the first
    loop that iterates over a reduction iterator. Returns ``(index, init_nest,
    update_realize)``, or a string saying why the init cannot be hoisted there. This is the
    one implementation behind both this pass and ``Schedule.decompose_reduction``.
    """
    block = realize.block
    red_loop_vars, sp_loop_vars = set(), set()
    sp_ivs = []
    for iv, value in zip(block.iter_vars, realize.iter_values):
        vs = collect_vars(value)
        if iv.iter_type == IterVarType.CommReduce:
            red_loop_vars |= vs
        else:
            sp_loop_vars |= vs
            sp_ivs.append((iv, value))
    loop_vars = [lp.loop_var for lp in loops]
    if index is None:
        index = next((i for i, v in enumerate(loop_vars) if v in red_loop_vars), None)
        if index is None:
            return "no loop iterates over a reduction iterator"
    for lp in loops[:index]:
        if lp.loop_var in red_loop_vars:
            return (f'loop "{lp.loop_var.name}" above the decomposition point iterates over '
                    "a reduction iterator, so the init would run more than once per element")
    inner = loops[index:]
    inner_vars = {lp.loop_var for lp in inner}
    for lp in inner:
        unit = isinstance(lp.extent, IntImm) and lp.extent.value == 1
        if lp.loop_var not in red_loop_vars | sp_loop_vars and not unit:
            return (f'loop "{lp.loop_var.name}" binds no iterator of the block, so the '
                    "update runs more than once per init")
    both = red_loop_vars & sp_loop_vars & inner_vars
    if both:
        return (f'loop "{next(iter(both)).name}" feeds both spatial and reduction iterators')
    # The init runs where the block runs at the reduction loops' first iteration, so a
    # conjunct over reduction loops is kept with those loops at their minimum: it may still
    # exclude spatial points through outer loops (``io * 4 + k < 16`` excludes ``io == 4``).
    at_min = {lp.loop_var: lp.min for lp in inner if lp.loop_var in red_loop_vars}
    kept = []
    for c in _conjuncts(realize.predicate):
        cv = collect_vars(c) & inner_vars
        if cv & red_loop_vars:
            if cv & sp_loop_vars:
                return "the block predicate mixes spatial and reduction loops"
            c = substitute(c, at_min)
            cv = collect_vars(c) & inner_vars
        if cv - sp_loop_vars:
            return "the block predicate uses a loop that binds no block iterator"
        if not (isinstance(c, IntImm) and c.value):
            kept.append(c)
    # copy the spatial loops below the hoist point, with fresh variables
    vmap: Dict[Var, Var] = {}
    copied = []
    for lp in inner:
        if lp.loop_var in sp_loop_vars:
            nv = Var(lp.loop_var.name + "_init", lp.loop_var.dtype)
            vmap[lp.loop_var] = nv
            copied.append((lp, nv))
    pred = IntImm("bool", 1)
    for c in kept:
        pred = c if (isinstance(pred, IntImm) and pred.value) else And(pred, c)
    # the init block gets its own iterators (blocks never share iterator variables)
    ivmap = {iv.var: Var(iv.var.name, iv.var.dtype) for iv, _ in sp_ivs}
    init_ivs = tuple(IterVar(iv.dom, ivmap[iv.var], iv.iter_type, iv.thread_tag)
                     for iv, _ in sp_ivs)
    init_block = Block(
        init_ivs, (), substitute(block.writes, ivmap), block.name_hint + "_init",
        substitute(block.init, ivmap), None, (), (), block.annotations,
    )
    nest = BlockRealize(
        tuple(substitute(v, vmap) for _, v in sp_ivs), substitute(pred, vmap), init_block
    )
    for lp, nv in reversed(copied):
        nest = For(nv, substitute(lp.min, vmap), substitute(lp.extent, vmap), lp.kind, nest,
                   lp.thread_binding, lp.annotations)
    update = BlockRealize(
        realize.iter_values, realize.predicate,
        Block(block.iter_vars, block.reads, block.writes, block.name_hint, block.body, None,
              block.alloc_buffers, block.match_buffers, block.annotations),
    )
    return index, nest, update


def aligned_strides(shape: Sequence[PrimExpr], aligns: Sequence[Sequence[int]]
                    ) -> List[PrimExpr]:
    """Strides (in elements) of a buffer of ``shape`` with ``aligns`` entries ``(axis,
    factor, offset)`` applied, innermost dimension contiguous."""
    by_axis = {a: (f, o) for a, f, o in aligns}
    strides: List[PrimExpr] = [IntImm("int32", 1)] * len(shape)
    acc: PrimExpr = IntImm("int32", 1)
    for d in range(len(shape) - 1, -1, -1):
        if d in by_axis:
            f, o = by_axis[d]
            # smallest s >= acc with s % f == o
            acc = _op.add(_op.mul(_op.floordiv(_op.add(_op.sub(acc, o), f - 1), f), f), o)
        strides[d] = acc
        acc = _op.mul(acc, shape[d])
    return strides
