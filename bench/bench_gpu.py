"""tvmlite on a real NVIDIA GPU beside PyTorch (cuBLAS/cuDNN), ratios from one run.

Rows (batch 1, fp32, TF32 off on both sides so the comparison is fp32 against fp32):

- GEMM 4096^3 with the book's schedule (ch.5.4, tests/book_ch5.py) and with a tuned schedule
  (the ``bench_gpu/gemm`` AutoTVM template below, ``--trials`` measured configs) vs
  ``torch.matmul``; the issue's goal for the tuned one is >= 0.8x.
- depthwise conv 3x3 with the book's schedule (ch.5.6) vs ``torch.nn.functional.conv2d`` with
  ``groups=c``; goal >= 1.0x.
- the ResNet-18 conv layers with the classic ``conv2d_nchw.cuda`` template (tuned with
  ``--trials`` configs each, or its fallback config with ``--trials 0``) vs cuDNN.
- NVRTC compile time of the kernels above (no disk cache).

``ratio`` is torch's time / ours: above 1 we are faster. Where no CUDA device exists (or
cuda-python is missing) it says so and exits 0. ``--dry-run`` runs every row at small sizes
through the CPU emulation (``TVMLITE_GPU_EMULATION=1``), checked against numpy, to show the
bench itself works without a GPU (tests/test_gpu_bench.py runs it).

Run: python bench/bench_gpu.py [--trials N] [--dry-run]
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import book_ch4  # noqa: E402
import book_ch5 as b  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import autotvm, te, topi  # noqa: E402

# ResNet-18's convolutions at batch 1: (in channels, size, out channels, kernel, stride, pad)
RESNET18 = [(3, 224, 64, 7, 2, 3), (64, 56, 64, 3, 1, 1), (64, 56, 128, 3, 2, 1),
            (64, 56, 128, 1, 2, 0), (128, 28, 128, 3, 1, 1), (128, 28, 256, 3, 2, 1),
            (128, 28, 256, 1, 2, 0), (256, 14, 256, 3, 1, 1), (256, 14, 512, 3, 2, 1),
            (256, 14, 512, 1, 2, 0), (512, 7, 512, 3, 1, 1)]


@autotvm.template("bench_gpu/gemm")
def gemm_template(n: int):
    """C = A @ B (n x n): each block a tile of C from shared tiles of A and B, each thread a
    vthread-interleaved sub-tile in registers; tile sizes and unrolling are knobs."""
    k = te.reduce_axis((0, n), name="k")
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    cfg = autotvm.get_config()
    CL = s.cache_write(C, "local")
    AS = s.cache_read(A, "shared", [CL])
    BS = s.cache_read(B, "shared", [CL])
    AL = s.cache_read(AS, "local", [CL])
    BL = s.cache_read(BS, "local", [CL])
    y, x = s[C].op.axis

    def tile_ok(e):  # (block, vthread, thread, inner): a few register tiles, 8-32 threads
        return e.size[1] <= 2 and 8 <= e.size[2] <= 32 and 2 <= e.size[3] <= 8

    cfg.define_split("tile_y", y, num_outputs=4, filter=tile_ok)
    cfg.define_split("tile_x", x, num_outputs=4, filter=tile_ok)
    cfg.define_split("tile_k", k, num_outputs=2, filter=lambda e: e.size[1] in (4, 8, 16))
    cfg.define_knob("auto_unroll_max_step", [0, 512, 1500])
    cfg.define_knob("unroll_explicit", [0, 1])
    by, vy, ty, yi = cfg["tile_y"].apply(s, C, y)
    bx, vx, tx, xi = cfg["tile_x"].apply(s, C, x)
    s[C].reorder(by, bx, vy, vx, ty, tx, yi, xi)
    s[C].bind(by, te.thread_axis("blockIdx.y"))
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(vy, te.thread_axis("vthread"))
    s[C].bind(vx, te.thread_axis("vthread"))
    s[C].bind(ty, te.thread_axis("threadIdx.y"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].pragma(by, "auto_unroll_max_step", cfg["auto_unroll_max_step"].val)
    s[C].pragma(by, "unroll_explicit", cfg["unroll_explicit"].val)
    s[CL].compute_at(s[C], tx)
    yo, xo = s[CL].op.axis
    ko, ki = cfg["tile_k"].apply(s, CL, s[CL].op.reduce_axis[0])
    s[CL].reorder(ko, ki, yo, xo)
    for shared, local in ((AS, AL), (BS, BL)):
        s[shared].compute_at(s[CL], ko)
        s[local].compute_at(s[CL], ki)
        fused = s[shared].fuse(*s[shared].op.axis)
        t_y, fused = s[shared].split(fused, nparts=cfg["tile_y"].size[2])
        t_x, _ = s[shared].split(fused, nparts=cfg["tile_x"].size[2])
        s[shared].bind(t_y, te.thread_axis("threadIdx.y"))
        s[shared].bind(t_x, te.thread_axis("threadIdx.x"))
    cfg.add_flop(2 * n ** 3)
    return s, [A, B, C]


class Bench:
    def __init__(self, dry: bool, trials: int, log_dir: str):
        self.dry, self.trials, self.log_dir = dry, trials, log_dir
        self.dev = tvm.cuda(0)
        self.sources = []
        self.torch = None if dry else _torch_cuda()

    # ------------------------------------------------------------------ timing and checks
    def ours(self, mod, arrays) -> float:
        """Seconds per call: CUDA events through time_evaluator (one call when dry)."""
        if self.dry:
            mod(*arrays)
            return float("nan")
        ev = mod.time_evaluator(mod.entry_name, self.dev, number=10, repeat=5,
                                min_repeat_ms=50)
        return float(np.median(ev(*arrays).results))

    def baseline(self, f) -> float:
        if self.torch is None:
            return float("nan")
        torch = self.torch
        f()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(5):
            start.record()
            for _ in range(10):
                f()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / 10 / 1e3)
        return float(np.median(times))

    def build(self, s, args, target="cuda"):
        mod = tvm.build(s, list(args), target)
        self.sources.append(mod.imported_modules[0].get_source())
        return mod

    def row(self, name, flops, t_ours, t_torch, note=""):
        if self.dry:
            print(f"{name:40s} built, ran in emulation, matches numpy")
            return
        gf = flops / t_ours / 1e9
        ratio = t_torch / t_ours if t_torch == t_torch else float("nan")
        print(f"{name:40s} ours {t_ours * 1e3:8.3f} ms {gf:8.1f} GFLOP/s   torch "
              f"{t_torch * 1e3:8.3f} ms   ratio {ratio:5.2f}x {note}")

    def arrays(self, *shapes):
        rng = np.random.default_rng(0)
        host = [rng.standard_normal(sh, dtype="float32") for sh in shapes]
        return host, [tvm.nd.array(x, self.dev) for x in host]

    def to_torch(self, host):
        return [self.torch.from_numpy(x).cuda() for x in host]

    # ------------------------------------------------------------------------- the rows
    def gemm(self, n: int):
        (a, bb), (da, db) = self.arrays((n, n), (n, n))
        dc = tvm.nd.empty((n, n), "float32", self.dev)
        t_torch = float("nan")
        if self.torch is not None:
            ta, tb = self.to_torch([a, bb])
            t_torch = self.baseline(lambda: self.torch.matmul(ta, tb))
        mod = self.build(*b.matmul_gpu(n))
        t = self.ours(mod, [da, db, dc])
        self.check(dc, a @ bb)
        self.row(f"GEMM {n}^3 book schedule (ch.5.4)", 2 * n ** 3, t, t_torch)
        task = autotvm.task.create("bench_gpu/gemm", args=(n,), target="cuda")
        best = self.tune(task, f"gemm{n}")
        with autotvm.apply_history_best(best):
            with tvm.target.Target("cuda"):
                s, args = gemm_template(n)
        mod = self.build(s, args)
        t = self.ours(mod, [da, db, dc])
        self.check(dc, a @ bb)
        self.row(f"GEMM {n}^3 tuned ({self.trials} trials)", 2 * n ** 3, t, t_torch,
                 "(goal >= 0.8x)")

    def depthwise(self, c: int, n: int, k: int = 3):
        p = k // 2
        (x, w), (dx, dw) = self.arrays((c, n, n), (c, 1, k, k))
        dy = tvm.nd.empty((c, n, n), "float32", self.dev)
        t_torch = float("nan")
        if self.torch is not None:
            tx_, tw = self.to_torch([x[None], w])
            fn = self.torch.nn.functional.conv2d
            t_torch = self.baseline(lambda: fn(tx_, tw, padding=p, groups=c))
        mod = self.build(*b.depthwise_schedule(c, n, k, p, 1))
        t = self.ours(mod, [dx, dw, dy])
        self.check(dy, book_ch4.conv_ref(x, w, p, 1, depthwise=True))
        self.row(f"depthwise {c}x{n}x{n} k{k} (ch.5.6)", 2 * c * n * n * k * k, t, t_torch,
                 "(goal >= 1.0x)")

    def conv(self, ic, n, oc, k, stride, pad):
        shapes = ((1, ic, n, n), (oc, ic, k, k))
        args = (("TENSOR", shapes[0], "float32"), ("TENSOR", shapes[1], "float32"),
                (stride, stride), (pad, pad), (1, 1), "float32")
        task = autotvm.task.create("conv2d_nchw.cuda", args=args, target="cuda")
        log = self.tune(task, f"conv{ic}_{n}_{oc}_{k}_{stride}") if self.trials else None
        (d, w), (dd, dw) = self.arrays(*shapes)
        ref = topi.testing.conv2d_nchw_python(d, w, stride, pad)
        out = tvm.nd.empty(ref.shape, "float32", self.dev)
        with autotvm.apply_history_best(log) if log else _nothing():
            with tvm.target.Target("cuda"):
                data = te.placeholder(shapes[0], name="data")
                kernel = te.placeholder(shapes[1], name="kernel")
                y = topi.cuda.conv2d_nchw(data, kernel, (stride, stride), (pad, pad), (1, 1),
                                          "float32")
                s = topi.cuda.schedule_conv2d_nchw(y)
        mod = self.build(s, [data, kernel, y])
        t = self.ours(mod, [dd, dw, out])
        self.check(out, ref)
        t_torch = float("nan")
        if self.torch is not None:
            td, tw = self.to_torch([d, w])
            fn = self.torch.nn.functional.conv2d
            t_torch = self.baseline(lambda: fn(td, tw, stride=stride, padding=pad))
        flops = 2 * np.prod(ref.shape) * ic * k * k
        self.row(f"resnet18 conv {ic}x{n}x{n} -> {oc} k{k} s{stride}", flops, t, t_torch)

    def tune(self, task, name: str):
        """The log of ``self.trials`` measured configs of ``task`` (random order)."""
        log = os.path.join(self.log_dir, f"{name}.log")
        runner = autotvm.LocalRunner(number=2 if self.dry else 10, repeat=1 if self.dry else 3,
                                     min_repeat_ms=0 if self.dry else 50, timeout=60,
                                     check_correctness=self.dry)
        option = autotvm.measure_option(builder=autotvm.LocalBuilder(timeout=300),
                                        runner=runner)
        tuner = autotvm.tuner.RandomTuner(task)
        tuner.tune(n_trial=min(self.trials, len(task.config_space)), measure_option=option,
                   callbacks=[autotvm.callback.log_to_file(log)])
        return log

    def check(self, got, want):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-3, atol=1e-2)

    def compile_times(self):
        from tvmlite.runtime.cuda_compile import compile_cuda, nvrtc_available

        if not nvrtc_available():
            print("NVRTC compile time: n/a (cuda-python is not installed)")
            return
        times = []
        for src in self.sources:
            t0 = time.perf_counter()
            compile_cuda(src + f"\n// {time.time_ns()}\n", "sm_90")  # a fresh source: no cache
            times.append(time.perf_counter() - t0)
        print(f"NVRTC compile time of {len(times)} modules: median {np.median(times):.3f} s, "
              f"max {max(times):.3f} s, total {sum(times):.2f} s")


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _torch_cuda():
    """torch with CUDA and TF32 off, or None (then baselines print as nan)."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    return torch


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=32, help="AutoTVM configs measured per task")
    ap.add_argument("--dry-run", action="store_true",
                    help="every row at small sizes in the CPU emulation, checked against numpy")
    ap.add_argument("--skip-resnet", action="store_true")
    opts = ap.parse_args(argv)
    if opts.dry_run:
        os.environ["TVMLITE_GPU_EMULATION"] = "1"
    else:
        dev = tvm.cuda(0)
        if dev.emulated or not dev.exist:
            why = ("TVMLITE_GPU_EMULATION is set" if dev.emulated else
                   "no CUDA device or no cuda-python (pip install 'tvmlite[cuda]')")
            print(f"bench_gpu: needs a real NVIDIA GPU ({why}); nothing measured. "
                  "bench/bench_gpu_emulation.py times the CPU emulation, --dry-run checks "
                  "this bench in it.")
            return 0
        print(f"device: compute {dev.compute_version}, {dev.multi_processor_count} SMs; torch "
              f"{'with CUDA, TF32 off' if _torch_cuda() else 'n/a (baselines print nan)'}")
    with tempfile.TemporaryDirectory() as logs:
        bench = Bench(opts.dry_run, opts.trials, logs)
        if opts.dry_run:
            bench.gemm(64)
            bench.depthwise(4, 16)
            if not opts.skip_resnet:
                bench.conv(4, 9, 8, 3, 1, 1)
        else:
            bench.gemm(4096)
            for c in (32, 128, 256):
                bench.depthwise(c, 64)
            if not opts.skip_resnet:
                for layer in RESNET18:
                    bench.conv(*layer)
        bench.compile_times()
    return 0


if __name__ == "__main__":
    sys.exit(main())
