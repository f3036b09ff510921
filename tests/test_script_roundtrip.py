"""print -> from_source -> structurally equal, for TensorIR, lowered IR and symbolic shapes."""
from programs import matmul_relu_module

import tvmlite as tvm
from tvmlite import tir
from tvmlite.ir import assert_structural_equal
from tvmlite.script import from_source
from tvmlite.script import tir as T
from tvmlite.tir import op
from tvmlite.tir.expr import FloatImm, IntImm, IterVar, Ramp, SizeVar, StringImm, Var
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


def roundtrip(node):
    text = node.script()
    back = from_source(text)
    assert_structural_equal(node, back)
    assert back.script() == text
    return text


def i32(v):
    return IntImm("int32", v)


# Seed 004's MyModule in its own (old T.Buffer[...]) syntax
MyModule = matmul_relu_module()


def test_seed_004_module():
    text = roundtrip(MyModule)
    assert text == '''# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        Y = T.alloc_buffer((128, 128))
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(Y[vi, vj])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))'''  # noqa: E501


def test_split_block_after_schedule_style():
    @T.prim_func
    def f(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        for i, j_0 in T.grid(128, 32):
            for ax0 in range(4):
                with T.block("C"):
                    vi = T.axis.spatial(128, i)
                    vj = T.axis.spatial(128, j_0 * 4 + ax0)
                    T.where(j_0 * 4 + ax0 < 127)
                    T.reads(A[vi, vj])
                    T.writes(C[vi, vj])
                    T.block_attr({"meta_schedule.tiling": 1})
                    C[vi, vj] = T.max(A[vi, vj], T.float32(0))

    text = roundtrip(f)
    assert "vj = T.axis.spatial(128, j_0 * 4 + ax0)" in text
    assert "T.where(j_0 * 4 + ax0 < 127)" in text


def _seed_000_v4():
    """The lowered conv1d v4 of seed 000, built with the node classes."""
    A = tir.decl_buffer((4096,), "float32", "A")
    W = tir.decl_buffer((128,), "float32", "W")
    B = tir.decl_buffer((4223,), "float32", "B")
    no, ni, k, ni2 = Var("n_outer"), Var("n_inner_s"), Var("k"), Var("n_inner_s")
    idx = no * 8 + ni
    init = For(ni, i32(0), i32(8), ForKind.SERIAL,
               IfThenElse(op.likely(idx < 4223),
                          BufferStore(B, FloatImm("float32", 0.0), (idx,))))
    c2, c1 = Var("cse_var_2"), Var("cse_var_1")
    idx2 = no * 8 + ni2
    upd = IfThenElse(op.likely(idx2 < 4223), LetStmt(c2, idx2, LetStmt(c1, c2 - k, BufferStore(
        B, B[c2] + op.if_then_else(op.all(0 <= c1, c1 < 4096), A[c1] * W[k],
                                   FloatImm("float32", 0.0)), (c2,)))))
    nest = For(k, i32(0), i32(128), ForKind.SERIAL, For(ni2, i32(0), i32(8), ForKind.SERIAL, upd))
    body = For(no, i32(0), i32(528), ForKind.PARALLEL, SeqStmt((init, nest)))
    pa, pw, pb = Var("A", "handle"), Var("W", "handle"), Var("B", "handle")
    return tir.PrimFunc((pa, pw, pb), body, None, {pa: A, pw: W, pb: B},
                        {"global_symbol": "main", "from_legacy_te_schedule": True,
                         "tir.noalias": True})


def test_seed_000_lowered_conv1d():
    text = roundtrip(tvm.IRModule({"main": _seed_000_v4()}))
    assert '''    def main(A: T.Buffer((4096,), "float32"), W: T.Buffer((128,), "float32"), B: T.Buffer((4223,), "float32")):
        T.func_attr({"from_legacy_te_schedule": T.bool(True), "tir.noalias": T.bool(True)})
        for n_outer in T.parallel(528):
            for n_inner_s in range(8):
                if T.likely(n_outer * 8 + n_inner_s < 4223):
                    B[n_outer * 8 + n_inner_s] = T.float32(0)
            for k, n_inner_s in T.grid(128, 8):
                if T.likely(n_outer * 8 + n_inner_s < 4223):
                    cse_var_2: T.int32 = n_outer * 8 + n_inner_s
                    cse_var_1: T.int32 = cse_var_2 - k
                    B[cse_var_2] = B[cse_var_2] + T.if_then_else(cse_var_1 >= 0 and cse_var_1 < 4096, A[cse_var_1] * W[k], T.float32(0))''' in text  # noqa: E501


def test_flattened_buffers_allocate_and_intrinsics():
    data = tir.decl_buffer((1, 16, 14, 14, 1, 16), "int8", "data")
    res = tir.decl_buffer((1, 16, 14, 14, 1, 16), "int8", "res")
    dbv = Var("data_buf", "handle")
    db1 = tir.decl_buffer((65536,), "int8", "data_buf", data=dbv)
    d1 = tir.Buffer(data.data, "int8", (i32(50176),), name="data")
    r1 = tir.Buffer(res.data, "int8", (i32(50176),), name="res")
    i, j = Var("i"), Var("j")
    s1 = For(i, i32(0), i32(16), ForKind.UNROLLED, BufferStore(
        db1, op.if_then_else(op.all(1 <= i, i < 15), d1[i * 224 - 240], op.const(0, "int8")),
        (i,)))
    s2 = For(j, i32(0), i32(2), ForKind.VECTORIZED, BufferStore(
        r1, op.cast("int8x8", op.max(op.shift_right(op.cast("int32x8", db1[Ramp(j * 8, i32(1), 8)]),
                                                    8), 0)), (Ramp(j * 8, i32(1), 8),)))
    vta = Var("vta")
    iv = IterVar(None, vta, IterVar.ThreadIndex, "vta")
    s3 = AttrStmt(iv, "coproc_scope", i32(2),
                  Evaluate(op.call_extern("int32", "VTAUopLoopBegin", 8, 98, 0, 0)))
    s4 = Evaluate(tir.call_intrin("int32", "vta.coproc_dep_push", 3, 2))
    s5 = Evaluate(op.call_packed("my_func", data, d1.data))
    s6 = AssertStmt(i32(1) < 2, StringImm("never"), While(i32(0) > 1, Evaluate(i32(0))))
    body = Allocate(dbv, "int8", (i32(65536),), IntImm("bool", 1),
                    SeqStmt((s1, s2, s3, s4, s5, s6)), None, "global")
    pd, pr = Var("data", "handle"), Var("res", "handle")
    f = tir.PrimFunc((pd, pr), body, None, {pd: data, pr: res}, {"global_symbol": "main"})
    text = roundtrip(f)
    assert 'data_1 = T.Buffer((50176,), "int8", data=data.data)' in text
    assert 'data_buf = T.allocate([65536], "int8", "global")' in text
    assert 'data_buf_1 = T.Buffer((65536,), "int8", data=data_buf)' in text
    assert "res_1[j * 8:j * 8 + 8] = " in text
    assert "T.tir.vta.coproc_dep_push(3, 2)" in text


def test_non_tail_scoped_statements():
    i = Var("i")
    x = Var("x")
    cv = Var("C", "handle")
    C = tir.decl_buffer((4,), "float32", "C", data=cv)
    alloc = Allocate(cv, "float32", (i32(4),), IntImm("bool", 1),
                     BufferStore(C, FloatImm("float32", 1.0), (i32(0),)), None, "local")
    seq = SeqStmt((
        LetStmt(x, i32(3), Evaluate(x)),
        alloc,
        AssertStmt(i < 4, StringImm("m"), Evaluate(i)),
        Evaluate(i32(1)),
    ))
    body = For(i, i32(0), i32(4), ForKind.THREAD_BINDING, seq,
               IterVar(None, Var("threadIdx.x"), IterVar.ThreadIndex, "threadIdx.x"))
    f = tir.PrimFunc((), body, None, {}, {"global_symbol": "main"})
    text = roundtrip(f)
    assert 'for i in T.thread_binding(4, thread="threadIdx.x"):' in text
    assert "with T.LetStmt(3) as x:" in text
    assert 'with T.allocate([4], "float32", "local") as C:' in text
    assert 'with T.Assert(i < 4, "m"):' in text


def test_symbolic_shapes():
    n, m = SizeVar("n"), Var("m")
    A = tir.decl_buffer((n, m), "float32", "A")
    B = tir.decl_buffer((n * m,), "float16", "B", strides=[2], elem_offset=m)
    pa, pb = Var("a", "handle"), Var("b", "handle")
    i, j = Var("i"), Var("j")
    body = For(i, i32(0), n, ForKind.SERIAL, For(j, i32(1), m - 1, ForKind.SERIAL, BufferStore(
        B, op.cast("float16", A[i, j]), (i * m + j,))))
    f = tir.PrimFunc((pa, m, pb), body, None, {pa: A, pb: B}, {"global_symbol": "f"})
    text = roundtrip(f)
    assert "def f(a: T.handle, m: T.int32, b: T.handle):" in text
    assert "n = T.int32(is_size_var=True)" in text
    assert "A = T.match_buffer(a, (n, m))" in text
    assert 'B = T.match_buffer(b, (n * m,), "float16", strides=(2,), elem_offset=m)' in text
    assert "for j in range(1, m):" in text


def test_parsed_symbolic_function_roundtrips():
    @T.prim_func
    def f(a: T.handle, b: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n, 4))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            with T.block("B"):
                vi = T.axis.spatial(n, i)
                for k in T.serial(4, annotations={"pragma_unroll": 4}):
                    B[vi] = B[vi] + T.exp(A[vi, k]) * T.Cast("float32", T.truncmod(vi, 3))

    roundtrip(f)


def test_expressions_roundtrip_through_evaluate():
    x = Var("x", "float32")
    i = Var("i")
    A = tir.decl_buffer((16,), "float32", "A")
    exprs = [
        op.truncdiv(i, 3) + op.truncmod(i, 3) - op.floordiv(i, 2) * op.floormod(i, 5),
        op.min(i, 2) + op.max(-i, 3),
        op.if_then_else(op.any(i < 0, op.logical_not(i == 3)), x, op.sqrt(x)),
        op.cast("int64", i) + IntImm("int64", 5),
        op.likely(op.all(i >= 0, i < 16)),
        x / (x + 1.5) - A[i] * 2.0,
        op.shift_left(i, 2) + op.bitwise_and(i, 7),
        op.Select(i < 3, x, A[i + 1]),
        op.call_extern("float32", "expf", x),
        op.pow(x, 2.0),
    ]
    pa = Var("A", "handle")
    body = LetStmt(x, FloatImm("float32", 0.5), SeqStmt(tuple(Evaluate(e) for e in exprs)))
    body = For(i, i32(0), i32(16), ForKind.SERIAL, body)
    f = tir.PrimFunc((pa,), body, None, {pa: A}, {"global_symbol": "main"})
    roundtrip(f)
