"""Relay end to end: ResNet-18, MobileNetV2 and a BERT-base encoder layer (seq 128) from
ONNX (tests/models/onnx_models.py, random weights), compiled with relay.build (opt_level 3,
fallback configs) and timed against onnxruntime and torch eager in one process (medians).

Also: compile time cold (empty kernel cache) and warm, and the graph executor's overhead
per node (a chain of tiny element-wise kernels). Run: ``python bench/bench_relay.py
[--small] [--models resnet18,...]`` with 2 threads (OMP_NUM_THREADS=2).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))


def _median_ms(fn, repeat: int = 20, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e3)


def bench_model(name: str, small: bool, threads: int) -> dict:
    import onnxruntime as ort
    import torch
    from models import onnx_models

    import tvmlite as tvm
    from tvmlite import relay
    from tvmlite.contrib import graph_executor

    path = os.path.join(tempfile.mkdtemp(), f"{name}.onnx")
    onnx_models.export(name, path, small=small)
    feeds = onnx_models.random_inputs(name, small, seed=1)
    t0 = time.perf_counter()
    mod, params = relay.frontend.from_onnx(path)
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(mod, target="llvm", params=params)
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    mod, params = relay.frontend.from_onnx(path)
    with tvm.transform.PassContext(opt_level=3):
        relay.build(mod, target="llvm", params=params)
    warm_s = time.perf_counter() - t0
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.set_input(**feeds)
    gm.run()
    ours = gm.get_output(0).numpy()
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    want = sess.run(None, feeds)[0]
    err = float(np.abs(ours - want).max() / np.abs(want).max())
    t_ours = _median_ms(gm.run)
    t_ort = _median_ms(lambda: sess.run(None, feeds))
    torch.set_num_threads(threads)
    model = onnx_models.MODELS[name](small).eval()
    targs = tuple(torch.from_numpy(v) for v in feeds.values())
    with torch.no_grad():
        t_torch = _median_ms(lambda: model(*targs))
    import json
    n_nodes = sum(1 for n in json.loads(factory.get_graph_json())["nodes"]
                  if n["op"] == "tvm_op")
    return dict(model=name, err=err, ours=t_ours, ort=t_ort, torch=t_torch,
                compile_cold=compile_s, compile_warm=warm_s, kernels=n_nodes)


def executor_overhead(n: int = 200) -> float:
    """Microseconds per node of a chain of n tiny kernels (4 floats each)."""
    import tvmlite as tvm
    from tvmlite import relay
    from tvmlite.contrib import graph_executor
    x = relay.var("x", shape=(4,))
    y = x
    for i in range(n):
        y = relay.nn.relu(y) if i % 2 else relay.negative(y)
    with tvm.transform.PassContext(opt_level=0):
        factory = relay.build(tvm.IRModule.from_expr(relay.Function([x], y)), target="llvm")
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.set_input("x", np.ones(4, "float32"))
    return _median_ms(gm.run) * 1e3 / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", action="store_true", help="the narrow test variants")
    ap.add_argument("--models", default="resnet18,mobilenet_v2,bert_layer")
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", 2)))
    args = ap.parse_args()
    # cold compile: an empty kernel cache (set before tvmlite is imported)
    os.environ.setdefault("TVMLITE_CACHE_DIR", tempfile.mkdtemp(prefix="bench_relay_cache_"))
    warnings.simplefilter("ignore")
    import logging
    logging.getLogger("autotvm").setLevel(logging.ERROR)
    print(f"{'model':14s} {'kernels':>7s} {'ours ms':>9s} {'ort ms':>8s} {'torch ms':>9s} "
          f"{'ours/ort':>9s} {'ours/torch':>10s} {'cold s':>7s} {'warm s':>7s} "
          f"{'max rel err':>12s}")
    for name in args.models.split(","):
        r = bench_model(name, args.small, args.threads)
        print(f"{r['model']:14s} {r['kernels']:7d} {r['ours']:9.2f} {r['ort']:8.2f} "
              f"{r['torch']:9.2f} {r['ours'] / r['ort']:9.2f} {r['ours'] / r['torch']:10.2f} "
              f"{r['compile_cold']:7.1f} {r['compile_warm']:7.1f} {r['err']:12.2e}",
              flush=True)
    print(f"graph executor overhead: {executor_overhead():.2f} us per node")


if __name__ == "__main__":
    main()
