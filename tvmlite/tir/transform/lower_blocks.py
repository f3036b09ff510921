"""Replace blocks by their bodies: bind iterators, guard predicates, allocate buffers.

Before::

    with T.block("C"):
        v_i = T.axis.spatial(100, i_0 * 8 + i_1)
        T.where(i_0 * 8 + i_1 < 100)
        C[v_i] = A[v_i] + B[v_i]

After::

    if T.likely(i_0 * 8 + i_1 < 100):
        C[i_0 * 8 + i_1] = A[i_0 * 8 + i_1] + B[i_0 * 8 + i_1]

A remaining ``T.init`` (one not hoisted by ``lower_reduction_init``) runs under
``if`` all reduction iterators are at their minimum. ``alloc_buffers`` become ``Allocate``.
"""
from __future__ import annotations

from typing import Dict

from .. import op as _op
from ..expr import IntImm, IterVarType
from ..functor import Mutator, collect_vars, substitute
from ..stmt import Allocate, IfThenElse, SeqStmt
from ..stmt_util import ALIGN_ATTR
from .flatten_buffer import flat_extent
from .lower_match_buffer import lower_match_buffer
from .storage_align import collect_aligns

# Allocate annotation: loops that carry a reduction into the buffer across their iterations.
# Buffer compaction must not move the allocation inside them (it would restart the sum).
CARRY_ATTR = "tvmlite.carry_loops"


class _LowerBlocks(Mutator):
    def __init__(self, aligns=None):
        self.aligns = aligns or {}
        self.carry: Dict[int, set] = {}

    def visit_BlockRealize(self, realize):
        block = realize.block
        vmap = {iv.var: v for iv, v in zip(block.iter_vars, realize.iter_values)}
        red_loops = set()
        for iv, v in zip(block.iter_vars, realize.iter_values):
            if iv.iter_type == IterVarType.CommReduce:
                red_loops |= collect_vars(v)
        if red_loops:
            for w in block.writes:
                self.carry.setdefault(id(w.buffer.data), set()).update(red_loops)
        body = self.visit(block.body)
        if block.init is not None:
            first = IntImm("bool", 1)
            for iv in block.iter_vars:
                if iv.iter_type == IterVarType.CommReduce:
                    first = _op.logical_and(first, _op.eq(iv.var, iv.dom.min))
            init = self.visit(block.init)
            body = SeqStmt.flatten(
                init if (isinstance(first, IntImm) and first.value) else IfThenElse(first, init),
                body)
        body = substitute(body, vmap)
        for buf in reversed(block.alloc_buffers):
            extents = (flat_extent(buf),) if buf.strides else buf.shape
            align = self.aligns.get(id(buf))
            anns = {ALIGN_ATTR: [list(a) for a in align[1]]} if align else {}
            if self.carry.get(id(buf.data)):
                anns[CARRY_ATTR] = tuple(self.carry[id(buf.data)])
            anns = anns or None
            body = Allocate(buf.data, buf.dtype, extents, IntImm("bool", 1), body, anns,
                            buf.scope())
        pred = realize.predicate
        if not (isinstance(pred, IntImm) and pred.value):
            body = IfThenElse(_op.likely(pred), body)
        return body


def lower_blocks(body, func=None):
    """Turn every BlockRealize into plain statements (see the module docstring); matched
    buffer regions (``T.match_buffer`` in a block) first become accesses of their sources."""
    body = lower_match_buffer(body)
    return _LowerBlocks(collect_aligns(body)).visit(body)
