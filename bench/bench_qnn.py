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
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=56)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    import onnx
    import onnxruntime as ort
    from models import quantized_cnn

    import tvmlite as tvm
    from tvmlite import relay
    from tvmlite.contrib import graph_executor
    threads = int(os.environ.get("TVM_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "2")))
    tmp = tempfile.mkdtemp()
    src = os.path.join(tmp, "cnn.onnx")
    onnx.save(quantized_cnn.float_cnn(args.size, (32, 64), 0.1, seed=0), src)
    models = {"float": src}
    for fmt in ("QOperator", "QDQ"):
        models[fmt] = os.path.join(tmp, f"cnn_{fmt}.onnx")
        quantized_cnn.quantize(src, models[fmt], fmt, args.size, samples=8)
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
