"""Classic construction rules of TIR nodes: numpy scalar dtypes, Python indices, buffers as
PrimFunc parameters, value-hashed integer constants and the operand errors classic TVM raises."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


@pytest.mark.parametrize("value", [True, np.uint8(3), np.uint16(3), np.uint32(3), np.uint64(3),
                                   np.int8(-3), np.int16(3), np.int32(3), np.int64(3),
                                   np.float16(1.5), np.float32(1.5), np.float64(1.5)])
def test_const_of_a_numpy_scalar_keeps_its_dtype(value):
    c = tvm.tir.const(value)
    assert c.dtype == str(np.array(value).dtype)
    assert c.value == value


def test_python_literals_keep_classic_default_dtypes():
    assert tvm.tir.const(1).dtype == "int32"
    assert tvm.tir.const(2**40).dtype == "int64"
    assert tvm.tir.const(1.5).dtype == "float32"


def test_buffer_param_buffer_load_store_with_python_indices_run():
    n = 13
    A = tvm.tir.decl_buffer((n,), "float32", name="A")
    B = tvm.tir.decl_buffer((n,), "float32", name="B")
    i = tvm.tir.Var("i", "int32")
    loop = tvm.tir.For(i, 1, n - 1, tvm.tir.ForKind.SERIAL,
                       tvm.tir.BufferStore(B, tvm.tir.BufferLoad(A, [i]) * 2.0, [i]))
    # Python ints as indices and a Python float as the stored value, as classic code writes
    first = tvm.tir.BufferStore(B, tvm.tir.BufferLoad(A, [0]) + tvm.tir.BufferLoad(A, [n - 1]),
                                [0])
    last = tvm.tir.BufferStore(B, 0.5, [n - 1])
    func = tvm.tir.PrimFunc([A, B], tvm.tir.SeqStmt([first, loop, last]))
    assert [func.buffer_map[p] for p in func.params] == [A, B]
    assert all(p.dtype == "handle" for p in func.params)
    assert isinstance(first.indices[0], tvm.tir.IntImm) and last.value.dtype == "float32"
    f = tvm.build(func, target="llvm")
    a = np.random.rand(n).astype("float32")
    b = tvm.nd.array(np.zeros(n, "float32"))
    f(tvm.nd.array(a), b)
    want = a * 2
    want[0], want[-1] = a[0] + a[-1], 0.5
    np.testing.assert_allclose(b.numpy(), want, rtol=1e-6)


def test_int_constants_hash_by_value_and_dtype():
    x, y = tvm.runtime.convert(7), tvm.runtime.convert(7)
    assert x is not y and y in {x}
    assert tvm.tir.const(1, "int64") not in {tvm.tir.const(1, "int32")}
    assert tvm.tir.const(True) not in {tvm.tir.const(1, "int32")}
    v = te.var("v")
    assert v in {v} and te.var("v") not in {v}


def test_var_type_annotation():
    ptype = tvm.ir.PointerType(tvm.ir.PrimType("float32"), "shared")
    x = tvm.tir.Var("p", ptype)
    assert x.dtype == "handle" and x.type_annotation == ptype
    assert x.type_annotation.storage_scope == "shared"
    assert tvm.tir.Var("q", "int8").type_annotation == tvm.ir.PrimType("int8")


def test_operand_errors_are_tvm_errors():
    f = tvm.tir.const(1.5, "float32")
    x = te.var("x")
    for bad in [lambda: f << 1, lambda: f >> 1, lambda: f & 1, lambda: f | 1, lambda: f ^ 1,
                lambda: ~f, lambda: x << -1, lambda: x >> 32,
                lambda: tvm.tir.StringImm("s").astype("int32")]:
        with pytest.raises(tvm.TVMError):
            bad()
    for div in [tvm.tir.floordiv, tvm.tir.floormod, tvm.tir.truncdiv, tvm.tir.truncmod,
                tvm.tir.div]:
        with pytest.raises(tvm.TVMError, match="Divide by zero"):
            div(x, tvm.tir.const(0, "int32"))
    assert str(x << 31) == "T.shift_left(x, 31)"


def test_isnan_of_half_and_of_integers():
    y = te.var("y", "float16")
    assert str(tvm.tir.isnan(y)) == 'T.isnan(T.Cast("float32", y))'
    assert str(tvm.tir.isnan(te.var("z", "int32"))) == "T.bool(False)"
    A = te.placeholder((7,), "float16", name="A")
    B = te.compute((7,), lambda i: tvm.tir.isnan(A[i]).astype("int32"), name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B], "llvm")
    a = np.random.rand(7).astype("float16")
    a[[1, 4]] = np.nan
    b = tvm.nd.array(np.zeros(7, "int32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), np.isnan(a).astype("int32"))


def test_buffer_realize_node_and_structural_equal_of_python_sequences():
    b = tvm.tir.decl_buffer((10,), "float32")
    s = tvm.tir.BufferRealize(b, [tvm.ir.Range(0, 1)], True, tvm.tir.Evaluate(0))
    assert isinstance(s, tvm.tir.BufferRealize) and s.condition.dtype == "bool"
    load = tvm.tir.BufferLoad(b, [2])
    tvm.ir.assert_structural_equal(load.indices, [2])
    assert not tvm.ir.structural_equal(load.indices, [3])
    assert not tvm.ir.structural_equal(tvm.tir.const(2, "int64"), 2)


def test_access_ptr_classic_form():
    m, n = te.size_var("m"), te.size_var("n")
    Ab = tvm.tir.decl_buffer((m, n), "float32", strides=[n + 1, 1])
    p = Ab.access_ptr("rw", offset=100)
    assert p.op == "tvm_access_ptr" and p.args[0].dtype == "float32"
    assert tvm.ir.structural_equal(p.args[3], Ab.strides[0] * m - 100)
    assert p.args[4].value == tvm.tir.Buffer.READ | tvm.tir.Buffer.WRITE
    assert Ab.access_ptr("w", extent=7).args[3].value == 7
    assert Ab.access_ptr("r").args[4].value == tvm.tir.Buffer.READ
    with pytest.raises(tvm.TVMError, match="access mask"):
        Ab.access_ptr("x")


def test_offset_of_is_simplified_and_checked():
    m, n = te.size_var("m"), te.size_var("n")
    Ab = tvm.tir.decl_buffer((m, n), "float32", elem_offset=100)
    tvm.ir.assert_structural_equal(Ab.offset_of([2, 3]), [n * 2 + 103])
    k = te.size_var("k")
    B = tvm.tir.decl_buffer((5, 7), "float32")
    tvm.ir.assert_structural_equal(B.offset_of((k // 7, k % 7)), [k])
    with pytest.raises(tvm.TVMError, match="2 dimensions"):
        B.offset_of([1])


def test_access_ptr_offsets_reach_an_extern_c_kernel():
    # each row of A goes to a C kernel through access_ptr(offset=...), classic style
    rows, cols = 5, 9
    kernel = """
    int scale_row(float* out, const float* in, int n) {
        for (int j = 0; j < n; ++j) out[j] = in[j] * 3.0f;
        return 0;
    }
    """
    A = te.placeholder((rows, cols), name="A")

    def gen(ins, outs):
        ib = tvm.tir.ir_builder.create()
        with ib.for_range(0, rows, name="i") as i:
            ib.emit(tvm.tir.call_extern(
                "int32", "scale_row", outs[0].access_ptr("w", offset=i * cols),
                ins[0].access_ptr("r", offset=i * cols), cols))
        return ib.get()

    B = te.extern((rows, cols), [A], gen, name="B", dtype="float32")
    s = te.create_schedule(B.op)
    mod = tvm.lower(s, [A, B])
    assert "T.tvm_access_ptr(T.type_annotation(\"float32\"), B.data" in mod.script()
    C = te.compute((rows, cols), lambda r, c: B[r, c] + 1.0, name="C")
    s = te.create_schedule(C.op)
    s[C].pragma(C.op.axis[0], "import_c", kernel)
    f = tvm.build(s, [A, C], target="llvm")
    a = np.random.rand(rows, cols).astype("float32")
    c = tvm.nd.array(np.zeros((rows, cols), "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 3 + 1, rtol=1e-6)


def test_ir_builder_pointer_as_a_prim_func_parameter_is_its_pointer_var():
    ib = tvm.tir.ir_builder.create()
    A = ib.pointer("float32", name="A")
    ib.emit(tvm.tir.call_packed("fake.func", A[0]))
    func = tvm.tir.PrimFunc([A], ib.get())
    assert func.params[0] is A.data and not func.buffer_map
    with pytest.raises(tvm.TVMError, match="raw pointer parameters"):
        tvm.build(func.with_attr("global_symbol", "f"), target="c")


def test_for_takes_classic_keywords_and_an_int_kind():
    i = tvm.tir.Var("i", "int32")
    buf = tvm.tir.decl_buffer((7,), "float32", name="buf")
    body = tvm.tir.BufferStore(buf, tvm.tir.Cast("float32", i) * 2.0, [i])
    loop = tvm.tir.For(loop_var=i, min_val=0, extent=7, kind=0, body=body)
    assert loop.kind == tvm.tir.ForKind.SERIAL and loop.min.value == 0 and loop.extent.value == 7
    assert tvm.tir.For(i, 0, 7, 1, body).kind == tvm.tir.ForKind.PARALLEL
    f = tvm.build(tvm.tir.PrimFunc([buf], loop).with_attr("global_symbol", "f"), target="llvm")
    out = tvm.nd.array(np.zeros(7, "float32"))
    f(out)
    np.testing.assert_allclose(out.numpy(), np.arange(7) * 2.0)


def test_prefetch_is_a_hint_node_that_builds():
    A = tvm.tir.decl_buffer((10, 21), name="A")
    B = tvm.tir.decl_buffer((10, 21), name="B")
    ib = tvm.tir.ir_builder.create()
    with ib.for_range(0, 10, name="i") as i:
        ib.emit(tvm.tir.Prefetch(A, [tvm.ir.Range.from_min_extent(i + 1, 2),
                                     tvm.ir.Range.from_min_extent(0, 21)]))
        with ib.for_range(0, 21, name="j") as j:
            ib.emit(tvm.tir.BufferStore(B, A[i, j] * 2.0, [i, j]))
    body = ib.get()
    pf = body.body.seq[0]
    assert isinstance(pf, tvm.tir.Prefetch) and pf.buffer is A and pf.bounds[0].extent.value == 2
    f = tvm.build(tvm.tir.PrimFunc([A, B], body).with_attr("global_symbol", "f"), target="llvm")
    a = np.random.rand(10, 21).astype("float32")
    b = tvm.nd.array(np.zeros((10, 21), "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2)


def test_datatype_is_a_canonical_dtype_string_with_its_fields():
    d = tvm.DataType("float32x4")
    assert d == "float32x4" and (d.type_code, d.bits, d.lanes) == (2, 32, 4)
    assert tvm.runtime.DataType("bool").bits == 1
    assert tvm.DataType(np.float16) == "float16"
    x = te.var("x", tvm.DataType("int8"))
    assert x.dtype == "int8"
