"""The Simplify pass: loop ranges and branch conditions feed the expression simplifier."""
from tvmlite import tir
from tvmlite.arith import Analyzer
from tvmlite.ir import IRModule, Range, structural_equal
from tvmlite.tir import expr as E
from tvmlite.tir.stmt import (
    AttrStmt,
    Block,
    BlockRealize,
    BufferRegion,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    SeqStmt,
)
from tvmlite.tir.transform.simplify import Simplify, simplify_stmt


def c(v, dtype="int32"):
    return tir.const(v, dtype)


def check(got, want):
    assert structural_equal(got, want), (got, want)


A = tir.decl_buffer((4224,), "float32", name="A")
B = tir.decl_buffer((4224,), "float32", name="B")


def loop(var, extent, body, kind=ForKind.SERIAL, **kw):
    return For(var, c(0), c(extent) if isinstance(extent, int) else extent, kind, body, **kw)


def store(idx, value=None):
    return BufferStore(A, value if value is not None else B[idx], (idx,))


def test_guard_removed_inside_loop_ranges():
    no, ni = tir.Var("n_outer"), tir.Var("n_inner")
    idx = no * 8 + ni
    body = IfThenElse(tir.likely(idx < 4223), store(idx))
    got = simplify_stmt(loop(no, 527, loop(ni, 8, body)))
    check(got, loop(no, 527, loop(ni, 8, store(idx))))
    # one more outer iteration: the guard must stay
    kept = simplify_stmt(loop(no, 528, loop(ni, 8, body)))
    check(kept, loop(no, 528, loop(ni, 8, body)))


def test_false_condition_keeps_else_branch():
    i = tir.Var("i")
    s = IfThenElse(i < 0, store(i), store(i + 1))
    check(simplify_stmt(loop(i, 8, s)), loop(i, 8, store(i + 1)))
    s = IfThenElse(i >= 8, store(i))
    check(simplify_stmt(loop(i, 8, s)), Evaluate(c(0)))


def test_branches_simplified_under_condition():
    i, n = tir.Var("i"), tir.Var("n")
    s = IfThenElse(i < n, store(tir.min(i, n - 1)), store(tir.max(i, n)))
    got = simplify_stmt(loop(i, 16, s))
    check(got, loop(i, 16, IfThenElse(E.LT(i, n), store(i), store(i))))


def test_extent_one_and_zero_loops():
    i, j = tir.Var("i"), tir.Var("j")
    got = simplify_stmt(loop(i, 1, loop(j, 4, store(i * 4 + j))))
    check(got, loop(j, 4, store(j)))
    check(simplify_stmt(loop(i, 0, store(i))), Evaluate(c(0)))
    seq = SeqStmt((loop(i, 0, store(i)), loop(j, 2, store(j))))
    check(simplify_stmt(seq), loop(j, 2, store(j)))


def test_extent_one_loop_with_kind_or_annotation_is_kept():
    i = tir.Var("i")
    # the loop stays; its variable (a single value) folds inside the body
    par = loop(i, 1, store(i), kind=ForKind.PARALLEL)
    check(simplify_stmt(par), loop(i, 1, store(c(0)), kind=ForKind.PARALLEL))
    ann = loop(i, 1, store(i), annotations={"pragma_unroll_explicit": 1})
    check(simplify_stmt(ann), loop(i, 1, store(c(0)), annotations={"pragma_unroll_explicit": 1}))


def test_symbolic_loop_extent():
    i, n = tir.Var("i"), tir.Var("n")
    body = IfThenElse(i < n, store(i))
    got = simplify_stmt(For(i, c(0), n, ForKind.SERIAL, body))
    check(got, For(i, c(0), n, ForKind.SERIAL, store(i)))


def test_let_and_thread_extent():
    i, v = tir.Var("i"), tir.Var("v")
    s = LetStmt(v, tir.floormod(i, 4), IfThenElse(v < 4, store(v)))
    check(simplify_stmt(loop(i, 16, s)),
          loop(i, 16, LetStmt(v, tir.floormod(i, 4), store(v))))
    tx = tir.IterVar(Range(c(0), c(32)), tir.Var("threadIdx.x"), tir.IterVar.ThreadIndex,
                     "threadIdx.x")
    s = AttrStmt(tx, "thread_extent", c(32), IfThenElse(tx.var < 32, store(tx.var)))
    check(simplify_stmt(s), AttrStmt(tx, "thread_extent", c(32), store(tx.var)))


def test_block_iter_vars_bound_but_kept():
    i, vi = tir.Var("i"), tir.Var("vi")
    iv = tir.IterVar(Range(c(0), c(16)), vi, tir.IterVar.DataPar)
    body = store(vi, B[tir.floordiv(vi * 4 + 3, 4)])
    blk = Block((iv,), (BufferRegion(B, (Range(vi + 0, c(1)),)),),
                (BufferRegion(A, (Range(vi, c(1)),)),), "blk", body)
    real = BlockRealize((i * 1,), tir.likely(i < 16), blk)
    got = simplify_stmt(loop(i, 16, real))
    want_blk = Block((iv,), (BufferRegion(B, (Range(vi, c(1)),)),),
                     (BufferRegion(A, (Range(vi, c(1)),)),), "blk", store(vi, B[vi]))
    check(got, loop(i, 16, BlockRealize((i,), c(True, "bool"), want_blk)))
    assert got.body.block.iter_vars[0] is iv


def test_expressions_everywhere_are_simplified():
    i = tir.Var("i")
    s = store((i + 1) * 2 - 2, B[i * 4 - i * 3] + tir.const(1.0, "float32") * 2.0)
    got = simplify_stmt(loop(i, 8, s))
    check(got, loop(i, 8, store(i * 2, B[i] + tir.const(2.0, "float32"))))


def test_outer_analyzer_facts_are_used():
    i, n = tir.Var("i"), tir.Var("n")
    ana = Analyzer()
    ana.bind(n, Range(c(1), c(100)))
    s = IfThenElse(n >= 1, store(i))
    check(simplify_stmt(s, ana), store(i))


def test_pass_on_primfunc_and_module():
    i = tir.Var("i")
    f = tir.PrimFunc((A.data, B.data), loop(i, 8, IfThenElse(i < 8, store(i))),
                     buffer_map={A.data: A, B.data: B})
    out = Simplify()(f)
    assert isinstance(out, tir.PrimFunc)
    check(out.body, loop(i, 8, store(i)))
    mod = Simplify()(IRModule({"main": f}))
    check(mod["main"].body, loop(i, 8, store(i)))
    # already simple: the very same function comes back
    assert Simplify()(out) is out
