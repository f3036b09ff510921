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
