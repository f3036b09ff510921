"""Attributes read the classic way: ``func.attrs`` is None without attributes, integer and
float values carry ``.value`` (and still compare, hash and compute as numbers), ``str(attrs)``
is JSON; functions with attributes still lower and build to numpy's results."""
import json
import pickle

import numpy as np

import tvmlite as tvm
from tvmlite import te
from tvmlite.ir.attrs import AttrInt, AttrMap


def _func():
    x, y = te.var("x"), te.var("y")
    b = tvm.tir.decl_buffer((x,), "float32")
    return tvm.tir.PrimFunc([x, y, b], tvm.tir.Evaluate(x + 1))


def test_prim_func_attrs_none_then_values_with_value():
    func = _func()
    assert func.attrs is None
    f2 = func.with_attr({"calling_conv": 1, "tir.noalias": True, "scale": 0.5})
    assert f2.attrs["calling_conv"].value == 1 and f2.attrs["calling_conv"] == 1
    assert f2.attrs["scale"].value == 0.5
    assert f2.attrs["tir.noalias"] is True           # booleans stay Python booleans
    assert f2.without_attr("calling_conv").without_attr("tir.noalias") \
        .without_attr("scale").attrs is None
    assert json.loads(str(f2.attrs)) == {"calling_conv": 1, "tir.noalias": True, "scale": 0.5}


def test_int_attribute_behaves_as_an_int():
    v = AttrInt(7)
    assert v == 7 and hash(v) == hash(7) and v + 1 == 8 and repr(v) == "7"
    assert v.value == 7 and type(v.value) is int and v.dtype == "int32"
    assert pickle.loads(pickle.dumps(v)) == 7 and json.dumps([v]) == "[7]"
    m = AttrMap({"a": [1, (2, "s")], "b": "t"})
    assert m["a"][1][0].value == 2 and m["b"] == "t"
    m["c"] = 3
    assert m["c"].value == 3


def test_operation_attrs_survive_save_load_json():
    n = te.size_var("n")
    A = te.placeholder((n,), name="A")
    C = te.compute((n,), lambda i: A[i] * 2.0, attrs={"hello": 1, "arr": [10, 12]})
    assert "hello" in C.op.attrs and "xx" not in C.op.attrs
    CC = tvm.ir.load_json(tvm.ir.save_json(C))
    assert CC.op.attrs["hello"].value == 1 and CC.op.attrs["arr"][0].value == 10
    assert json.loads(str(CC.op.attrs))["arr"][1] == 12
    assert te.compute((n,), lambda i: A[i]).op.attrs == {}


def test_structural_equality_and_hash_ignore_the_attribute_value_types():
    f = _func().with_attr("calling_conv", 1)
    g = _func()
    g = tvm.tir.PrimFunc(g.params, g.body, g.ret_type, g.buffer_map, {"calling_conv": 1})
    tvm.ir.assert_structural_equal(f, g)
    assert tvm.ir.structural_hash(f) == tvm.ir.structural_hash(g)
    assert not tvm.ir.structural_equal(f, _func())


def test_function_with_attributes_builds_and_computes_like_numpy():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1.0, name="B", attrs={"k": 3})
    s = te.create_schedule(B.op)
    func = tvm.lower(s, [A, B])["main"].with_attr("calling_conv", 0)
    assert func.attrs["global_symbol"] == "main" and func.attrs["calling_conv"].value == 0
    f = tvm.build(func, target="llvm")
    a = np.random.rand(16).astype("float32")
    b = tvm.nd.empty((16,))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1, rtol=1e-6)
    bare = tvm.build(te.create_prim_func([A, B]), target="llvm")   # no global_symbol
    bare(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1, rtol=1e-6)
