"""Copies of a statement that define their own variables.

Passes that duplicate a loop body (loop partition pieces, vectorized power-of-two pieces,
explicit unrolling) copy it through :func:`fresh_copy`, so every ``for``, ``let`` and
``allocate`` of the result binds a variable no other statement binds.
"""
from __future__ import annotations

import dataclasses
from typing import Dict

from .. import expr as E
from .. import stmt as S
from ..functor import Mutator


class _Fresh(Mutator):
    def __init__(self, vmap: Dict[E.Var, E.PrimExpr]):
        self.vmap = dict(vmap)
        self.bufs: Dict[object, object] = {}

    def _new_var(self, v: E.Var) -> E.Var:
        nv = E.Var(v.name, v.dtype)
        self.vmap[v] = nv
        return nv

    def _buf(self, b):
        nb = self.bufs.get(b)
        if nb is None:
            data = self.vmap.get(b.data, b.data)
            nb = b if data is b.data else dataclasses.replace(b, data=data)
            self.bufs[b] = nb
        return nb

    def visit_Var(self, op: E.Var):
        return self.vmap.get(op, op)

    def visit_For(self, op: S.For):
        mn, ext = self.visit(op.min), self.visit(op.extent)
        v = self._new_var(op.loop_var)
        return S.For(v, mn, ext, op.kind, self.visit(op.body), op.thread_binding, op.annotations)

    def visit_LetStmt(self, op: S.LetStmt):
        value = self.visit(op.value)
        return S.LetStmt(self._new_var(op.var), value, self.visit(op.body))

    def visit_Let(self, op: E.Let):
        value = self.visit(op.value)
        return E.Let(self._new_var(op.var), value, self.visit(op.body))

    def visit_Allocate(self, op: S.Allocate):
        ext = tuple(self.visit(e) for e in op.extents)
        v = self._new_var(op.buffer_var)
        return S.Allocate(v, op.dtype, ext, self.visit(op.condition), self.visit(op.body),
                          op.annotations, op.scope)

    def visit_BufferLoad(self, op: E.BufferLoad):
        return E.BufferLoad(self._buf(op.buffer), tuple(self.visit(i) for i in op.indices))

    def visit_BufferStore(self, op: S.BufferStore):
        return S.BufferStore(self._buf(op.buffer), self.visit(op.value),
                             tuple(self.visit(i) for i in op.indices))


def fresh_copy(stmt: S.Stmt, vmap: Dict[E.Var, E.PrimExpr]) -> S.Stmt:
    """``stmt`` with ``vmap`` substituted and every variable it binds replaced by a new one."""
    return _Fresh(vmap).visit(stmt)
