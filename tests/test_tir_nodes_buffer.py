"""Buffers: ``decl_buffer(buffer_type="auto_broadcast")`` (a parameter dimension of extent 1 at
call time reads as if repeated, stride 0, as numpy broadcasts) and vector ``vload``/``vstore``."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


def _broadcast_add(ndim):
    shapes = [[te.size_var(f"{c}{k}") for k in range(ndim)] for c in "mno"]
    A = te.placeholder(shapes[0], name="A")
    B = te.placeholder(shapes[1], name="B")
    C = te.compute(shapes[2], lambda *i: A[i] + B[i], name="C")
    Ab = tvm.tir.decl_buffer(A.shape, A.dtype, name="Ab", buffer_type="auto_broadcast")
    Bb = tvm.tir.decl_buffer(B.shape, B.dtype, name="Bb", buffer_type="auto_broadcast")
    s = te.create_schedule(C.op)
    return tvm.build(s, [A, B, C], "llvm", binds={A: Ab, B: Bb})


@pytest.mark.parametrize("a_shape,b_shape", [((3, 5, 7), (3, 1, 7)), ((3, 5, 7), (1, 5, 1)),
                                             ((1, 1, 7), (3, 5, 1)), ((3, 5, 7), (3, 5, 7))])
def test_auto_broadcast_buffers_repeat_dimensions_of_extent_one(a_shape, b_shape):
    f = _broadcast_add(3)
    a = np.random.rand(*a_shape).astype("float32")
    b = np.random.rand(*b_shape).astype("float32")
    want = a + b
    c = tvm.nd.array(np.zeros(want.shape, "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-6)


def test_auto_broadcast_buffer_has_stride_variables_and_bad_types_are_refused():
    n = te.size_var("n")
    b = tvm.tir.decl_buffer((n, 4), "float32", name="X", buffer_type="auto_broadcast")
    assert b.buffer_type == "auto_broadcast" and len(b.strides) == 2
    assert all(isinstance(s, tvm.tir.Var) for s in b.strides)
    assert tvm.tir.decl_buffer((n, 4), "float32").buffer_type == ""
    with pytest.raises(tvm.TVMError, match="buffer_type"):
        tvm.tir.decl_buffer((n,), "float32", buffer_type="broadcast")


def test_vector_vload_vstore_in_an_extern_match_numpy():
    n = 38

    A = te.placeholder((n,), name="A")

    def gen(ins, outs):
        ib = tvm.tir.ir_builder.create()
        with ib.for_range(0, n // 2, name="i") as i:
            v = ins[0].vload(i * 2, "float32x2")
            ib.emit(outs[0].vstore(i * 2, v * tvm.tir.const(3, "float32x2") + 1.0))
        return ib.get()

    C = te.extern(A.shape, [A], gen, name="C")
    f = tvm.build(te.create_schedule(C.op), [A, C], "llvm")
    a = np.random.rand(n).astype("float32")
    c = tvm.nd.array(np.zeros(n, "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 3 + 1, rtol=1e-6)


def test_vload_ramps_the_last_index_and_checks_the_dtype():
    b = tvm.tir.decl_buffer((4, 8), "float32", name="b")
    ld = b.vload([1, 4], "float32x4")
    assert ld.dtype == "float32x4" and isinstance(ld.indices[1], tvm.tir.Ramp)
    assert ld.indices[1].lanes == 4 and ld.indices[0].value == 1
    assert b.vload([1, 4]).dtype == "float32"
    st = b.vstore([0, 0], tvm.tir.const(0, "float32x8"))
    assert st.indices[1].lanes == 8
    with pytest.raises(tvm.TVMError, match="vload: Cannot load int32x4 from buffer b"):
        b.vload([0, 0], "int32x4")
    with pytest.raises(tvm.TVMError, match="vstore: buffer b has 2 dimensions"):
        b.vstore(0, tvm.tir.const(0, "float32"))


def test_strides_not_one_per_dimension_are_refused_when_lowered():
    """A 2-D buffer declared with one stride (the parser takes it, as classic's does) has no
    layout: lowering it is refused instead of indexing with the first stride only."""
    from tvmlite.script import tir as T

    def make(strides):
        @T.prim_func
        def f(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
            C = T.alloc_buffer([4, 4], strides=strides)
            for i, j in T.grid(4, 4):
                with T.block("c"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = A[vi, vj] + T.float32(1)
            for i, j in T.grid(4, 4):
                with T.block("b"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = C[vi, vj]
        return f

    with pytest.raises(tvm.TVMError, match="1 strides for 2 dimensions"):
        tvm.build(make([1]), target="llvm")
    m = tvm.build(make([4, 1]), target="llvm")
    a = np.random.rand(4, 4).astype("float32")
    b = tvm.nd.empty((4, 4))
    m(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1, rtol=1e-6)
