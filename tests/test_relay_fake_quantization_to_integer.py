"""relay.transform.FakeQuantizationToInteger: dequantize -> float ops -> quantize regions
become integer QNN ops computing the same quantized results (within one step where the float
and fixed-point roundings of a tie differ), on random inputs of odd sizes; regions it cannot
rewrite stay as they are, or raise with hard_fail."""
import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.relay import qnn


def c(v, dtype):
    return relay.const(np.asarray(v, dtype=dtype))


def _compare(expr, feeds, steps=1):
    func = relay.Function(relay.analysis.free_vars(expr), expr)
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(func))
    out = relay.transform.FakeQuantizationToInteger()(mod)
    text = out.astext()
    assert "qnn.dequantize" not in text, text  # (a float bias is quantized: a constant)
    want = build_run(mod["main"], feeds)[0][0]
    got = build_run(out["main"], feeds)[0][0]
    assert got.dtype == want.dtype
    diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
    assert diff.max() <= steps
    return text


def test_conv_bias_relu_pool_region():
    rng = np.random.default_rng(0)
    x = relay.var("x", shape=(1, 3, 11, 9), dtype="uint8")
    w = relay.var("w", shape=(5, 3, 3, 3), dtype="int8")
    b = rng.uniform(-1, 1, 5).astype("float32")
    y = relay.nn.conv2d(qnn.op.dequantize(x, c(0.05, "float32"), c(128, "int32")),
                        qnn.op.dequantize(w, c(0.02, "float32"), c(0, "int32")),
                        padding=(1, 1), kernel_size=(3, 3), channels=5)
    y = relay.nn.relu(relay.nn.bias_add(y, relay.const(b)))
    y = relay.nn.max_pool2d(y, (2, 2), (2, 2))
    y = relay.reshape(y, (1, -1))
    y = qnn.op.quantize(y, c(0.04, "float32"), c(10, "int32"), out_dtype="uint8")
    feeds = {"x": rng.integers(0, 256, (1, 3, 11, 9)).astype("uint8"),
             "w": rng.integers(-128, 128, (5, 3, 3, 3)).astype("int8")}
    text = _compare(y, feeds)
    assert "qnn.conv2d" in text and "nn.max_pool2d" in text


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "minimum", "maximum"])
def test_binary_regions(op):
    rng = np.random.default_rng(1)
    x = relay.var("x", shape=(3, 7), dtype="int8")
    y = relay.var("y", shape=(3, 7), dtype="int8")
    a = qnn.op.dequantize(x, c(0.1, "float32"), c(3, "int32"))
    b = qnn.op.dequantize(y, c(0.07, "float32"), c(-2, "int32"))
    out = getattr(relay, op)(a, b)
    out = qnn.op.quantize(out, c(0.5 if op == "multiply" else 0.13, "float32"),
                          c(1, "int32"), out_dtype="int8")
    feeds = {"x": rng.integers(-128, 128, (3, 7)).astype("int8"),
             "y": rng.integers(-128, 128, (3, 7)).astype("int8")}
    _compare(out, feeds)


def test_binary_with_constant_and_concatenate():
    rng = np.random.default_rng(2)
    x = relay.var("x", shape=(2, 5), dtype="uint8")
    y = relay.var("y", shape=(2, 3), dtype="uint8")
    a = qnn.op.dequantize(x, c(0.1, "float32"), c(120, "int32"))
    a = relay.add(a, relay.const(np.float32(0.7)))
    b = qnn.op.dequantize(y, c(0.2, "float32"), c(100, "int32"))
    out = relay.concatenate([a, b], axis=1)
    out = qnn.op.quantize(out, c(0.15, "float32"), c(128, "int32"), out_dtype="uint8")
    feeds = {"x": rng.integers(0, 256, (2, 5)).astype("uint8"),
             "y": rng.integers(0, 256, (2, 3)).astype("uint8")}
    text = _compare(out, feeds)
    assert "qnn.concatenate" in text and "qnn.add" in text


def test_avg_pool_then_conv():
    rng = np.random.default_rng(3)
    x = relay.var("x", shape=(1, 4, 13, 11), dtype="uint8")
    w = relay.var("w", shape=(6, 4, 1, 1), dtype="uint8")
    y = relay.nn.avg_pool2d(qnn.op.dequantize(x, c(0.64, "float32"), c(2, "int32")), (3, 3))
    y = relay.nn.conv2d(y, qnn.op.dequantize(w, c(0.5, "float32"), c(10, "int32")),
                        kernel_size=(1, 1), channels=6)
    y = qnn.op.quantize(y, c(8.0, "float32"), c(0, "int32"), out_dtype="uint8")
    feeds = {"x": rng.integers(0, 256, (1, 4, 13, 11)).astype("uint8"),
             "w": rng.integers(0, 256, (6, 4, 1, 1)).astype("uint8")}
    _compare(y, feeds)


def test_regions_left_alone_and_hard_fail():
    x = relay.var("x", shape=(2, 6), dtype="int8")
    a = qnn.op.dequantize(x, c(0.1, "float32"), c(0, "int32"))
    out = qnn.op.quantize(relay.nn.softmax(a), c(0.01, "float32"), c(0, "int32"))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([x], out)))
    kept = relay.transform.FakeQuantizationToInteger()(mod)
    assert tvm.ir.structural_equal(kept, mod)
    with pytest.raises(TVMError, match="no rewrite rule for nn.softmax"):
        relay.transform.FakeQuantizationToInteger(hard_fail=True)(mod)
    # a float input (no dequantize) is not a fake-quantized region
    f = relay.var("f", shape=(2, 6))
    plain = qnn.op.quantize(relay.nn.relu(f), c(0.1, "float32"), c(0, "int32"))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([f], plain)))
    assert tvm.ir.structural_equal(relay.transform.FakeQuantizationToInteger()(mod), mod)


def test_qat_mode_moves_ops_below_dequantize():
    """use_qat: batch_matmul of dequantized inputs becomes qnn.batch_matmul + dequantize
    (no quantize follows it); the float add after it stays float; an int32 accumulator plus
    a constant at its scale is a plain add."""
    rng = np.random.default_rng(4)
    a = relay.var("a", shape=(1, 5, 3), dtype="int8")
    b = relay.var("b", shape=(1, 7, 3), dtype="int8")
    mm = relay.nn.batch_matmul(qnn.op.dequantize(a, c(2.0, "float32"), c(0, "int32")),
                               qnn.op.dequantize(b, c(6.0, "float32"), c(1, "int32")))
    expr = relay.erf(relay.add(mm, relay.const(np.float32(1.0))))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([a, b], expr)))
    out = relay.transform.FakeQuantizationToInteger(use_qat=True)(mod)
    text = out.astext()
    assert "qnn.batch_matmul" in text and "nn.batch_matmul(" not in text.replace(
        "qnn.batch_matmul(", "")
    assert "qnn.dequantize" in text and "erf(" in text
    assert tvm.ir.structural_equal(relay.transform.FakeQuantizationToInteger()(mod), mod)
    feeds = {"a": rng.integers(-128, 128, (1, 5, 3)).astype("int8"),
             "b": rng.integers(-128, 128, (1, 7, 3)).astype("int8")}
    np.testing.assert_allclose(build_run(out["main"], feeds)[0][0],
                               build_run(mod["main"], feeds)[0][0], rtol=1e-6)
    # with a quantize after the add: the constant joins the int32 accumulator exactly
    q = qnn.op.quantize(relay.add(mm, relay.const(np.float32(12.0))), c(1.0, "float32"),
                        c(0, "int32"))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([a, b], q)))
    text = _compare(q, feeds, steps=0)
    assert "qnn.add" not in text and "add(" in text
