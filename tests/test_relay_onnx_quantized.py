"""from_onnx of quantized models against onnxruntime: each quantized operator (the standard
ones and the com.microsoft ones onnxruntime's quantizer writes) on random inputs of odd sizes,
and a small CNN quantized by ``quantize_static`` in both QDQ and QOperator formats.

Bound: QNN rounds ties in quantize / requantize away from zero (upward for requantize's
default) and requantizes in Q31 fixed point, onnxruntime rounds ties to even in float, so a
quantized output may differ by one quantization step where the exact value is (close to) a
tie; a dequantized output by one scale."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from models.quantized_cnn import float_cnn, quantize  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from relay_helpers import onnxruntime_outputs, run_onnx  # noqa: E402

from tvmlite.relay.frontend.onnx import OnnxImportError  # noqa: E402

MS = "com.microsoft"


def model(op, inputs, inits, outputs, domain="", version=13, **attrs):
    """A one-node model: ``inputs`` {name: array} fed at run time, ``inits`` {name: array}
    initializers; the node's inputs in the order of ``attrs.pop('order')``."""
    order = attrs.pop("order")
    node = helper.make_node(op, order, outputs, domain=domain or None, **attrs)
    elem = {np.dtype("float32"): TensorProto.FLOAT, np.dtype("uint8"): TensorProto.UINT8,
            np.dtype("int8"): TensorProto.INT8, np.dtype("int32"): TensorProto.INT32}
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(k, elem[v.dtype], v.shape) for k, v in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    ops = [helper.make_opsetid("", version)]
    if domain:
        ops.append(helper.make_opsetid(domain, 1))
    m = helper.make_model(graph, opset_imports=ops)
    m.ir_version = 8
    return m


def check(m, feeds, steps=1, exact_fraction=0.9, freeze=False):
    """tvmlite's outputs equal onnxruntime's within ``steps`` (integer outputs; most of them
    exactly) or closely (float outputs)."""
    want = onnxruntime_outputs(m, feeds)
    got = run_onnx(m, feeds, freeze)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        if w.dtype.kind in "iu":
            diff = np.abs(g.astype(np.int64) - w.astype(np.int64))
            assert diff.max() <= steps, diff.max()
            assert (diff == 0).mean() >= exact_fraction
        else:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    return got, want


def q(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape).astype(dtype)


f32 = np.float32


# ------------------------------------------------------------- QuantizeLinear & co.
@pytest.mark.parametrize("opset,dtype", [(10, "uint8"), (13, "int8"), (19, "uint8")])
def test_quantize_dequantize_linear_per_tensor(opset, dtype):
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, (3, 5, 7)).astype("float32")
    zp = np.array(7 if dtype == "int8" else 131, dtype=dtype)
    m = model("QuantizeLinear", {"x": x}, {"s": f32(0.0173), "z": zp}, ["y"], version=opset,
              order=["x", "s", "z"])
    (y,), _ = check(m, {"x": x})
    m = model("DequantizeLinear", {"y": y}, {"s": f32(0.0173), "z": zp}, ["x2"],
              version=opset, order=["y", "s", "z"])
    check(m, {"y": y})


@pytest.mark.parametrize("axis", [1, -1, 0])
def test_quantize_dequantize_linear_per_axis(axis):
    rng = np.random.default_rng(1)
    x = rng.uniform(-3, 3, (3, 5, 7)).astype("float32")
    n = x.shape[axis]
    s = rng.uniform(0.01, 0.03, n).astype("float32")
    z = rng.integers(-20, 20, n).astype("int8")
    m = model("QuantizeLinear", {"x": x}, {"s": s, "z": z}, ["y"], axis=axis,
              order=["x", "s", "z"])
    (y,), _ = check(m, {"x": x})
    m = model("DequantizeLinear", {"y": y}, {"s": s, "z": z}, ["x2"], axis=axis,
              order=["y", "s", "z"])
    check(m, {"y": y})


def test_quantize_linear_default_zero_point_and_int32_dequantize():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 2, (4, 9)).astype("float32")
    m = model("QuantizeLinear", {"x": x}, {"s": f32(0.01)}, ["y"], order=["x", "s"])
    (y,), _ = check(m, {"x": x})
    assert y.dtype == np.uint8
    acc = rng.integers(-5000, 5000, (4, 9)).astype("int32")
    m = model("DequantizeLinear", {"a": acc}, {"s": f32(0.001)}, ["o"], order=["a", "s"])
    check(m, {"a": acc})


def test_dynamic_quantize_linear():
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 5, (3, 11)).astype("float32")
    m = model("DynamicQuantizeLinear", {"x": x}, {}, ["y", "s", "z"], order=["x"])
    check(m, {"x": x})


# ------------------------------------------------------------------------ convolutions
@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("xdtype,wdtype", [("uint8", "int8"), ("int8", "int8"),
                                           ("uint8", "uint8")])
def test_qlinear_conv(per_channel, xdtype, wdtype):
    rng = np.random.default_rng(4)
    x = q(rng, (1, 4, 9, 7), xdtype)
    w = q(rng, (6, 2, 3, 3), wdtype)
    ws = rng.uniform(0.002, 0.01, 6).astype("float32") if per_channel else f32(0.005)
    wz = np.zeros(6, wdtype) if per_channel else np.array(0 if wdtype == "int8" else 120,
                                                          dtype=wdtype)
    xz = np.array(3 if xdtype == "int8" else 128, dtype=xdtype)
    inits = {"xs": f32(0.02), "xz": xz, "w": w, "ws": ws, "wz": wz, "ys": f32(0.05),
             "yz": np.array(5 if xdtype == "int8" else 100, dtype=xdtype),
             "b": rng.integers(-500, 500, 6).astype("int32")}
    m = model("QLinearConv", {"x": x}, inits, ["y"], group=2, pads=[1, 0, 2, 1],
              strides=[2, 1], order=["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"])
    check(m, {"x": x})


def test_conv_integer():
    rng = np.random.default_rng(5)
    x = q(rng, (1, 3, 7, 6), "uint8")
    w = q(rng, (5, 3, 3, 3), "uint8")
    m = model("ConvInteger", {"x": x}, {"w": w, "xz": np.uint8(130), "wz": np.uint8(127)},
              ["y"], pads=[1, 1, 1, 1], order=["x", "w", "xz", "wz"])
    check(m, {"x": x}, steps=0)


# ------------------------------------------------------------------- matrix products
@pytest.mark.parametrize("ashape,bshape", [((3, 13), (13, 5)), ((2, 3, 13), (13, 5)),
                                           ((2, 3, 13), (2, 13, 5))])
def test_qlinear_matmul(ashape, bshape):
    rng = np.random.default_rng(6)
    a, b = q(rng, ashape, "uint8"), q(rng, bshape, "int8")
    inits = {"as": f32(0.02), "az": np.uint8(128), "b": b, "bs": f32(0.01),
             "bz": np.int8(0), "ys": f32(0.1), "yz": np.uint8(120)}
    m = model("QLinearMatMul", {"a": a}, inits, ["y"],
              order=["a", "as", "az", "b", "bs", "bz", "ys", "yz"])
    check(m, {"a": a})


def test_matmul_integer():
    rng = np.random.default_rng(7)
    a, b = q(rng, (2, 3, 11), "uint8"), q(rng, (11, 4), "int8")
    m = model("MatMulInteger", {"a": a}, {"b": b, "az": np.uint8(100), "bz": np.int8(-2)},
              ["y"], order=["a", "b", "az", "bz"])
    check(m, {"a": a}, steps=0)


@pytest.mark.parametrize("quantized_out", [True, False])
def test_qgemm(quantized_out):
    rng = np.random.default_rng(8)
    a, b = q(rng, (3, 13), "uint8"), q(rng, (5, 13), "int8")
    inits = {"as": f32(0.02), "az": np.uint8(128), "b": b,
             "bs": rng.uniform(0.005, 0.01, 5).astype("float32"), "bz": np.zeros(5, "int8"),
             "c": rng.integers(-300, 300, 5).astype("int32")}
    order = ["a", "as", "az", "b", "bs", "bz", "c"]
    if quantized_out:
        inits.update(ys=f32(0.2), yz=np.uint8(128))
        order += ["ys", "yz"]
    m = model("QGemm", {"a": a}, inits, ["y"], domain=MS, transB=1, alpha=0.5, order=order)
    check(m, {"a": a})


# -------------------------------------------------------------- com.microsoft element-wise
@pytest.mark.parametrize("op", ["QLinearAdd", "QLinearMul"])
def test_qlinear_binary(op):
    rng = np.random.default_rng(9)
    a, b = q(rng, (2, 5, 7), "uint8"), q(rng, (5, 7), "uint8")
    inits = {"as": f32(0.031), "az": np.uint8(120), "b": b, "bs": f32(0.017),
             "bz": np.uint8(135), "cs": f32(0.05 if op == "QLinearAdd" else 0.1),
             "cz": np.uint8(128)}
    m = model(op, {"a": a}, inits, ["c"], domain=MS,
              order=["a", "as", "az", "b", "bs", "bz", "cs", "cz"])
    # QLinearAdd requantizes each operand to the output's scale before adding (classic's
    # lowering): two roundings, so more results are one step off than for one rounding
    check(m, {"a": a}, exact_fraction=0.7)


@pytest.mark.parametrize("op,attrs", [("QLinearSigmoid", {}),
                                      ("QLinearLeakyRelu", {"alpha": 0.1})])
def test_qlinear_unary(op, attrs):
    x = np.arange(256, dtype=np.uint8).reshape(16, 16)
    inits = {"xs": f32(0.05), "xz": np.uint8(128), "ys": f32(0.004 if "Sigmoid" in op
                                                               else 0.05),
             "yz": np.uint8(0 if "Sigmoid" in op else 128)}
    m = model(op, {"x": x}, inits, ["y"], domain=MS, order=["x", "xs", "xz", "ys", "yz"],
              **attrs)
    check(m, {"x": x})


def test_qlinear_concat():
    rng = np.random.default_rng(10)
    x1, x2 = q(rng, (2, 3, 5), "uint8"), q(rng, (2, 4, 5), "uint8")
    inits = {"ys": f32(0.05), "yz": np.uint8(128), "s1": f32(0.05), "z1": np.uint8(128),
             "x2": x2, "s2": f32(0.03), "z2": np.uint8(100)}
    m = model("QLinearConcat", {"x1": x1}, inits, ["y"], domain=MS, axis=1,
              order=["ys", "yz", "x1", "s1", "z1", "x2", "s2", "z2"])
    check(m, {"x1": x1})


@pytest.mark.parametrize("channels_last", [0, 1])
def test_qlinear_global_average_pool(channels_last):
    rng = np.random.default_rng(11)
    x = q(rng, (2, 5, 7, 3) if channels_last else (2, 3, 5, 7), "uint8")
    inits = {"xs": f32(0.05), "xz": np.uint8(128), "ys": f32(0.01), "yz": np.uint8(128)}
    m = model("QLinearGlobalAveragePool", {"x": x}, inits, ["y"], domain=MS,
              channels_last=channels_last, order=["x", "xs", "xz", "ys", "yz"])
    check(m, {"x": x})


def test_qlinear_average_pool():
    rng = np.random.default_rng(12)
    x = q(rng, (1, 3, 9, 8), "uint8")
    inits = {"xs": f32(0.05), "xz": np.uint8(128), "ys": f32(0.04), "yz": np.uint8(120)}
    m = model("QLinearAveragePool", {"x": x}, inits, ["y"], domain=MS, kernel_shape=[3, 3],
              strides=[2, 2], pads=[1, 1, 1, 1], order=["x", "xs", "xz", "ys", "yz"])
    check(m, {"x": x})


def test_qlinear_softmax():
    rng = np.random.default_rng(13)
    x = q(rng, (3, 11), "uint8")
    inits = {"xs": f32(0.05), "xz": np.uint8(128), "ys": f32(1 / 256), "yz": np.uint8(0)}
    m = model("QLinearSoftmax", {"x": x}, inits, ["y"], domain=MS, axis=-1, opset=13,
              order=["x", "xs", "xz", "ys", "yz"])
    check(m, {"x": x})


# ------------------------------------------------------------------------------ errors
def test_unsupported_quantized_ops_raise():
    x = np.zeros((2, 3), "float32")
    m = model("QAttentionLike", {"x": x}, {}, ["y"], domain=MS, order=["x"])
    with pytest.raises(OnnxImportError, match="domain 'com.microsoft'"):
        run_onnx(m, {"x": x})
    m = model("QuantizeLinear", {"x": x}, {"s": np.full((3, 1), 0.1, "float32"),
                                           "z": np.zeros((3, 1), "uint8")}, ["y"],
              version=21, axis=0, block_size=2, order=["x", "s", "z"])
    with pytest.raises(OnnxImportError, match="block_size"):
        run_onnx(m, {"x": x})
    xq = np.zeros((1, 1, 4, 4), "uint8")
    inits = {"xs": f32(0.1), "xz": np.uint8(0), "w": np.zeros((1, 1, 1, 1), "uint8"),
             "wz": np.uint8(0), "ys": f32(0.1), "yz": np.uint8(0)}
    m = model("QLinearConv", {"x": xq, "ws": np.ones(1, "float32")}, inits, ["y"],
              order=["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"])
    with pytest.raises(OnnxImportError, match="w_scale.*constant|weight scale must be a"):
        run_onnx(m, {"x": xq, "ws": np.ones(1, "float32")})


# ------------------------------------------------------ a CNN quantized by onnxruntime
def quantized_cnn(tmp_path, fmt: str, per_channel: bool = False):
    """The CNN (tests/models/quantized_cnn.py) quantized by onnxruntime's
    ``quantize_static``."""
    src, dst = tmp_path / "cnn.onnx", tmp_path / f"cnn_{fmt}.onnx"
    onnx.save(float_cnn(), str(src))
    quantize(str(src), str(dst), fmt, 15, per_channel)
    return onnx.load(str(dst))


@pytest.mark.parametrize("fmt,per_channel", [("QDQ", False), ("QDQ", True), ("QOperator", False),
                                             ("QOperator", True)])
def test_quantized_cnn_against_onnxruntime(tmp_path, fmt, per_channel):
    m = quantized_cnn(tmp_path, fmt, per_channel)
    ops = {n.op_type for n in m.graph.node}
    assert ("QLinearConv" in ops) == (fmt == "QOperator") and "QuantizeLinear" in ops
    # the output's scale: the last DequantizeLinear's
    last = [n for n in m.graph.node if n.op_type == "DequantizeLinear"][-1]
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    scale = float(inits[last.input[1]])
    rng = np.random.default_rng(15)
    for _ in range(3):
        feeds = {"x": rng.standard_normal((1, 3, 15, 15)).astype("float32")}
        want = onnxruntime_outputs(m, feeds)[0]
        got = run_onnx(m, feeds)[0]
        assert got.shape == want.shape == (1, 10)
        # dequantized outputs within one scale (one quantization step)
        assert np.abs(got - want).max() <= scale * 1.001
