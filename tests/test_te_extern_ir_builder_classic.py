"""Classic ``ir_builder`` indexing inside ``te.extern``: ``buffer_ptr`` of a 2-D tensor takes two
indices or one flat index, stores cast to the buffer's dtype, ``ib.pointer`` is indexable."""
import numpy as np

import tvmlite as tvm
from tvmlite import te


def test_buffer_ptr_two_indices_and_flat_index_and_cast_store():
    rows, cols = 7, 5
    A = te.placeholder((rows, cols), name="A")

    def gen(ins, outs):
        ib = tvm.tir.ir_builder.create()
        a, b, c = ib.buffer_ptr(ins[0]), ib.buffer_ptr(outs[0]), ib.buffer_ptr(outs[1])
        with ib.for_range(0, rows, name="i") as i:
            with ib.for_range(0, cols, name="j") as j:
                b[i, j] = a[i, j] * 2.0 + 1.0
                # one index into a 2-D buffer is flat, as in classic TVM; float into int32
                c[i * cols + j] = a[i * cols + j] * 10.0
        return ib.get()

    B, C = te.extern([(rows, cols), (rows, cols)], [A], gen, name="BC",
                     dtype=["float32", "int32"])
    f = tvm.build(te.create_schedule([B.op]), [A, B, C], "llvm")
    a = np.random.rand(rows, cols).astype("float32")
    b = tvm.nd.array(np.zeros((rows, cols), "float32"))
    c = tvm.nd.array(np.zeros((rows, cols), "int32"))
    f(tvm.nd.array(a), b, c)
    np.testing.assert_allclose(b.numpy(), a * 2 + 1, rtol=1e-6)
    np.testing.assert_array_equal(c.numpy(), (a * 10).astype("int32"))


def test_pointer_is_an_indexable_buffer_var():
    ib = tvm.tir.ir_builder.create()
    n = te.size_var("n")
    A = ib.pointer("float32", name="A")
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(tvm.tir.truncmod(i, 2) == 0):
            A[i] = A[i] + 1
        with ib.else_scope():
            A[0] = A[i] + 2
    body = ib.get().body
    assert isinstance(body, tvm.tir.IfThenElse)
    assert isinstance(body.then_case.indices[0], tvm.tir.Var)
    assert body.else_case.indices[0].value == 0 and A.dtype == "float32"
