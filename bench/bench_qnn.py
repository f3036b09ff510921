"""Quantized CNN latency: tvmlite vs onnxruntime on one int8 model.

Run::

    OMP_NUM_THREADS=2 TVM_NUM_THREADS=2 python bench/bench_qnn.py [--size 56] [--rounds 15]

A conv-relu-pool-conv-relu-gemm CNN (random weights, input ``1x3xSxS``) is quantized by
onnxruntime's ``quantize_static`` (uint8 activations, int8 weights, a calibration reader of
random data) in the QOperator and QDQ formats (the QDQ one also through
``FakeQuantizationToInteger``); each is imported with ``from_onnx`` and built
by ``relay.build`` (opt_level 3, llvm, untuned fallback configs). In this one process the
graph executor's ``run()`` and the ORT session's ``run`` (CPUExecutionProvider, same thread
count) are timed in alternating rounds and the medians compared; the float model is timed
too as a reference. Also printed: the largest difference of the outputs (in output scales).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def make_cnn(size: int, path: str) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)

    def init(name, shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype("float32"),
                                       name)
    s2 = size // 2
    s4 = (s2 + 1) // 2
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
    inits = [init("w1", (32, 3, 3, 3)), init("b1", (32,)), init("w2", (64, 32, 3, 3)),
             init("b2", (64,)), init("w3", (10, 64 * s4 * s4)), init("b3", (10,))]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, 3, size, size))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 10))], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)


def quantize(src: str, dst: str, fmt: str, size: int) -> None:
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    rng = np.random.default_rng(1)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter([{"x": rng.standard_normal((1, 3, size, size)).astype("float32")}
                            for _ in range(8)])

        def get_next(self):
            return next(self.it, None)
    quantize_static(src, dst, Reader(), quant_format=getattr(QuantFormat, fmt),
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=56)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    import onnx
    import onnxruntime as ort

    import tvmlite as tvm
    from tvmlite import relay
    from tvmlite.contrib import graph_executor
    threads = int(os.environ.get("TVM_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "2")))
    tmp = tempfile.mkdtemp()
    src = os.path.join(tmp, "cnn.onnx")
    make_cnn(args.size, src)
    models = {"float": src}
    for fmt in ("QOperator", "QDQ"):
        models[fmt] = os.path.join(tmp, f"cnn_{fmt}.onnx")
        quantize(src, models[fmt], fmt, args.size)
    x = np.random.default_rng(2).standard_normal((1, 3, args.size, args.size)).astype(
        "float32")
    print(f"CNN 1x3x{args.size}x{args.size} conv(32)-relu-pool-conv(64,s2)-relu-gemm(10); "
          f"{threads} thread(s); medians of {args.rounds} alternating rounds")
    models["QDQ+FQ2I"] = models["QDQ"]
    for name, path in models.items():
        m = onnx.load(path)
        mod, params = relay.frontend.from_onnx(m)
        if name.endswith("FQ2I"):  # the weights bound, the QDQ regions made integer
            from tvmlite.relay.build_module import bind_params_by_name
            mod = tvm.IRModule({"main": bind_params_by_name(mod["main"], params)})
            mod = relay.transform.FakeQuantizationToInteger()(mod)
            params = {}
        with tvm.transform.PassContext(opt_level=3):
            factory = relay.build(mod, target="llvm", params=params)
        gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
        gm.set_input("x", x)
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        gm.run()
        got = gm.get_output(0).numpy()
        want = sess.run(None, {"x": x})[0]
        last = [n for n in m.graph.node if n.op_type == "DequantizeLinear"]
        inits = {i.name: onnx.numpy_helper.to_array(i) for i in m.graph.initializer}
        scale = float(inits[last[-1].input[1]]) if last else None

        def timed(f, n=20):
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            return (time.perf_counter() - t0) / n
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(timed(gm.run))
            theirs.append(timed(lambda s=sess: s.run(None, {"x": x})))
        a, b = statistics.median(ours), statistics.median(theirs)
        err = np.abs(got - want).max()
        err_s = f"{err / scale:.2f} output scales" if scale else f"{err:.2e} abs"
        print(f"{name:10s} tvmlite {a * 1e3:8.3f} ms   ORT {b * 1e3:8.3f} ms   "
              f"ratio {a / b:5.2f}x   max |diff| {err_s}")


if __name__ == "__main__":
    main()
