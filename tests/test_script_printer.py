"""TVMScript printer: expressions, statements and functions print as modern TVM does."""
import tvmlite as tvm
from tvmlite import tir
from tvmlite.script.printer import astext
from tvmlite.tir import op
from tvmlite.tir.expr import (
    Broadcast,
    BufferLoad,
    FloatImm,
    IntImm,
    IterVar,
    Let,
    Max,
    Mod,
    Ramp,
    Range,
    Select,
    SizeVar,
    StringImm,
    Var,
)
from tvmlite.tir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    SeqStmt,
    While,
)


def i32(v):
    return IntImm("int32", v)


def test_constants():
    assert repr(i32(5)) == "5"
    assert repr(IntImm("int64", 5)) == "T.int64(5)"
    assert repr(IntImm("int8", -3)) == "T.int8(-3)"
    assert repr(FloatImm("float32", 0.0)) == "T.float32(0)"
    assert repr(FloatImm("float32", 1.5)) == "T.float32(1.5)"
    assert repr(FloatImm("float64", float("inf"))) == 'T.float64("inf")'
    assert repr(IntImm("bool", 1)) == "T.bool(True)"
    assert repr(StringImm("a\"b")) == '"a\\"b"'
    assert repr([i32(100)]) == "[100]"


def test_arithmetic_and_precedence():
    a, b, c = Var("a"), Var("b"), Var("c")
    assert repr(a + b * c) == "a + b * c"
    assert repr((a + b) * c) == "(a + b) * c"
    assert repr(a - (b - c)) == "a - (b - c)"
    assert repr(a - b - c) == "a - b - c"
    assert repr(a // 4 + a % 4) == "a // 4 + a % 4"
    assert repr(op.truncdiv(a, b)) == "T.truncdiv(a, b)"
    assert repr(Mod(a, b)) == "T.truncmod(a, b)"
    assert repr(op.min(a, b)) == "T.min(a, b)"
    assert repr(Max(a, i32(0))) == "T.max(a, 0)"
    assert repr(a * -2) == "a * -2"
    x = Var("x", "float32")
    assert repr(x / 2.0) == "x / T.float32(2)"
    assert repr(x / (x + 1.0)) == "x / (x + T.float32(1))"


def test_logic():
    n, k = Var("n"), Var("k")
    e = op.any(k < 0, n - k < 0, 128 <= n - k)
    assert repr(e) == "k < 0 or n - k < 0 or n - k >= 128"
    assert repr(op.all(n >= 0, op.logical_not(k == 1))) == "n >= 0 and not k == 1"
    assert repr(op.logical_and(op.logical_or(n < 1, k < 1), n < 2)) == "(n < 1 or k < 1) and n < 2"
    assert repr(op.logical_or(n < 1, op.logical_or(k < 1, n < 2))) == \
        "n < 1 or (k < 1 or n < 2)"
    assert repr(op.eq(op.lt(n, k), IntImm("bool", 1))) == "(n < k) == T.bool(True)"


def test_calls_and_vectors():
    x = Var("x", "float32")
    i = Var("i")
    A = tir.decl_buffer((128,), "float32", "A")
    assert repr(op.exp(x)) == "T.exp(x)"
    assert repr(op.if_then_else(i < 3, x, 0.0)) == "T.if_then_else(i < 3, x, T.float32(0))"
    assert repr(op.likely(i < 3)) == "T.likely(i < 3)"
    assert repr(op.shift_right(i, 8)) == "T.shift_right(i, 8)"
    assert repr(op.call_extern("float32", "f", x, 1)) == 'T.call_extern("float32", "f", x, 1)'
    assert repr(op.call_packed("g", A, i)) == 'T.call_packed("g", A, i)'
    assert repr(op.cast("int32", x)) == 'T.Cast("int32", x)'
    assert repr(Select(i < 1, x, x)) == "T.Select(i < 1, x, x)"
    assert repr(Ramp(i, i32(2), 4)) == "T.Ramp(i, 2, 4)"
    assert repr(Broadcast(x, 8)) == "T.Broadcast(x, 8)"
    assert repr(A[i]) == "A[i]"
    assert repr(BufferLoad(A, (Ramp(i * 8, i32(1), 8),))) == "A[i * 8:i * 8 + 8]"
    assert repr(Let(i, i32(1), i + 1)) == "T.Let(i + 1, where={i: 1})"
    assert repr(tir.call_intrin("int32", "vta.coproc_sync")) == "T.tir.vta.coproc_sync()"
    assert repr(IterVar(Range(i32(0), i32(10)), Var("k"), IterVar.CommReduce)) == \
        'T.iter_var(k, T.Range(0, 10), "CommReduce", "")'


def test_same_name_vars_are_renamed():
    a1, a2 = Var("x.outer"), Var("x.outer")
    assert repr(a1 + a2) == "x_outer + x_outer_1"


def test_statements():
    A = tir.decl_buffer((16,), "float32", "A")
    i, j, x = Var("i"), Var("j"), Var("x")
    store = BufferStore(A, A[i * 4 + j] + 1.0, (i * 4 + j,))
    nest = For(i, i32(0), i32(4), ForKind.SERIAL,
               For(j, i32(0), i32(4), ForKind.SERIAL, store))
    assert astext(nest) == ("for i, j in T.grid(4, 4):\n"
                            "    A[i * 4 + j] = A[i * 4 + j] + T.float32(1)")
    par = For(i, i32(2), i32(6), ForKind.PARALLEL, Evaluate(op.call_extern("int32", "f", i)))
    assert astext(par) == 'for i in T.parallel(2, 8):\n    T.call_extern("int32", "f", i)'
    let = LetStmt(x, i32(3), IfThenElse(x < 2, Evaluate(x), Evaluate(i32(0))))
    assert astext(let) == ("x: T.int32 = 3\nif x < 2:\n    T.evaluate(x)\nelse:\n"
                           "    T.evaluate(0)")
    # a let that is not last in its sequence opens a with-scope
    seq = SeqStmt((LetStmt(x, i32(3), Evaluate(x)), Evaluate(i32(1))))
    assert astext(seq) == "with T.LetStmt(3) as x:\n    T.evaluate(x)\nT.evaluate(1)"
    asrt = AssertStmt(i < 4, StringImm("oops"), While(i < 4, Evaluate(i)))
    assert astext(asrt) == 'assert i < 4, "oops"\nwhile i < 4:\n    T.evaluate(i)'
    tx = IterVar(None, Var("threadIdx.x"), IterVar.ThreadIndex, "threadIdx.x")
    attr = AttrStmt(tx, "thread_extent", i32(32), Evaluate(i32(0)))
    assert astext(attr) == ('with T.attr(T.iter_var(threadIdx_x, None, "ThreadIndex", '
                            '"threadIdx.x"), "thread_extent", 32):\n    T.evaluate(0)')


def test_allocate_declares_flat_buffer():
    buf_var = Var("C", "handle")
    C = tir.decl_buffer((12,), "float32", "C", data=buf_var)
    body = Allocate(buf_var, "float32", (i32(12),), IntImm("bool", 1),
                    BufferStore(C, FloatImm("float32", 0.0), (i32(0),)), None, "global")
    assert astext(body) == ('C = T.allocate([12], "float32", "global")\n'
                            'C_1 = T.Buffer((12,), data=C)\n'
                            'C_1[0] = T.float32(0)')


def test_lowered_function_matches_seed_style():
    A = tir.decl_buffer((4, 4), "float32", "A")
    B = tir.decl_buffer((4, 4), "int8", "B")
    A1 = tir.Buffer(A.data, "float32", (i32(16),), name="A")
    B1 = tir.Buffer(B.data, "int8", (i32(16),), name="B")
    i = Var("i")
    body = For(i, i32(0), i32(16), ForKind.SERIAL,
               BufferStore(B1, op.cast("int8", A1[i]), (i,)))
    pa, pb = Var("A", "handle"), Var("B", "handle")
    f = tir.PrimFunc((pa, pb), body, None, {pa: A, pb: B},
                     {"global_symbol": "main", "tir.noalias": True})
    assert f.script() == (
        "# from tvm.script import tir as T\n\n"
        "@T.prim_func\n"
        'def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "int8")):\n'
        '    T.func_attr({"tir.noalias": T.bool(True)})\n'
        '    B_1 = T.Buffer((16,), "int8", data=B.data)\n'
        "    A_1 = T.Buffer((16,), data=A.data)\n"
        "    for i in range(16):\n"
        '        B_1[i] = T.Cast("int8", A_1[i])')
    mod = tvm.IRModule({"main": f})
    text = mod.script()
    assert text.startswith("# from tvm.script import ir as I\n# from tvm.script import tir as T"
                           "\n\n@I.ir_module\nclass Module:\n    @T.prim_func\n    def main(")


def test_private_and_renamed_functions():
    Var("i")
    A = tir.decl_buffer((4,), "float32", "A")
    pa = Var("A", "handle")
    body = BufferStore(A, FloatImm("float32", 0.0), (i32(0),))
    f = tir.PrimFunc((pa,), body, None, {pa: A}, {})
    assert "@T.prim_func(private=True)\ndef main(" in f.script()
    g = f.with_attr("global_symbol", "other")
    text = tvm.IRModule({"main": g}).script()
    assert 'T.func_attr({"global_symbol": "other"})' in text


def test_symbolic_shape_uses_match_buffer():
    n = SizeVar("n")
    A = tir.decl_buffer((n,), "float32", "A")
    pa = Var("a", "handle")
    i = Var("i")
    body = For(i, i32(0), n, ForKind.SERIAL, BufferStore(A, FloatImm("float32", 1.0), (i,)))
    f = tir.PrimFunc((pa,), body, None, {pa: A}, {"global_symbol": "main"})
    assert f.script().splitlines()[3:] == [
        "def main(a: T.handle):",
        "    n = T.int32(is_size_var=True)",
        "    A = T.match_buffer(a, (n,))",
        "    for i in range(n):",
        "        A[i] = T.float32(1)"]
