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

from ..functor import Mutator
from ..stmt import BlockRealize, For, SeqStmt
from ..stmt_util import hoist_init


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
