"""Simplify every expression of a statement with the loop ranges and branch conditions known.

- ``For``: the loop variable is bound to its range; extent 0 (or less) drops the loop; extent 1
  substitutes the variable by ``min`` unless the loop is non-serial, annotated or thread-bound.
- ``IfThenElse``: the then-branch is simplified assuming the condition, the else-branch
  assuming its negation; a provably true/false condition (``T.likely`` included) keeps only the
  taken branch.
- ``LetStmt`` variables get the bound of their value; ``thread_extent`` attributes bind the
  thread variable; block iterators are bound to their domains but left as they are.
"""
from __future__ import annotations

from typing import Optional

from ...arith.analyzer import Analyzer, is_index_dtype
from ..expr import Call, IntImm, IterVar, Not, PrimExpr, Range
from ..functor import Mutator
from ..stmt import (
    AttrStmt,
    Block,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    SeqStmt,
    Stmt,
    is_no_op,
)
from .function_pass import PrimFuncPass, stmt_pass


def _no_op() -> Evaluate:
    return Evaluate(IntImm("int32", 0))


class _StmtSimplifier(Mutator):
    def __init__(self, analyzer: Analyzer):
        self.ana = analyzer

    def visit(self, x):
        if isinstance(x, PrimExpr):
            return self.ana.simplify(x)
        return super().visit(x)

    def visit_For(self, op: For):
        mn, ext = self.ana.simplify(op.min), self.ana.simplify(op.extent)
        if isinstance(ext, IntImm) and ext.value <= 0:
            return _no_op()
        keep = (op.kind != ForKind.SERIAL or bool(op.annotations)
                or op.thread_binding is not None)
        if isinstance(ext, IntImm) and ext.value == 1 and not keep:
            self.ana.bind(op.loop_var, mn)
            return self.visit(op.body)
        # The range holds inside the body only: bound by non-constant expressions, it also says
        # the loop runs (``min <= max``), which must not leak to the statements after the loop.
        with self.ana.constraint_scope(True):
            self.ana.bind(op.loop_var, Range(mn, ext))
            body = self.visit(op.body)
        if is_no_op(body):
            return body
        if mn is op.min and ext is op.extent and body is op.body:
            return op
        return For(op.loop_var, mn, ext, op.kind, body, op.thread_binding, op.annotations)

    def visit_LetStmt(self, op: LetStmt):
        value = self.ana.simplify(op.value)
        if is_index_dtype(value.dtype):
            self.ana.update(op.var, self.ana.const_int_bound(value), override=True)
        body = self.visit(op.body)
        if value is op.value and body is op.body:
            return op
        return LetStmt(op.var, value, body)

    def visit_AttrStmt(self, op: AttrStmt):
        value = self.visit(op.value)
        if op.attr_key in ("thread_extent", "virtual_thread") and isinstance(op.node, IterVar):
            self.ana.bind(op.node.var, Range(IntImm(value.dtype, 0), value))
        body = self.visit(op.body)
        if value is op.value and body is op.body:
            return op
        return AttrStmt(op.node, op.attr_key, value, body)

    def visit_IfThenElse(self, op: IfThenElse):
        cond = self.ana.simplify(op.condition)
        if isinstance(cond, IntImm):
            if cond.value:
                return self.visit(op.then_case)
            return self.visit(op.else_case) if op.else_case is not None else _no_op()
        inner = cond.args[0] if isinstance(cond, Call) and cond.op == "likely" else cond
        with self.ana.constraint_scope(inner):
            then_case = self.visit(op.then_case)
        else_case = None
        if op.else_case is not None:
            with self.ana.constraint_scope(Not(inner)):
                else_case = self.visit(op.else_case)
            if is_no_op(else_case):
                else_case = None
        if is_no_op(then_case) and else_case is None:
            return then_case
        if cond is op.condition and then_case is op.then_case and else_case is op.else_case:
            return op
        return IfThenElse(cond, then_case, else_case)

    def visit_Block(self, op: Block):
        for iv in op.iter_vars:
            if iv.dom is not None:
                self.ana.bind(iv.var, iv.dom)
        reads, writes = self.visit(op.reads), self.visit(op.writes)
        init = self.visit(op.init) if op.init is not None else None
        body = self.visit(op.body)
        match = self.visit(op.match_buffers)
        if reads is op.reads and writes is op.writes and init is op.init \
                and body is op.body and match is op.match_buffers:
            return op
        return Block(op.iter_vars, reads, writes, op.name_hint, body, init, op.alloc_buffers,
                     match, op.annotations)

    def visit_SeqStmt(self, op: SeqStmt):
        seq = tuple(self.visit(s) for s in op.seq)
        if all(a is b for a, b in zip(seq, op.seq)):
            return op
        return SeqStmt.flatten(*seq)


def simplify_stmt(stmt: Stmt, analyzer: Optional[Analyzer] = None) -> Stmt:
    """Simplify ``stmt`` (see the module docstring); ``analyzer`` may carry outer facts."""
    return _StmtSimplifier(analyzer if analyzer is not None else Analyzer()).visit(stmt)


def Simplify() -> PrimFuncPass:  # noqa: N802  (TVM's pass-constructor naming)
    """The ``tir.Simplify`` pass: PrimFunc -> PrimFunc, IRModule -> IRModule."""
    return stmt_pass(lambda body, func: simplify_stmt(body), "tir.Simplify")
