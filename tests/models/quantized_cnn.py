"""A small float CNN as ONNX (conv-relu-maxpool-conv(stride 2)-relu-flatten-gemm) and the
same quantized by onnxruntime's ``quantize_static`` (uint8 activations, int8 weights, a
calibration reader of random data): the quantized models of the tests and of
``bench/bench_qnn.py``."""
from __future__ import annotations

import numpy as np


def float_cnn(size: int = 15, widths=(8, 16), scale: float = 0.2, seed: int = 14):
    """The float model (``onnx.ModelProto``) for a 1x3x``size``x``size`` input ``x`` and a
    1x10 output ``y``; convolutions of ``widths`` channels, weights N(0, ``scale``)."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(seed)

    def init(name, shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype("float32"),
                                       name)
    c1, c2 = widths
    s4 = (size // 2 + 1) // 2
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Flatten", ["r2"], ["f"]),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1),
    ]
    inits = [init("w1", (c1, 3, 3, 3)), init("b1", (c1,)), init("w2", (c2, c1, 3, 3)),
             init("b2", (c2,)), init("w3", (10, c2 * s4 * s4)), init("b3", (10,))]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, 3, size, size))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 10))], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def quantize(src: str, dst: str, fmt: str, size: int, per_channel: bool = False,
             samples: int = 6, seed: int = 1) -> None:
    """Quantize the float model at ``src`` into ``dst`` in ``fmt`` ("QDQ" or "QOperator")."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    rng = np.random.default_rng(seed)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter([{"x": rng.standard_normal((1, 3, size, size)).astype("float32")}
                            for _ in range(samples)])

        def get_next(self):
            return next(self.it, None)
    quantize_static(src, dst, Reader(), quant_format=getattr(QuantFormat, fmt),
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    per_channel=per_channel)
