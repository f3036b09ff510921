"""Book §1.4.4: ResNet-18 on a "remote" device. The network (tests/models/onnx_models.py,
random weights) is compiled here, its library exported and uploaded to a loopback
``rpc_server``, and run there with ``graph_runtime.create(graph, remote_lib, remote.cpu())``;
the output is checked against the local graph executor and onnxruntime, and the per-inference
time through RPC is printed beside the local one (medians, one process).

    python bench/bench_rpc_resnet.py [--small]
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import tvmlite as tvm  # noqa: E402
from tvmlite import relay, rpc  # noqa: E402
from tvmlite.contrib import graph_runtime  # noqa: E402


def median_ms(fn, repeat: int = 10) -> float:
    fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e3)


def main() -> None:
    import onnxruntime as ort
    from models import onnx_models

    small = "--small" in sys.argv
    work = tempfile.mkdtemp()
    path = os.path.join(work, "resnet18.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onnx_models.export("resnet18", path, small=small)
    feeds = onnx_models.random_inputs("resnet18", small, seed=1)
    (name, x), = feeds.items()
    mod, params = relay.frontend.from_onnx(path)
    t0 = time.perf_counter()
    with tvm.transform.PassContext(opt_level=3):
        graph, lib, params = relay.build(mod, target="llvm", params=params)
    build_s = time.perf_counter() - t0
    lib_path = os.path.join(work, "resnet18.tar")
    lib.export_library(lib_path)

    local = graph_runtime.create(graph, tvm.runtime.load_module(lib_path), tvm.cpu())
    local.set_input(**params)
    local.set_input(name, x)
    server = rpc.Server("127.0.0.1", port=0, silent=True)
    try:
        remote = rpc.connect("127.0.0.1", server.port)
        t0 = time.perf_counter()
        remote.upload(lib_path)
        rlib = remote.load_module(os.path.basename(lib_path))
        rt = graph_runtime.create(graph, rlib, remote.cpu())
        rt.set_input(**params)
        setup_s = time.perf_counter() - t0
        rt.run(**{name: tvm.nd.array(x)})
        got = rt.get_output(0).numpy()
        local.run()
        want_local = local.get_output(0).numpy()
        (want_ort,) = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
            None, feeds)
        err = float(np.abs(got - want_ort).max() / np.abs(want_ort).max())
        print(f"ResNet-18{' (small)' if small else ''} over RPC (loopback): build "
              f"{build_s:.1f} s, upload+load+params {setup_s:.2f} s")
        print(f"  output equals the local executor: {np.array_equal(got, want_local)}; "
              f"max rel. error vs onnxruntime {err:.2e}")

        def remote_inference():
            rt.set_input(name, x)
            rt.run()
            rt.get_output(0).numpy()

        def local_inference():
            local.set_input(name, x)
            local.run()
            local.get_output(0).numpy()

        # alternate, so both see the same machine (and each other's idle OpenMP threads)
        r_runs, l_runs = [], []
        for _ in range(5):
            l_runs.append(median_ms(local_inference, 4))
            r_runs.append(median_ms(remote_inference, 4))
        r_ms, l_ms = float(np.median(r_runs)), float(np.median(l_runs))
        print(f"  inference (input up, output back): remote {r_ms:.2f} ms, local {l_ms:.2f} ms "
              f"({r_ms / l_ms:.2f}x)")
        remote.close()
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
