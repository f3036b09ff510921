"""relay.ExprVisitor / ExprMutator over ADT matches, constructors and references: every
node is visited, a rewrite reaches inside match clauses and references, the rewritten
program runs (compared with numpy), and an unchanged node is returned as it is."""
import numpy as np

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay import ExprMutator, ExprVisitor

rng = np.random.default_rng(3)


class _Kinds(ExprVisitor):
    def __init__(self):
        super().__init__()
        self.seen = []

    def visit(self, expr):
        if id(expr) not in self.memo_map:
            self.seen.append(type(expr).__name__)
        return super().visit(expr)


class _ScaleConstants(ExprMutator):
    """Every float constant times 2."""

    def visit_constant(self, const):
        return relay.const(const.data.numpy() * 2)


def _program(p, data):
    _, some, none = p.mod.get_type("Option")
    v = relay.Var("v")
    r = relay.Var("r")
    m = relay.Match(some(relay.const(data)), [
        relay.Clause(relay.PatternConstructor(some, [relay.PatternVar(v)]), v),
        relay.Clause(relay.PatternWildcard(), relay.const(np.zeros_like(data)))])
    # let r = ref(match ...); r := !r + 1.5; !r
    write = relay.RefWrite(r, relay.RefRead(r) + relay.const(np.float32(1.5)))
    tmp = relay.Var("tmp")
    return relay.Let(r, relay.RefCreate(m), relay.Let(tmp, write, relay.RefRead(r)))


def test_visitor_reaches_match_constructor_and_refs():
    p = relay.prelude.Prelude(tvm.IRModule({}))
    kinds = _Kinds()
    kinds.visit(_program(p, np.ones((2,), "float32")))
    for k in ("Match", "Constructor", "RefCreate", "RefRead", "RefWrite"):
        assert k in kinds.seen, k


def test_mutator_rewrites_inside_match_and_refs_and_keeps_flags():
    p = relay.prelude.Prelude(tvm.IRModule({}))
    data = rng.standard_normal((3, 5)).astype("float32")
    prog = _program(p, data)
    new = _ScaleConstants().visit(prog)
    assert new is not prog
    p.mod["main"] = relay.Function([], new)
    out = relay.create_executor("vm", mod=p.mod, target="llvm").evaluate()()
    np.testing.assert_allclose(out.numpy(), data * 2 + 3.0, rtol=1e-6)
    # nothing to rewrite: the same node back, the match's completeness kept
    _, _, nil = p.mod.get_type("List")
    for complete in (True, False):
        m = relay.Match(nil(), [], complete=complete)
        assert ExprMutator().visit(m) is m
        m2 = relay.Match(relay.const(1.0), [relay.Clause(relay.PatternWildcard(),
                                                         relay.const(2.0))], complete)
        out = _ScaleConstants().visit(m2)
        assert out is not m2 and out.complete == complete
