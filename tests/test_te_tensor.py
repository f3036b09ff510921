"""TE objects: placeholders, computes, axes, indexing, dtypes and the errors users meet."""
import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.error import TVMError
from tvmlite.tir import IterVar, ProducerLoad, Var


def test_vector_add_objects():
    n = 100
    A = te.placeholder((n,), name="a")
    B = te.placeholder((n,), name="b")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="c")
    assert type(A).__module__ == "tvmlite.te.tensor" and type(A).__name__ == "Tensor"
    assert type(A.op) is te.tensor.PlaceholderOp
    assert type(C.op) is te.tensor.ComputeOp
    assert A.op.__class__.__bases__[0] is te.tensor.Operation
    assert (A.dtype, repr(A.shape)) == ("float32", "[100]")
    assert (C.dtype, repr(C.shape)) == ("float32", "[100]")
    assert A.shape == (100,) and C.shape == [100] and A.shape != (99,)
    assert C.op.name == "c" and C.name == "c" and A.name == "a"
    assert C.op.input_tensors == [A, B]
    (i,) = C.op.axis
    assert isinstance(i, IterVar) and i.var.name == "i" and i.dom.extent.value == 100
    assert C.op.reduce_axis == ()
    assert C.op.output(0) is C and C.value_index == 0 and C.op.num_outputs == 1
    assert A.ndim == 1 and len(C.shape) == 1


def test_defaults_and_dtype_arguments():
    A = te.placeholder((2, 3))
    assert A.op.name == "placeholder" and A.dtype == "float32"
    B = te.placeholder((2, 3), "int8", name="B")
    C = te.placeholder((2,), dtype="float16")
    assert B.dtype == "int8" and C.dtype == "float16"
    D = te.compute(A.shape, lambda i, j: A[i, j] * 2)
    assert D.op.name == "compute" and D.dtype == "float32"
    E = te.compute((4,), lambda i: B[0, 0], "E")  # name positional
    assert E.op.name == "E" and E.dtype == "int8"
    F = te.placeholder(5, name="F")
    assert repr(F.shape) == "[5]"


def test_symbolic_shapes_and_shape_arithmetic():
    n, m = te.var("n"), te.var("m")
    assert type(n) is Var and n.dtype == "int32"
    A = te.placeholder((n, m), name="a")
    assert repr(A.shape) == "[n, m]"
    assert A.shape[0] is n and A.shape[-1] is m
    assert repr(A.shape[0:1]) == "[n]"
    B = te.placeholder(A.shape, name="b")
    assert B.shape == A.shape
    X = te.placeholder((2, 3, 4))
    shp = (*X.shape[0:-2], X.shape[-2] + 2, X.shape[-1] + 4)
    assert [int(s) for s in shp] == [2, 5, 8]
    V = te.placeholder([te.var() for _ in range(3)])
    assert V.ndim == 3 and all(isinstance(s, Var) for s in V.shape)


def test_indexing_forms():
    A = te.placeholder((3, 4), name="A")
    i, j = te.var("i"), te.var("j")
    for load in (A[i, j], A[(i, j)], A[i][j], A(i, j), A((i, j))):
        assert isinstance(load, ProducerLoad)
        assert load.producer is A and load.indices == (i, j) and load.dtype == "float32"
    iv = te.reduce_axis((0, 4), name="k")
    assert A[i, iv].indices[1] is iv.var
    assert A[1, 2].indices[0].value == 1 and A[1, 2].indices[0].dtype == "int32"
    part = A[i]
    assert isinstance(part, te.TensorSlice)
    assert isinstance(part[j], ProducerLoad)
    with pytest.raises(ValueError, match="A has 2 dimension"):
        part.astype("int32")


def test_indexing_errors():
    A = te.placeholder((3, 4), name="A")
    i = te.var("i")
    with pytest.raises(ValueError, match="A has 2 dimension"):
        A[i, i, i]
    with pytest.raises(ValueError, match="A has 2 dimension"):
        A(i)
    # a slice names a region (a tensor intrinsic's argument, classic TensorComputeOp): using
    # it as an element is the error
    with pytest.raises(TypeError, match="slice"):
        A[0:2, 1] + 1.0
    with pytest.raises(TypeError, match="slice"):
        te.compute((2,), lambda j: A[0:2, j] * 2)
    with pytest.raises(TypeError, match="step"):
        A[0:4:2, 1]
    with pytest.raises(TypeError, match="integer"):
        A[i, tir.const(1.5, "float32")]
    with pytest.raises(TypeError, match="not iterable"):
        list(A)


def test_lambda_parameter_names():
    A = te.placeholder((2, 3, 4), name="A")
    B = te.compute(A.shape, lambda *i: A[i] + 1.0)
    assert [a.var.name for a in B.op.axis] == ["i0", "i1", "i2"]
    C = te.compute(A.shape, lambda x, *rest: A[(x,) + rest])
    assert [a.var.name for a in C.op.axis] == ["x", "i0", "i1"]
    D = te.compute(A.shape, lambda *i: A[i], varargs_names=["p", "q", "r"])
    assert [a.var.name for a in D.op.axis] == ["p", "q", "r"]
    with pytest.raises(ValueError, match="does not match dimension"):
        te.compute(A.shape, lambda i, j: A[i, j, 0])
    with pytest.raises(TypeError, match="Default arguments"):
        te.compute((2,), lambda i, j=0: A[i, j, 0])


def test_dtype_rules_in_compute():
    A = te.placeholder((4,), name="A")
    B = te.compute(A.shape, lambda i: A[i].astype("int32") + A[i].astype("int32"))
    assert B.dtype == "int32"
    C = te.compute(A.shape, lambda i: A[i] + 1)  # literal takes the float32 of A
    assert C.dtype == "float32" and C.op.body[0].b.dtype == "float32"
    H = te.placeholder((4,), "float16", name="H")
    D = te.compute(H.shape, lambda i: H[i] * 2.5)
    assert D.dtype == "float16"
    E = te.compute(A.shape, lambda i: A[i] > 0)
    assert E.dtype == "bool"
    I8 = te.placeholder((4,), "int8", name="I8")
    F = te.compute(I8.shape, lambda i: I8[i] >> 1)
    assert F.dtype == "int8"


def test_reduction_compute():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="a")
    j = te.reduce_axis((0, m), name="j")
    assert j.iter_type == IterVar.CommReduce and j.var.name == "j"
    B = te.compute((n,), lambda i: te.sum(A[i, j], axis=j), name="b")
    assert B.op.reduce_axis == (j,)
    assert [a.var.name for a in B.op.axis] == ["i"]
    assert isinstance(B.op.body[0], tir.Reduce)
    i = te.reduce_axis((0, n), name="i")
    T = te.compute((), lambda: te.sum(A[i, j], axis=(i, j)), name="t")
    assert T.ndim == 0 and repr(T.shape) == "[]" and T.op.reduce_axis == (i, j)
    assert T.op.axis == ()


def test_reduction_errors():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(TVMError, match="top level"):
        te.compute((4,), lambda i: te.sum(A[i, k], axis=k) + 1.0)
    with pytest.raises(ValueError, match="begin, end"):
        te.reduce_axis((0, 1, 2))
    # classic code catches the error under its FFI name
    from tvmlite import _ffi

    with pytest.raises(_ffi.base.TVMError, match="top level"):
        te.compute((4,), lambda i: A[i, 0] * (te.sum(A[i, k], axis=k) + 1.0))
    assert _ffi.get_global_func("no.such.function", allow_missing=True) is None


def test_tuple_reducer_gives_several_outputs():
    def fcombine(x, y):
        lhs = tir.Select(x[1] >= y[1], x[0], y[0])
        rhs = tir.Select(x[1] >= y[1], x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return tir.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    idx = te.placeholder((3, 5), "int32", name="idx")
    val = te.placeholder((3, 5), "float32", name="val")
    k = te.reduce_axis((0, 5), name="k")
    T0, T1 = te.compute((3,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    assert T0.op is T1.op and T0.op.num_outputs == 2
    assert (T0.dtype, T1.dtype) == ("int32", "float32")
    assert (T0.name, T1.name) == ("T.v0", "T.v1")
    assert T0.op.input_tensors == [idx, val]


def test_multi_output_elementwise_compute():
    A = te.placeholder((4,), name="A")
    P, Q = te.compute((4,), lambda i: (A[i] + 1.0, A[i].astype("int32")), name="PQ")
    assert (P.dtype, Q.dtype, P.value_index, Q.value_index) == ("float32", "int32", 0, 1)


def test_input_tensors_first_use_order_and_dedup():
    A = te.placeholder((4,), "int32", name="A")
    B = te.placeholder((4,), name="B")
    C = te.compute((4,), lambda i: B[A[i]] + B[i] + B[A[i]], name="C")
    assert C.op.input_tensors == [A, B]


def test_tensors_are_dict_keys():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i], name="B")
    d = {A: 1, B: 2}
    assert d[A] == 1 and d[B] == 2 and A != B and A == A
    assert B.op.output(0) is B


def test_var_axes_and_helpers():
    assert te.var("x", "int64").dtype == "int64"
    sv = te.size_var("s")
    assert isinstance(sv, tir.SizeVar) and sv.name == "s"
    t = te.thread_axis("blockIdx.x")
    assert t.thread_tag == "blockIdx.x" and t.var.name == "blockIdx.x" and t.dom is None
    t2 = te.thread_axis((0, 32), "threadIdx.x", name="tx")
    assert t2.var.name == "tx" and t2.dom.extent.value == 32
    with pytest.raises(ValueError, match="tag"):
        te.thread_axis()
    r = te.reduce_axis(tir.Range.make(2, 6), name="r")
    assert r.dom.min.value == 2 and r.dom.extent.value == 4
    assert te.min_value("float32").value == pytest.approx(-3.4028234663852886e38)
    assert te.const(1, "float32").dtype == "float32"
    for name in ("sum", "max", "min", "comm_reducer", "if_then_else", "all", "any", "exp",
                 "log", "sqrt", "tanh", "sigmoid", "power", "abs", "floor", "ceil", "round",
                 "max_value", "floordiv", "floormod", "indexdiv", "indexmod", "create_schedule",
                 "Schedule", "Stage", "create_prim_func", "extern", "Tensor", "ExternOp"):
        assert hasattr(te, name), name


def test_binary_max_min_and_conditions():
    A = te.placeholder((4,), name="A")
    B = te.compute(A.shape, lambda i: te.max(A[i], 0))
    assert isinstance(B.op.body[0], tir.Max) and B.dtype == "float32"
    C = te.compute(A.shape, lambda i: te.if_then_else(te.any(i < 1, i >= 3), 0, A[i]))
    assert C.dtype == "float32"


def test_tag_scope_and_attrs():
    A = te.placeholder((4,), name="A")
    with te.tag_scope("elemwise"):
        B = te.compute(A.shape, lambda i: A[i])
    assert B.op.tag == "elemwise"
    C = te.compute(A.shape, lambda i: A[i], tag="pool_max", attrs={"k": 1})
    assert C.op.tag == "pool_max" and C.op.attrs == {"k": 1}


def test_tensor_arithmetic_uses_topi():
    A = te.placeholder((3, 1), name="A")
    B = te.placeholder((3, 4), name="B")
    assert (A + B).op.name == "T_add" and repr((A + B).shape) == "[3, 4]"
    assert (A - 1).op.name == "T_subtract"
    assert (2 * A).op.name == "T_multiply"
    assert (B / A).op.name == "T_divide"
    assert (-A).op.name == "compute"
    assert (1 + A).op.tag == "elemwise" and (A + B).op.tag == "broadcast"


def test_bad_shapes_and_names():
    with pytest.raises(TypeError, match="integer"):
        te.placeholder((2.5,))
    with pytest.raises(ValueError, match="negative"):
        te.placeholder((-1,))
    with pytest.raises(TypeError, match="not a Tensor"):
        te.placeholder(te.placeholder((2,)))
    assert tvm.te is te
