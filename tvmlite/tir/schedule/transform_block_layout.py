"""``transform_block_layout``: re-express a block's iteration space through an index map."""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, Union

from .. import op as _op
from ..expr import BufferLoad, IntImm, IterVar, PrimExpr, Range, Var
from ..functor import Mutator
from ..index_map import IndexMap, as_index_map, linear_form
from ..stmt import BlockRealize, BufferRegion, BufferStore, For, ForKind
from .error import fail
from .state import BlockRV, ScheduleState, const_value, is_true, replace
from .transform_layout import simplify_nontrivial


def transform_block_layout(state: ScheduleState, block_rv: BlockRV,
                           index_map: Union[IndexMap, Callable]) -> IndexMap:
    """Replace the loops of a block by loops over ``index_map`` of its iterators.

    The block must be the only thing under its loops, each loop (from 0) bound directly to
    one block iterator; the map must be a bijection where each output is a mixed-radix
    combination ``x_0 * e_1 * ... * e_k + ... + x_k`` of iterators of one kind (spatial
    or reduction).

    Before::

        for i, j in T.grid(128, 128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * 2.0

    After ``transform_block_layout(block_B, lambda i, j: (i * 128 + j,))``::

        for i in range(16384):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi // 128, vi % 128] = A[vi // 128, vi % 128] * 2.0

    Returns the index map as the trace records it.
    """
    prim = "transform_block_layout"
    path = state.block_path(block_rv, prim)
    realize = path[-1]
    block = realize.block
    what = f'block "{block.name_hint}"'
    if not is_true(realize.predicate):
        raise fail(prim, what, "the block has a predicate")
    # the loop nest holding nothing but the block
    top = len(path) - 1
    while top > 0 and isinstance(path[top - 1], For) and path[top - 1].body is path[top]:
        top -= 1
    loops = [s for s in path[top:-1]]
    loop_vars = [lp.loop_var for lp in loops]
    ivs = list(block.iter_vars)
    for iv, val in zip(ivs, realize.iter_values):
        k = next((k for k, v in enumerate(loop_vars) if v is val), None)
        if k is None or const_value(loops[k].min) != 0:
            raise fail(prim, what, f'iterator "{iv.var.name}" is not bound to a loop of its '
                       "own starting at 0 (the binding must be trivial)")
    if len({id(v) for v in realize.iter_values}) != len(ivs) or len(loops) != len(ivs):
        raise fail(prim, what, "each loop above the block must bind exactly one block "
                   "iterator (the binding must be trivial)")
    dtype = ivs[0].var.dtype if ivs else "int32"
    try:
        given, _ = as_index_map(index_map, len(ivs), dtype)
    except ValueError as err:
        raise fail(prim, what, str(err)) from None
    if len(given.initial_indices) != len(ivs):
        raise fail(prim, what, f"the index map takes {len(given.initial_indices)} indices, the "
                   f"block has {len(ivs)} iterators")
    inputs = list(given.initial_indices)
    ext_of = {}
    kind_of = {}
    for v, iv in zip(inputs, ivs):
        ext = const_value(iv.dom.extent) if iv.dom is not None else None
        if ext is None or const_value(iv.dom.min) != 0:
            raise fail(prim, what, f'iterator "{iv.var.name}" has no constant domain from 0')
        ext_of[v], kind_of[v] = ext, iv.iter_type
    used: Dict[Var, int] = {}
    new_ivs: List[IterVar] = []
    inverse: Dict[Var, PrimExpr] = {}
    for k, e in enumerate(given.final_indices):
        lin = linear_form(e, inputs)
        if lin is None or lin[1] != 0 or not lin[0] or any(c < 0 for c in lin[0].values()):
            raise fail(prim, what, f"output {k} of the index map, {e!r}, is not an affine "
                       "combination of the block iterators")
        terms = sorted(lin[0].items(), key=lambda t: t[1])
        stride = 1
        for v, c in terms:
            if c != stride and ext_of[v] != 1:
                raise fail(prim, what, f"the index map is not bijective: output {k}, {e!r}, "
                           f"gives {v.name} stride {c} where {stride} is needed")
            stride = c * ext_of[v]
        kinds = {kind_of[v] for v, _ in terms}
        if len(kinds) != 1:
            raise fail(prim, what, f"output {k} of the index map, {e!r}, mixes spatial and "
                       "reduction iterators")
        for v, _ in terms:
            used[v] = used.get(v, 0) + 1
        nv = Var(f"v{k}", dtype)
        dom = Range(_op.const(0, dtype), _op.const(stride, dtype))
        new_ivs.append(IterVar(dom, nv, kinds.pop()))
        ndom = {nv: dom}
        for j, (v, c) in enumerate(terms):
            if j == len(terms) - 1:
                x = _op.floordiv(nv, _op.const(c, dtype))
            else:
                x = _op.floordiv(_op.floormod(nv, _op.const(c * ext_of[v], dtype)),
                                 _op.const(c, dtype))
            inverse[v] = simplify_nontrivial(x, ndom)
    if any(used.get(v, 0) != 1 for v in inputs):
        raise fail(prim, what, "the index map is not bijective: each block iterator must "
                   "appear in exactly one output")
    vmap = {iv.var: inverse[v] for v, iv in zip(inputs, ivs)}
    dom = {iv.var: iv.dom for iv in new_ivs}
    new_block = _Simplifier(vmap, dom).visit(dataclasses.replace(block,
                                                                 iter_vars=tuple(new_ivs)))
    new_loops = [Var(f"ax{k}", dtype) for k in range(len(new_ivs))]
    stmt = BlockRealize(tuple(new_loops), IntImm("bool", 1), new_block)
    for lv, iv in reversed(list(zip(new_loops, new_ivs))):
        stmt = For(lv, iv.dom.min, iv.dom.extent, ForKind.SERIAL, stmt)
    replace(state, path[:top + 1], stmt)
    return given


class _Simplifier(Mutator):
    """Substitute the old iterators and simplify buffer indices and regions under the new
    iterators' domains."""

    def __init__(self, vmap: Dict[Var, PrimExpr], dom: Dict[Var, Range]):
        self.vmap, self.dom = vmap, dom

    def visit_Var(self, v):
        return self.vmap.get(v, v)

    def _idx(self, indices):
        return tuple(simplify_nontrivial(self.visit(i), self.dom) for i in indices)

    def visit_BufferLoad(self, e):
        return BufferLoad(e.buffer, self._idx(e.indices))

    def visit_BufferStore(self, s):
        return BufferStore(s.buffer, self.visit(s.value), self._idx(s.indices))

    def visit_BufferRegion(self, r):
        return BufferRegion(r.buffer, tuple(
            Range(simplify_nontrivial(self.visit(x.min), self.dom), self.visit(x.extent))
            for x in r.region))

    def visit_IterVar(self, iv):
        return iv

