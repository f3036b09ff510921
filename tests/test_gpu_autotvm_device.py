"""AutoTVM on a real CUDA device: the builder's driver-API library (kernels as PTX/cubin in
its metadata) is loaded by the runner, checked against the reference and timed with CUDA
events. Skips without a GPU (the emulated path is tests/test_gpu_autotvm.py)."""
import numpy as np

import tvmlite as tvm
from tvmlite import autotvm, te
from tvmlite.autotvm.measure import MeasureInput


@autotvm.template("test_gpu_autotvm_device/add")
def add(n):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2 + 1, name="B")
    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    cfg.define_split("tile", B.op.axis[0], num_outputs=2, filter=lambda e: e.size[-1] <= 1024)
    bx, tx = cfg["tile"].apply(s, B, B.op.axis[0])
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, B]


@tvm.testing.requires_cuda
def test_tune_on_a_real_gpu(monkeypatch, tmp_path):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    n = 2310  # many tile sizes
    task = autotvm.task.create("test_gpu_autotvm_device/add", args=(n,), target="cuda")
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(timeout=120),
        runner=autotvm.LocalRunner(number=5, repeat=2, timeout=60, check_correctness=True))
    batch = autotvm.measure.create_measure_batch(task, option)
    configs = [task.config_space.get(i) for i in range(min(4, len(task.config_space)))]
    res = batch([MeasureInput(task.target, task, c) for c in configs])
    assert all(r.error_no == 0 for r in res), res
    assert all(0 < c < 1 for r in res for c in r.costs), res
    best = configs[min(range(len(res)), key=lambda i: np.mean(res[i].costs))]
    with tvm.target.Target("cuda"):
        s, args = task.instantiate(best)
    f = tvm.build(s, args, "cuda")
    dev = tvm.cuda(0)
    assert not dev.emulated
    path = str(tmp_path / "add.so")
    f.export_library(path)
    g = tvm.runtime.load_module(path)
    a = np.random.default_rng(0).normal(size=n).astype("float32")
    b = tvm.nd.array(np.zeros(n, "float32"), dev)
    g(tvm.nd.array(a, dev), b)
    np.testing.assert_allclose(b.numpy(), a * 2 + 1, rtol=1e-6)
