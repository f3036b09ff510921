"""Give each reduction block's ``T.init`` its own loop nest before the first reduction loop.

Before (``B[n] = sum_k ...``)::

    for n, k in T.grid(4223, 4096):
        with T.block("B"):
            v_n, v_k = T.axis.remap("SR", [n, k])
            with T.init():
                B[v_n] = T.float32(0)
            B[v_n] = B[v_n] + A[v_k] * W[v_n - v_k]

After::

    for n in range(4223):
        for ... (spatial loops below the first reduction loop, copied as ``<name>_init``)
            with T.block("B_init"):
                v_n = T.axis.spatial(4223, n)
                B[v_n] = T.float32(0)
        for k in range(4096):
            with T.block("B"):
                v_n, v_k = T.axis.remap("SR", [n, k])
                B[v_n] = B[v_n] + A[v_k] * W[v_n - v_k]

When a loop variable feeds both spatial and reduction iterators, or the predicate mixes them,
the init stays with the block and block lowering guards it with ``if`` (reduce vars at their
minimum), which is always correct.
"""
from __future__ import annotations

from typing import Dict, List

from ..expr import And, IntImm, IterVar, IterVarType, Var
from ..functor import Mutator, collect_vars, substitute
from ..stmt import Block, BlockRealize, For, SeqStmt


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


def split_init(realize: BlockRealize, loops: List[For]):
    """``hoist_init`` at the first reduction loop, or ``None`` when it cannot be done."""
    r = hoist_init(realize, loops)
    return None if isinstance(r, str) else r


class _LowerInit(Mutator):
    def __init__(self):
        self.loops: List[For] = []
        self.pending: Dict[int, list] = {}

    def visit_For(self, loop):
        self.loops.append(loop)
        body = self.visit(loop.body)
        self.loops.pop()
        new = loop if body is loop.body else For(
            loop.loop_var, loop.min, loop.extent, loop.kind, body, loop.thread_binding,
            loop.annotations)
        inits = self.pending.pop(id(loop), None)
        return SeqStmt.flatten(*inits, new) if inits else new

    def visit_BlockRealize(self, realize):
        block = realize.block
        if block.init is None:
            return self.generic(realize)
        r = split_init(realize, self.loops)
        if r is None:
            return self.generic(realize)
        idx, nest, update = r
        self.pending.setdefault(id(self.loops[idx]), []).append(nest)
        return self.generic(update)


def lower_reduction_init(body, func=None):
    """Hoist every separable reduction init (see the module docstring)."""
    return _LowerInit().visit(body)
