"""relay.frontend.from_onnx: models built with onnx.helper (no downloads), compiled with
relay.build and compared with onnxruntime on random inputs."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from relay_helpers import kernel_names  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import relay  # noqa: E402
from tvmlite.contrib import graph_executor  # noqa: E402


def _model(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(v, k) for k, v in dict(inits).items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _compare(model, feeds, freeze_params=False, rtol=1e-4, atol=1e-5, disabled_pass=()):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expect = sess.run(None, feeds)
    mod, params = relay.frontend.from_onnx(model, freeze_params=freeze_params)
    with tvm.transform.PassContext(opt_level=3, disabled_pass=list(disabled_pass)):
        factory = relay.build(mod, target="llvm", params=params)
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run(**feeds)
    assert gm.get_num_outputs() == len(expect)
    for i, e in enumerate(expect):
        np.testing.assert_allclose(gm.get_output(i).numpy(), e, rtol=rtol, atol=atol)
    return factory


def _r(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype("float32")


def test_small_cnn_vs_onnxruntime(rng):
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("BatchNormalization", ["c1", "g", "be", "m", "v"], ["bn"],
                         epsilon=1e-3),
        helper.make_node("Relu", ["bn"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], group=2, auto_pad="SAME_UPPER",
                         strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Dropout", ["r2"], ["d2"]),
        helper.make_node("GlobalAveragePool", ["d2"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["f"]),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["g1"], transB=1),
        helper.make_node("Softmax", ["g1"], ["y"], axis=1),
    ]
    inits = {"w1": _r(rng, 8, 3, 3, 3, scale=0.3), "b1": _r(rng, 8), "g": _r(rng, 8),
             "be": _r(rng, 8), "m": _r(rng, 8),
             "v": rng.uniform(0.5, 1.5, 8).astype("float32"),
             "w2": _r(rng, 6, 4, 3, 3, scale=0.3), "wf": _r(rng, 10, 6), "bf": _r(rng, 10)}
    model = _model(nodes, [("x", [1, 3, 15, 17])], ["y"], inits)
    x = _r(rng, 1, 3, 15, 17)
    factory = _compare(model, {"x": x}, rtol=1e-4, atol=1e-6, disabled_pass=["AlterOpLayout"])
    names = kernel_names(factory)
    # opt_level 3: SimplifyInference folded the batch norm into the conv weight and bias
    assert names[0] == "fused_nn_conv2d_nn_bias_add_nn_relu"
    assert len(names) == 7
    # with AlterOpLayout, the same folded conv in NCHWc after a pack, the max pool in its block
    names = kernel_names(_compare(model, {"x": x}, rtol=1e-4, atol=1e-6))
    assert names[:3] == ["fused_layout_transform", "fused_nn_contrib_conv2d_NCHWc_add_nn_relu",
                         "fused_nn_max_pool2d"], names
    assert len(names) == 9, names
    # the same model frozen: initializers are constants, the graph's params "p0".."pN"
    mod, params = relay.frontend.from_onnx(model, freeze_params=True)
    assert params == {} and [p.name_hint for p in mod["main"].params] == ["x"]


@pytest.mark.parametrize("attrs, wshape", [
    ({"pads": [0, 1, 2, 1], "strides": [2, 1]}, (4, 3, 3, 2)),
    ({"dilations": [2, 2], "auto_pad": "VALID"}, (4, 3, 3, 3)),
    ({"auto_pad": "SAME_LOWER", "strides": [2, 2]}, (4, 3, 2, 2)),
    ({"group": 3, "pads": [1, 1, 1, 1]}, (6, 1, 3, 3)),
    ({"group": 3, "auto_pad": "SAME_UPPER"}, (3, 1, 3, 3)),
])
def test_conv_attributes(rng, attrs, wshape):
    node = helper.make_node("Conv", ["x", "w"], ["y"], **attrs)
    model = _model([node], [("x", [2, 3, 10, 9])], ["y"], {"w": _r(rng, *wshape)})
    _compare(model, {"x": _r(rng, 2, 3, 10, 9)})


@pytest.mark.parametrize("op, attrs", [
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("MaxPool", {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1}),
    ("MaxPool", {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
                     "count_include_pad": 1}),
    ("AveragePool", {"kernel_shape": [2, 3], "strides": [1, 2], "ceil_mode": 1}),
])
def test_pools(rng, op, attrs):
    model = _model([helper.make_node(op, ["x"], ["y"], **attrs)], [("x", [1, 2, 9, 8])], ["y"])
    _compare(model, {"x": _r(rng, 1, 2, 9, 8)})


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
def test_broadcasting_binary(rng, op):
    model = _model([helper.make_node(op, ["a", "b"], ["t"]),
                    helper.make_node(op, ["t", "c"], ["y"])],
                   [("a", [2, 3, 4]), ("b", [3, 1])], ["y"], {"c": _r(rng, 4) + 3.0})
    _compare(model, {"a": _r(rng, 2, 3, 4), "b": _r(rng, 3, 1) + 3.0})


@pytest.mark.parametrize("attrs, a_shape, b_shape, c_shape", [
    ({}, (3, 5), (5, 4), (4,)),
    ({"transA": 1, "alpha": 0.5, "beta": 2.0}, (5, 3), (5, 4), (3, 4)),
    ({"transB": 1}, (3, 5), (4, 5), (1, 4)),
])
def test_gemm(rng, attrs, a_shape, b_shape, c_shape):
    model = _model([helper.make_node("Gemm", ["a", "b", "c"], ["y"], **attrs)],
                   [("a", list(a_shape))], ["y"], {"b": _r(rng, *b_shape), "c": _r(rng, *c_shape)})
    _compare(model, {"a": _r(rng, *a_shape)})


@pytest.mark.parametrize("a_shape", [(3, 5), (2, 3, 5)])
def test_matmul(rng, a_shape):
    model = _model([helper.make_node("MatMul", ["a", "b"], ["y"])], [("a", list(a_shape))],
                   ["y"], {"b": _r(rng, 5, 7)})
    _compare(model, {"a": _r(rng, *a_shape)})


def test_layout_ops_constant_identity(rng):
    shape_c = helper.make_node("Constant", [], ["shape"], value=numpy_helper.from_array(
        np.array([0, -1, 4], "int64")))
    nodes = [
        shape_c,
        helper.make_node("Reshape", ["x", "shape"], ["r"]),              # (2, 6, 4)
        helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1]),      # (2, 4, 6)
        helper.make_node("Identity", ["t"], ["i"]),
        helper.make_node("Concat", ["i", "k"], ["c"], axis=1),            # (2, 7, 6)
        helper.make_node("Flatten", ["c"], ["f"], axis=2),                # (14, 6)
        helper.make_node("Softmax", ["c"], ["s"], axis=1),
    ]
    model = _model(nodes, [("x", [2, 3, 8])], ["f", "s"], {"k": _r(rng, 2, 3, 6)})
    _compare(model, {"x": _r(rng, 2, 3, 8)})


def test_softmax_before_opset_13_flattens(rng):
    model = _model([helper.make_node("Softmax", ["x"], ["y"], axis=1)], [("x", [2, 3, 4])],
                   ["y"], opset=11)
    _compare(model, {"x": _r(rng, 2, 3, 4)})


def test_unsupported_op_names_type_and_node():
    # a string operator: tvmlite has no string tensors
    model = _model([helper.make_node("StringNormalizer", ["x"], ["y"], name="my_norm")],
                   [("x", [2])], ["y"])
    with pytest.raises(tvm.TVMError,
                       match="operator StringNormalizer \\(node 'my_norm'\\) is not supported"):
        relay.frontend.from_onnx(model)


def test_truncated_or_foreign_file_is_a_clear_error(rng, tmp_path):
    model = _model([helper.make_node("Conv", ["x", "w"], ["y"])], [("x", [1, 3, 7, 7])], ["y"],
                   {"w": _r(rng, 4, 3, 3, 3)})
    data = model.SerializeToString()
    path = tmp_path / "model.onnx"
    for cut in (1, len(data) // 3, len(data) // 2, len(data) - 20):
        path.write_bytes(data[:cut])
        with pytest.raises(tvm.TVMError, match=r"cannot read the ONNX model '.*model\.onnx' "
                                               r"\(truncated, corrupted or not ONNX\)"):
            relay.frontend.from_onnx(str(path))
    path.write_bytes(b"\x7fELF" + bytes(range(256)) * 4)
    with pytest.raises(tvm.TVMError, match="truncated, corrupted or not ONNX"):
        relay.frontend.from_onnx(path)
    with pytest.raises(tvm.TVMError, match="cannot read the ONNX model '.*missing.onnx'"):
        relay.frontend.from_onnx(str(tmp_path / "missing.onnx"))
    path.write_bytes(data)  # the whole file, also as a pathlib.Path
    mod, params = relay.frontend.from_onnx(path)
    assert "nn.conv2d" in mod.astext() and list(params) == ["w"]


def test_dynamic_shape_needs_shape_argument(rng):
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [("x", ["batch", 3])], ["y"])
    with pytest.raises(tvm.TVMError, match="input 'x' has a dynamic dimension 0 \\('batch'\\)"):
        relay.frontend.from_onnx(model)
    mod, _ = relay.frontend.from_onnx(model, shape={"x": (5, 3)})
    assert mod["main"].params[0].type_annotation.shape == (5, 3)
    with pytest.raises(tvm.TVMError, match="not inputs of the model"):
        relay.frontend.from_onnx(model, shape={"x": (5, 3), "z": (1,)})


def test_malformed_model_and_bad_attributes(rng):
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [("x", [2, 3])], ["y"])
    data = model.SerializeToString()
    with pytest.raises(tvm.TVMError, match="cannot read the ONNX model"):
        relay.frontend.from_onnx(data[: len(data) // 2] + b"\xff\xff\xff")
    mod, _ = relay.frontend.from_onnx(data)  # serialized bytes are accepted
    assert "nn.relu" in mod.astext()
    bad = _model([helper.make_node("Conv", ["x", "w"], ["y"])], [("x", [1, 3, 5, 5])], ["y"],
                 {"w": _r(rng, 4, 2, 3, 3)})
    with pytest.raises(tvm.TVMError, match="Conv \\(node .*\\).*expects 2 input channels"):
        relay.frontend.from_onnx(bad)
    dyn = _model([helper.make_node("Reshape", ["x", "s"], ["y"])], [("x", [2, 3]), ("s", [2])],
                 ["y"])
    with pytest.raises(tvm.TVMError, match="shape operand must be a constant"):
        relay.frontend.from_onnx(dyn)
