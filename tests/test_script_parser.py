"""TVMScript parser: @T.prim_func / @I.ir_module / from_source build the expected IR."""
import pytest

import tvmlite as tvm
from tvmlite import tir
from tvmlite.error import DiagnosticError
from tvmlite.ir import assert_structural_equal
from tvmlite.script import from_source
from tvmlite.script import ir as I
from tvmlite.script import tir as T
from tvmlite.tir.expr import Add, FloatImm, IntImm, IterVar, Ramp, Var
from tvmlite.tir.stmt import (
    Allocate,
    BlockRealize,
    BufferStore,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
)

N = 64


def test_prim_func_builds_loops_and_stores():
    @T.prim_func
    def add_one(A: T.Buffer((N,), "float32"), B: T.Buffer((N,), "float32")):
        for i in range(N):
            B[i] = A[i] + T.float32(1)

    assert isinstance(add_one, tir.PrimFunc)
    assert add_one.attrs == {"global_symbol": "add_one"}
    A = add_one.buffer_map[add_one.params[0]]
    assert A.shape[0].value == 64 and A.dtype == "float32" and A.name == "A"
    loop = add_one.body
    assert isinstance(loop, For) and loop.extent.value == N and loop.kind == ForKind.SERIAL
    assert isinstance(loop.body, BufferStore) and isinstance(loop.body.value, Add)

    # the same function built by hand
    pa, pb = Var("A", "handle"), Var("B", "handle")
    A2 = tir.decl_buffer((N,), "float32", "A")
    B2 = tir.decl_buffer((N,), "float32", "B")
    i = Var("i")
    body = For(i, IntImm("int32", 0), IntImm("int32", N), ForKind.SERIAL,
               BufferStore(B2, A2[i] + FloatImm("float32", 1.0), (i,)))
    ref = tir.PrimFunc((pa, pb), body, None, {pa: A2, pb: B2}, {"global_symbol": "add_one"})
    assert_structural_equal(add_one, ref)


def test_closure_values_and_old_buffer_syntax():
    def make(n, dtype):
        @T.prim_func
        def f(A: T.Buffer[(n, 2), dtype]):
            T.func_attr({"global_symbol": "kernel", "tir.noalias": True})
            for i, j in T.grid(n, 2):
                A[i, j] = T.Cast(dtype, i * 2 + j)
        return f

    f = make(5, "int8")
    A = f.buffer_map[f.params[0]]
    assert [int(s) for s in A.shape] == [5, 2] and A.dtype == "int8"
    assert f.attrs == {"global_symbol": "kernel", "tir.noalias": True}
    outer = f.body
    assert outer.extent.value == 5 and outer.body.extent.value == 2


def test_ir_module_decorator_and_blocks():
    @I.ir_module
    class Mod:
        @T.prim_func
        def relu(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
            Y = T.alloc_buffer((8, 8))
            for i, j in T.grid(8, 8):
                with T.block("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Y[vi, vj] = A[vi, vj] * T.float32(2)
            for i, j in T.grid(8, 8):
                with T.block("C"):
                    vi = T.axis.spatial(8, i)
                    vj = T.axis.spatial(8, j)
                    C[vi, vj] = T.max(Y[vi, vj], T.float32(0))

    assert isinstance(Mod, tvm.IRModule) and list(Mod.functions) == ["relu"]
    f = Mod["relu"]
    root = f.body
    assert isinstance(root, BlockRealize) and root.block.name_hint == "root"
    assert [b.name for b in root.block.alloc_buffers] == ["Y"]
    blk = root.block.body.seq[0].body.body.block
    assert blk.name_hint == "Y"
    assert [iv.iter_type for iv in blk.iter_vars] == [IterVar.DataPar, IterVar.DataPar]
    assert [r.buffer.name for r in blk.reads] == ["A"]
    assert [r.buffer.name for r in blk.writes] == ["Y"]
    assert all(r.extent.value == 1 for r in blk.reads[0].region)


def test_inferred_regions():
    @T.prim_func
    def f(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            with T.block("S"):
                vi = T.axis.spatial(4, i)
                for k in range(4):
                    B[vi * 4 + k] = A[vi, 0] + A[vi, 3] + A[0, k]
        for i in range(16):
            with T.block("R"):
                vi = T.axis.reduce(16, i)
                with T.init():
                    B[0] = T.float32(0)
                B[0] = B[0] + A[vi, vi]

    s = f.body.block.body.seq[0].body.block
    (a_reg,), (b_reg,) = s.reads, s.writes
    # A[vi, 0], A[vi, 3], A[0, k]: rows vi and 0 have no common form -> the whole dimension
    assert repr(a_reg) == "A[0:16, 0:4]"
    assert repr(b_reg) == "B[vi * 4:vi * 4 + 4]"
    r = f.body.block.body.seq[1].body.block
    assert r.init is not None
    assert [x.buffer.name for x in r.reads] == ["A"]  # the reduction output is a write only
    assert repr(r.writes[0]) == "B[0]"

    @T.prim_func
    def g(A: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("inplace"):
                vi = T.axis.spatial(8, i)
                A[vi] = A[vi] * T.float32(2)

    blk = g.body.block.body.body.block
    # without an init, a buffer both read and written is listed in both (TVM's rule)
    assert [repr(x) for x in blk.reads] == ["A[vi]"]
    assert [repr(x) for x in blk.writes] == ["A[vi]"]


def test_lowered_constructs():
    @T.prim_func
    def f(A: T.Buffer((4, 4), "float32"), n: T.int32):
        A_1 = T.Buffer((16,), data=A.data)
        C = T.allocate([16], "float32", "global")
        C_1 = T.Buffer((16,), data=C)
        for i in T.parallel(16):
            x: T.int32 = i * 2
            if T.likely(x < n):
                C_1[i] = A_1[i]
        for i in T.vectorized(4):
            A_1[i * 4:i * 4 + 4] = C_1[i * 4:i * 4 + 4]

    alloc = f.body
    assert isinstance(alloc, Allocate) and alloc.extents[0].value == 16
    par, vec = alloc.body.seq
    assert par.kind == ForKind.PARALLEL and isinstance(par.body, LetStmt)
    assert isinstance(par.body.body, IfThenElse)
    store = par.body.body.then_case
    assert store.buffer.data is alloc.buffer_var
    assert store.value.buffer.data is f.buffer_map[f.params[0]].data
    assert vec.kind == ForKind.VECTORIZED
    assert isinstance(vec.body.indices[0], Ramp) and vec.body.indices[0].lanes == 4


def test_from_source_function_and_module():
    text = '''
@T.prim_func
def main(a: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "int32")
    for i in range(n):
        A[i] = i
'''
    f = from_source(text)
    A = f.buffer_map[f.params[0]]
    assert A.dtype == "int32" and isinstance(A.shape[0], Var)
    assert f.body.extent is A.shape[0]
    mod = from_source("@I.ir_module\nclass M:\n" + "\n".join(
        "    " + line for line in text.strip().splitlines()))
    assert list(mod.functions) == ["main"]


def _error_of(text):
    with pytest.raises(DiagnosticError) as e:
        from_source(text, filename="k.py")
    return str(e.value)


def test_errors_point_at_the_line():
    msg = _error_of('''@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = B[i]
''')
    assert "k.py:4:" in msg and "undefined name 'B'" in msg and "A[i] = B[i]" in msg
    msg = _error_of('''@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in T.grid(4, 4):
        A[i] = 1
''')
    assert "k.py:3:" in msg and "1 loop variables for 2 loops" in msg
    msg = _error_of('''@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    A[0] = 1 +
''')
    assert "k.py:3:" in msg and "invalid syntax" in msg
    msg = _error_of('''@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    A[0] = A[1] / A[2]
''')
    assert "k.py:3:" in msg and "TypeError" in msg and "A[0] = A[1] / A[2]" in msg
    msg = _error_of('''@T.prim_func
def main(A):
    T.evaluate(0)
''')
    assert "k.py:2:" in msg and "needs a type annotation" in msg
    msg = _error_of('''@T.prim_func
def main(A: T.Buffer((4, 4), "float32")):
    for i in range(4):
        A[i] = A[i, 0] + A[0]
''')
    assert "k.py:4:" in msg and "2 dimensions but is indexed with 1" in msg
    msg = _error_of('''@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            T.where(vi < 3)
            A[vi] = T.float32(0)
''')
    assert "k.py:6:" in msg and "block iterator 'vi'" in msg


def test_abs_cast_and_dtype_limits():
    @T.prim_func
    def f(A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "int32")):
        for i in range(5):
            with T.block("B"):
                vi = T.axis.spatial(5, i)
                B[vi] = (T.cast(T.abs(A[vi]), "int32") + T.abs(vi - 2)
                         + T.max_value("int8") + T.min_value("int8"))

    import numpy as np

    a = (np.random.default_rng(1).random(5).astype("float32") - 0.5) * 10
    b = tvm.nd.empty((5,), "int32")
    tvm.build(f, target="llvm")(tvm.nd.array(a), b)
    want = np.abs(a).astype("int32") + np.abs(np.arange(5) - 2) - 1
    np.testing.assert_array_equal(b.numpy(), want)
    assert_structural_equal(from_source(f.script()), f)


def test_decorator_error_reports_file_line():
    with pytest.raises(DiagnosticError) as e:
        @T.prim_func
        def bad(A: T.Buffer((4,), "float32")):
            A[0] = undefined_thing  # noqa: F821

    assert f"{__file__}:" in str(e.value)
    assert "A[0] = undefined_thing" in str(e.value)
