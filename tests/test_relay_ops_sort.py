"""relay.sort / argsort / topk through relay.build and the graph executor (OPAQUE kernels
calling tvm.contrib.sort.*), their type errors, an exported network in a new process, and the
ONNX TopK importer against onnxruntime."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from relay_helpers import build_run, kernel_names

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor
from tvmlite.relay.expr import TupleWrapper
from tvmlite.relay.op._rel import RelayTypeError
from tvmlite.relay.op.registry import OpPattern
from tvmlite.relay.transform.infer_type import RelayTypeInferenceError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ref_argsort(x: np.ndarray, axis: int, ascend: bool) -> np.ndarray:
    """Stable argsort along ``axis`` by Python's sort; ties keep the lower index first."""
    def row(v):
        key = (lambda i: (v[i], i)) if ascend else (lambda i: (-v[i], i))
        return np.array(sorted(range(len(v)), key=key), dtype="int64")
    return np.apply_along_axis(row, axis, x.astype("float64"))


def _data(rng, shape, dtype):
    if dtype.startswith("int"):
        return rng.integers(-3, 4, shape).astype(dtype)  # many ties
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[::3] = -0.25  # ties among floats too
    return x


@pytest.mark.parametrize("shape,axis,ascend,dtype,k", [
    ((11,), 0, True, "float32", 1),
    ((5, 9), -1, False, "int32", 9),
    ((5, 9), 0, True, "int64", 2),
    ((3, 7, 4), 1, False, "float32", 3),
    ((3, 7, 4), -1, True, "float64", 0),
])
def test_sort_argsort_topk_build_and_run(rng, shape, axis, ascend, dtype, k):
    x = _data(rng, shape, dtype)
    v = relay.var("x", shape=shape, dtype=dtype)
    t = relay.topk(v, k=k, axis=axis, is_ascend=ascend)
    assert isinstance(t, TupleWrapper) and len(t) == 2
    out = relay.Tuple([relay.sort(v, axis=axis, is_ascend=ascend),
                       relay.argsort(v, axis=axis, is_ascend=ascend, dtype="int64"),
                       t[0], t[1]])
    (srt, idx, vals, tidx), factory = build_run(relay.Function([v], out), {"x": x})
    want = _ref_argsort(x, axis, ascend)
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_array_equal(srt, np.take_along_axis(x, want, axis))
    kk = k if k >= 1 else shape[axis]
    first = np.take(want, np.arange(kk), axis=axis)
    assert tidx.dtype == np.int32 and vals.dtype == x.dtype  # relay.topk's default int32
    np.testing.assert_array_equal(tidx, first)
    np.testing.assert_array_equal(vals, np.take_along_axis(x, first, axis))
    assert len(kernel_names(factory)) == 3  # one kernel each (topk's has two outputs)


def test_sort_ops_are_opaque_and_not_fused(rng):
    for name in ("sort", "argsort", "topk"):
        assert relay.op.get(name).pattern == OpPattern.OPAQUE
    x = _data(rng, (4, 6), "float32")
    v = relay.var("x", shape=(4, 6))
    y = relay.exp(relay.sort(relay.negative(v))) + relay.const(1.0)
    (got,), factory = build_run(relay.Function([v], y), {"x": x})
    np.testing.assert_allclose(got, np.exp(np.sort(-x, axis=-1)) + 1, rtol=1e-6)
    names = kernel_names(factory)
    assert len(names) == 3 and any(n.startswith("fused_sort") for n in names)


def test_topk_single_outputs_and_a_field_feeding_other_ops(rng):
    x = _data(rng, (6, 10), "float32")
    v = relay.var("x", shape=(6, 10))
    vals = relay.topk(v, 4, axis=1, ret_type="values")
    idx = relay.topk(v, 4, axis=0, ret_type="indices", is_ascend=True, dtype="int64")
    both = relay.topk(v, 2)
    out = relay.Tuple([vals * relay.const(2.0), idx, relay.add(both[0], both[0])])
    (a, b, c), _ = build_run(relay.Function([v], out), {"x": x})
    down = _ref_argsort(x, 1, False)
    np.testing.assert_array_equal(a, np.take_along_axis(x, down[:, :4], 1) * 2)
    np.testing.assert_array_equal(b, _ref_argsort(x, 0, True)[:4])
    np.testing.assert_array_equal(c, np.take_along_axis(x, down[:, :2], 1) * 2)


def test_topk_tuple_as_the_function_result_and_k_as_a_constant(rng):
    x = _data(rng, (3, 8), "int32")
    v = relay.var("x", shape=(3, 8), dtype="int32")
    t = relay.topk(v, relay.const(5, "int64"), axis=-1)
    (vals, idx), _ = build_run(relay.Function([v], t.astuple()), {"x": x}, opt_level=0)
    want = _ref_argsort(x, -1, False)[:, :5]
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_array_equal(vals, np.take_along_axis(x, want, -1))


def _infer(expr):
    mod = tvm.IRModule.from_expr(relay.Function(relay.analysis.free_vars(expr), expr))
    return relay.transform.InferType()(mod)


@pytest.mark.parametrize("make,op", [
    (lambda v: relay.topk(v, k=8, axis=1).astuple(), "topk"),
    (lambda v: relay.topk(v, k=2, axis=2).astuple(), "topk"),
    (lambda v: relay.sort(v, axis=-3), "sort"),
    (lambda v: relay.argsort(v, axis=2), "argsort"),
])
def test_type_errors_name_the_op(make, op):
    with pytest.raises((RelayTypeInferenceError, RelayTypeError), match=op):
        _infer(make(relay.var("x", shape=(3, 7))))


def test_bad_ret_type_and_dynamic_k_are_errors_naming_topk():
    v = relay.var("x", shape=(3, 7))
    with pytest.raises(RelayTypeError, match="topk: ret_type"):
        relay.topk(v, 2, ret_type="all")
    # a k computed at run time is dyn.topk (the relay VM runs it)
    dyn = relay.topk(v, relay.var("k", shape=(), dtype="int32"), ret_type="values")
    assert dyn.op.name == "dyn.topk"


def test_exported_network_runs_in_a_new_process(rng, tmp_path):
    x = _data(rng, (4, 9), "float32")
    v = relay.var("x", shape=(4, 9))
    t = relay.topk(relay.sigmoid(v), 3)
    f = relay.Function([v], relay.Tuple([t[0], t[1], relay.argsort(v, axis=0)]))
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(tvm.IRModule.from_expr(f), target="llvm")
    path = str(tmp_path / "net.so")
    factory.export_library(path)
    np.save(tmp_path / "x.npy", x)
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        import tvmlite as tvm
        from tvmlite.contrib import graph_executor
        gm = graph_executor.GraphModule(tvm.runtime.load_module({path!r})["default"](tvm.cpu()))
        gm.set_input("x", np.load({str(tmp_path / "x.npy")!r}))
        gm.run()
        np.savez(sys.argv[1], *[gm.get_output(i).numpy() for i in range(3)])
    """)
    out = str(tmp_path / "out.npz")
    r = subprocess.run([sys.executable, "-c", script, out], env=dict(os.environ, PYTHONPATH=ROOT),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = np.load(out)
    sig = 1 / (1 + np.exp(-x.astype("float64")))
    want = _ref_argsort(sig, -1, False)[:, :3]
    np.testing.assert_array_equal(got["arr_1"], want)
    np.testing.assert_allclose(got["arr_0"], np.take_along_axis(sig, want, -1), rtol=1e-5)
    np.testing.assert_array_equal(got["arr_2"], _ref_argsort(x, 0, True))


# ------------------------------------------------------------------------- ONNX TopK
def _onnx_topk_model(x, k, attrs, opset=17, outputs=("values", "indices")):
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    tp = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64,
          "int32": TensorProto.INT32}[str(x.dtype)]
    ins = ["x"] if opset < 10 else ["x", "k"]
    extra = {"k": k} if opset < 10 else {}
    node = helper.make_node("TopK", ins, ["values", "indices"], **attrs, **extra)
    inits = [] if opset < 10 else [numpy_helper.from_array(np.array([k], "int64"), "k")]
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", tp, x.shape)],
                          [helper.make_empty_tensor_value_info(n) for n in outputs], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _onnx_topk(x, k, attrs, opset=17, outputs=("values", "indices")):
    """(onnxruntime's outputs, tvmlite's outputs) of a one-node TopK model."""
    ort = pytest.importorskip("onnxruntime")
    model = _onnx_topk_model(x, k, attrs, opset, outputs)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expect = sess.run(None, {"x": x})
    mod, params = relay.frontend.from_onnx(model)
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(mod, target="llvm", params=params)
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run(x=x)
    return expect, [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


@pytest.mark.parametrize("shape,k,attrs,dtype", [
    ((13,), 4, {}, "float32"),
    ((5, 9), 9, {"axis": 1, "largest": 0}, "float32"),
    ((6, 5, 3), 1, {"axis": 0}, "int64"),
    ((4, 7), 3, {"axis": -1, "largest": 1, "sorted": 1}, "int32"),
])
def test_onnx_topk_matches_onnxruntime(rng, shape, k, attrs, dtype):
    x = _data(rng, shape, dtype)
    expect, got = _onnx_topk(x, k, attrs)
    assert len(got) == 2
    for e, g in zip(expect, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(g, e)


def test_onnx_topk_unsorted_values_only_and_opset_9(rng):
    x = _data(rng, (5, 8), "float32")
    expect, got = _onnx_topk(x, 3, {"sorted": 0})  # order unspecified: compare the sets
    np.testing.assert_array_equal(np.sort(got[0], -1), np.sort(expect[0], -1))
    expect, got = _onnx_topk(x, 2, {"axis": 0}, outputs=("values",))
    assert len(got) == 1
    np.testing.assert_array_equal(got[0], expect[0])
    expect, got = _onnx_topk(x, 5, {}, opset=9)
    for e, g in zip(expect, got):
        np.testing.assert_array_equal(g, e)


def test_onnx_topk_k_too_large_is_an_import_error(rng):
    with pytest.raises(tvm.TVMError, match=r"TopK .*K=9 must be in \[1, 8\]"):
        relay.frontend.from_onnx(_onnx_topk_model(_data(rng, (5, 8), "float32"), 9, {}))


def test_gpu_target_is_a_clear_error_naming_the_op():
    v = relay.var("x", shape=(4, 5))
    mod = tvm.IRModule.from_expr(relay.Function([v], relay.argsort(v)))
    with pytest.raises(tvm.TVMError, match="argsort: tvmlite has no GPU implementation"):
        relay.build(mod, target="cuda")


def test_relay_op_namespace_has_the_sort_ops(rng):
    """``relay.op.argsort`` / ``sort`` / ``topk`` / ``searchsorted`` (classic re-exports them
    from relay.op.algorithm) are relay's, and compute as numpy does."""
    for name in ("sort", "argsort", "topk", "searchsorted"):
        assert getattr(relay.op, name) is getattr(relay, name)
    x = rng.permutation(11).astype("float32")
    v = relay.var("x", shape=(11,))
    (out,), _ = build_run(relay.Function([v], relay.op.argsort(v)), {"x": x})
    np.testing.assert_array_equal(out, np.argsort(x))
