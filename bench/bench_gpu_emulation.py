"""The book's chapter 5 GPU schedules (tests/book_ch5.py) run by the CPU emulation of the CUDA
target (``TVMLITE_GPU_EMULATION=1``), beside numpy on the same machine.

The emulation checks GPU schedules without a GPU; it is not meant to be fast (every thread of
a block is a loop iteration, blocks go to OpenMP threads). Each row: build time, emulated run
time, numpy time, their ratio.

Then the CUDA compile time of kernels (the 1024 matmul, the vthread conv) with NVRTC (when
cuda-python is installed) and with ``nvcc -arch=sm_90 -c`` (when nvcc is on the PATH).

Run: python bench/bench_gpu_emulation.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ["TVMLITE_GPU_EMULATION"] = "1"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import book_ch4  # noqa: E402
import book_ch5 as b  # noqa: E402
import d2ltvm  # noqa: E402
from _timing import median_time  # noqa: E402

import tvmlite as tvm  # noqa: E402


def row(name, sch_args, inputs, out_shape, ref):
    sch, args = sch_args
    t0 = time.perf_counter()
    mod = tvm.build(sch, list(args), "cuda")
    build = time.perf_counter() - t0
    dev = tvm.cuda(0)
    xs = [tvm.nd.array(x, dev) for x in inputs]
    out = tvm.nd.array(np.zeros(out_shape, "float32"), dev)
    t = median_time(lambda: mod(*xs, out), reps=3, number=1)
    want = ref()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-3, atol=1e-3)
    tn = median_time(ref, reps=3)
    print(f"{name:28s} build {build:6.2f} s   emulated {t * 1e3:9.1f} ms   numpy "
          f"{tn * 1e3:8.2f} ms   ratio {t / tn:8.1f}x")


def main():
    np.random.seed(0)
    n = 1 << 20
    a, bb, _ = d2ltvm.get_abc(n)
    row("5.2 vector add 2^20", b.va_parallel(n), [a, bb], (n,), lambda: a + bb)
    m = 1024
    x = np.random.rand(m, m).astype("float32")
    y = np.random.rand(m, m).astype("float32")
    row("5.4 matmul 1024 (shared)", b.matmul_gpu(m), [x, y], (m, m), lambda: x @ y)
    for f in (b.conv_tiling, b.conv_vthread):
        data, weight, out = d2ltvm.get_conv_data(64, 64, 64, 3, 1, 1)
        row(f"5.5 {f.__name__} 64x64x64", f(64, 64, 64, 3, 1, 1), [data, weight], out.shape,
            lambda d=data, w=weight: book_ch4.conv_ref(d, w, 1, 1))
    data, weight, out = d2ltvm.get_conv_data(64, 64, 64, 3, 1, 1, conv_type="depthwise")
    row("5.6 depthwise 64x64x64", b.depthwise_schedule(64, 64, 3, 1, 1), [data, weight],
        out.shape, lambda: book_ch4.conv_ref(data, weight, 1, 1, depthwise=True))


def compile_times():
    from tvmlite.runtime.cuda_compile import compile_cuda, nvrtc_available

    for name, (sch, args) in [("5.4 matmul 1024", b.matmul_gpu(1024)),
                              ("5.5 conv_vthread 64", b.conv_vthread(64, 64, 64, 3, 1, 1))]:
        src = tvm.build(sch, list(args), "cuda -arch=sm_90").imported_modules[0].get_source()
        line = f"{name:28s} CUDA compile:"
        if nvrtc_available():
            t0 = time.perf_counter()
            compile_cuda(src + f"\n// {time.time_ns()}\n", "sm_90")  # a fresh source: no cache
            line += f"   NVRTC {time.perf_counter() - t0:6.3f} s"
        else:
            line += "   NVRTC n/a (no cuda-python)"
        if shutil.which("nvcc"):
            with tempfile.TemporaryDirectory() as tmp:
                cu = Path(tmp) / "k.cu"
                cu.write_text(src)
                t0 = time.perf_counter()
                subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(cu) + ".o"],
                               check=True, capture_output=True)
                line += f"   nvcc {time.perf_counter() - t0:6.3f} s"
        else:
            line += "   nvcc n/a"
        print(line)


if __name__ == "__main__":
    main()
    compile_times()
