"""The book's chapter 4 CPU schedules (§4.3–4.11, from tests/book_ch4.py) beside numpy.

Each row: the schedule's time and GFLOP/s, and a numpy computation of the same result timed in
the same run (medians). The convolutions' numpy baseline is im2col (sliding windows) + matmul.

Then the book's figures: each section's schedules over a range of sizes, GFLOP/s against
size beside numpy and PyTorch (when installed), printed as tables and drawn as PNG files in
``bench/plots/`` (``ch4_*.png``) when matplotlib is installed (``pip install
tvmlite[bench]``). Every point is checked against numpy before it is timed.

Run: python bench/bench_book_ch4.py [--table-only] [--plots DIR]
     (TVM_NUM_THREADS sets the threads; torch uses as many)
"""
import os
import sys
from pathlib import Path

# idle OpenMP workers (ours, torch's, OpenBLAS's) sleep instead of spinning, so that one
# runtime's spinning threads do not hold the cores another times on (set it to active on an
# idle machine)
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import book_ch4 as b  # noqa: E402
from _plot import PLOTS_DIR, have_matplotlib, plot_gflops  # noqa: E402
from _timing import median_time  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite.runtime.threading import num_threads  # noqa: E402

win = np.lib.stride_tricks.sliding_window_view


def np_conv(x, w, p):
    xp = np.pad(x, ((0, 0), (p, p), (p, p)))
    k = w.shape[-1]
    cols = win(xp, (k, k), axis=(1, 2))  # ic, oh, ow, k, k
    ic, oh, ow = cols.shape[:3]
    cols = cols.transpose(1, 2, 0, 3, 4).reshape(oh * ow, -1)
    return (w.reshape(w.shape[0], -1) @ cols.T).reshape(w.shape[0], oh, ow)


def np_depthwise(x, w, p):
    xp = np.pad(x, ((0, 0), (p, p), (p, p)))
    return np.einsum("chwij,cij->chw", win(xp, w.shape[-2:], axis=(1, 2)), w[:, 0],
                     optimize=True)


def np_pool(kind, x, k, p):
    fill = -np.inf if kind == "max" else 0.0
    xw = win(np.pad(x, ((0, 0), (p, p), (p, p)), constant_values=fill), (k, k), axis=(1, 2))
    return xw.max(axis=(-2, -1)) if kind == "max" else xw.mean(axis=(-2, -1))


def np_bn(x, mean, var, gamma, beta):
    return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta


N_VEC, N_BC, N_MM = 1 << 22, 2048, 512
C, HW, K = 64, 64, 3


def cases():
    conv_flops = 2.0 * C * C * HW * HW * K * K
    yield "4.3 vector add default", lambda: b.va_default(N_VEC), lambda a, c: a + c, N_VEC
    yield "4.3 vector add parallel", lambda: b.va_parallel(N_VEC), lambda a, c: a + c, N_VEC
    yield "4.3 vector add vectorized", lambda: b.va_vectorized(N_VEC), lambda a, c: a + c, N_VEC
    yield "4.4 broadcast add default", lambda: b.bc_default(N_BC), np.add, N_BC * N_BC
    yield "4.4 broadcast add good", lambda: b.bc_good(N_BC), np.add, N_BC * N_BC
    yield "4.4 broadcast add bad", lambda: b.bc_bad(N_BC), np.add, N_BC * N_BC
    mm = 2.0 * N_MM ** 3
    yield "4.5 matmul default", lambda: b.mm_default(N_MM), np.matmul, mm
    yield "4.5 matmul reorder", lambda: b.mm_reorder(N_MM), np.matmul, mm
    yield "4.5 matmul parallel", lambda: b.mm_parallel(N_MM), np.matmul, mm
    yield "4.6 matmul block", lambda: b.mm_block(N_MM), np.matmul, mm
    yield "4.6 matmul cached block", lambda: b.mm_cached_block(N_MM), np.matmul, mm
    yield ("4.7 conv cached block", lambda: b.conv_cached_block(C, C, HW, K, 1, 1),
           lambda x, w: np_conv(x, w, 1), conv_flops)
    yield ("4.8 packed conv", lambda: b.packed_cached_block(C, C, HW, K, 1, 1),
           lambda x, w: np_conv(x, w, 1), conv_flops)
    yield ("4.9 depthwise conv", lambda: b.depthwise_cached_block(C, HW, K, 1, 1),
           lambda x, w: np_depthwise(x, w, 1), 2.0 * C * HW * HW * K * K)
    yield ("4.10 max pool", lambda: b.optimized_max((C, HW, K)),
           lambda x: np_pool("max", x, K, 1), C * HW * HW * K * K)
    yield ("4.10 avg pool", lambda: b.schedule_avg((C, HW, K)),
           lambda x: np_pool("avg", x, K, 1), C * HW * HW * K * K)
    yield "4.11 batch norm", lambda: b.optimized_bn((C, HW)), np_bn, 4.0 * C * HW * HW


def table():
    rng = np.random.default_rng(0)
    print(f"book chapter 4 schedules, {num_threads()} threads (medians of 5 runs)")
    print(f"  {'schedule':<28}{'tvmlite':>12}{'GFLOP/s':>9}{'numpy':>12}{'GFLOP/s':>9}"
          f"{'speed vs numpy':>16}")
    for label, make, ref, flops in cases():
        s, args = make()
        mod = tvm.build(s, list(args), target="llvm")
        ins = [rng.random([int(d) for d in t.shape], dtype="float32") for t in args[:-1]]
        out = np.zeros([int(d) for d in args[-1].shape], "float32")
        nd_in = [tvm.nd.array(x) for x in ins]
        nd_out = tvm.nd.array(out)
        mod(*nd_in, nd_out)
        want = ref(*ins)
        np.testing.assert_allclose(nd_out.numpy(), want, rtol=1e-3, atol=1e-3)
        ev = mod.time_evaluator(mod.entry_name, tvm.cpu(), min_repeat_ms=20, repeat=5)
        t = ev(*nd_in, nd_out).median
        tn = median_time(lambda ref=ref, ins=ins: ref(*ins))
        print(f"  {label:<28}{t * 1e3:9.3f} ms{flops / t / 1e9:9.1f}{tn * 1e3:9.3f} ms"
              f"{flops / tn / 1e9:9.1f}{tn / t:15.2f}x")


# ------------------------------------------------------------------------------- figures
try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the figures show numpy alone then
    torch = F = None


def _torch(fn):
    """``fn`` on torch tensors made from the numpy inputs (None without torch)."""
    if torch is None:
        return None

    def run(*xs):
        ts = [torch.from_numpy(x) for x in xs]
        return lambda: fn(*ts)
    return run


def _bn_torch(x, mean, var, gamma, beta):
    return F.batch_norm(x[None], mean.reshape(-1), var.reshape(-1), gamma.reshape(-1),
                        beta.reshape(-1), training=False, eps=1e-5)


CH = [int(c) for c in 2 ** np.arange(4, 9)]  # the book's channel counts, 16..256


def figures():
    """Each book figure: (file, title, x label, x values, sizes, flops(size), tvmlite
    schedules {name: make(size)}, numpy reference, torch baseline or None)."""
    conv_flops = lambda c: 2.0 * c * c * HW * HW * K * K  # noqa: E731
    vec = [int(n) for n in 2 ** np.arange(10, 25, 2)]
    yield ("ch4_3_vector_add.png", "4.3 vector add", "n", vec, vec, float,
           {"default": b.va_default, "parallel": b.va_parallel,
            "vectorized": b.va_vectorized}, lambda a, c: a + c, _torch(torch.add) if torch
           else None)
    bc = [int(n) for n in 2 ** np.arange(5, 13, 2)]
    yield ("ch4_4_broadcast_add.png", "4.4 broadcast add", "size (MB)",
           [3 * n * n * 4 / 1e6 for n in bc], bc, lambda n: float(n * n),
           {"good": b.bc_good, "bad": b.bc_bad}, np.add, _torch(torch.add) if torch else None)
    mm = [int(n) for n in 2 ** np.arange(5, 10)]
    yield ("ch4_5_matmul.png", "4.5-4.6 matrix multiplication", "n", mm, mm,
           lambda n: 2.0 * n ** 3,
           {"default": b.mm_default, "reorder": b.mm_reorder, "parallel": b.mm_parallel,
            "block": b.mm_block, "cached block": b.mm_cached_block}, np.matmul,
           _torch(torch.matmul) if torch else None)
    yield ("ch4_7_conv.png", "4.7-4.8 convolution (64x64, 3x3)", "channels", CH, CH,
           conv_flops,
           {"cached block": lambda c: b.conv_cached_block(c, c, HW, K, 1, 1),
            "packed": lambda c: b.packed_cached_block(c, c, HW, K, 1, 1)},
           lambda x, w: np_conv(x, w, 1),
           _torch(lambda x, w: F.conv2d(x[None], w, padding=1)) if torch else None)
    yield ("ch4_9_depthwise.png", "4.9 depthwise convolution (64x64, 3x3)", "channels", CH,
           CH, lambda c: 2.0 * c * HW * HW * K * K,
           {"cached block": lambda c: b.depthwise_cached_block(c, HW, K, 1, 1)},
           lambda x, w: np_depthwise(x, w, 1),
           _torch(lambda x, w: F.conv2d(x[None], w, padding=1, groups=w.shape[0]))
           if torch else None)
    for kind, make in (("max", b.optimized_max), ("avg", b.schedule_avg)):
        yield (f"ch4_10_{kind}_pool.png", f"4.10 {kind} pooling (64x64, 3x3)", "channels",
               CH, CH, lambda c: float(c * HW * HW * K * K),
               {kind: lambda c, make=make: make((c, HW, K))},
               lambda x, kind=kind: np_pool(kind, x, K, 1),
               _torch(lambda x, kind=kind: (F.max_pool2d if kind == "max" else F.avg_pool2d)(
                   x[None], K, 1, 1)) if torch else None)
    bn_ch = [int(c) for c in 2 ** np.arange(3, 9)]
    yield ("ch4_11_batch_norm.png", "4.11 batch normalization (28x28)", "channels", bn_ch,
           bn_ch, lambda c: 4.0 * c * 28 * 28, {"optimized": lambda c: b.optimized_bn((c, 28))},
           np_bn, _torch(_bn_torch) if torch else None)


def _time_schedule(make, size, ref, rng):
    s, args = make(size)
    mod = tvm.build(s, list(args), target="llvm")
    ins = [rng.random([int(d) for d in t.shape], dtype="float32") for t in args[:-1]]
    nd_in = [tvm.nd.array(x) for x in ins]
    nd_out = tvm.nd.array(np.zeros([int(d) for d in args[-1].shape], "float32"))
    mod(*nd_in, nd_out)
    np.testing.assert_allclose(nd_out.numpy(), ref(*ins), rtol=1e-3, atol=1e-3)
    ev = mod.time_evaluator(mod.entry_name, tvm.cpu(), min_repeat_ms=10, repeat=3)
    return ev(*nd_in, nd_out).median, ins


def sweep(fig, rng):
    """Time one figure's lines; returns {line: GFLOP/s per size}."""
    _, _, _, _, sizes, flops, scheds, ref, torch_fn = fig
    lines = {"numpy": []}
    if torch_fn is not None:
        lines["torch"] = []
    lines.update({f"tvmlite {name}": [] for name in scheds})
    for size in sizes:
        ins = None
        for name, make in scheds.items():
            t, ins = _time_schedule(make, size, ref, rng)
            lines[f"tvmlite {name}"].append(flops(size) / t / 1e9)
        lines["numpy"].append(flops(size) / median_time(lambda ins=ins: ref(*ins), reps=3) / 1e9)
        if torch_fn is not None:
            with torch.no_grad():
                call = torch_fn(*ins)
                lines["torch"].append(flops(size) / median_time(call, reps=3) / 1e9)
    return lines


def plots(out_dir: Path) -> None:
    rng = np.random.default_rng(1)
    if torch is not None:
        torch.set_num_threads(num_threads())
    drawn = have_matplotlib()
    print(f"\nbook chapter 4 figures: GFLOP/s by size, {num_threads()} threads"
          + ("" if drawn else " (matplotlib not installed: tables only)"))
    for fig in figures():
        fname, title, xlabel, xs, sizes = fig[:5]
        lines = sweep(fig, rng)
        print(f"  {title}")
        print(f"    {xlabel:<12}" + "".join(f"{name:>22}" for name in lines))
        for k, x in enumerate(xs):
            xt = f"{x:.3g}" if isinstance(x, float) else str(x)
            print(f"    {xt:<12}" + "".join(f"{ys[k]:22.2f}" for ys in lines.values()))
        path = plot_gflops(out_dir / fname, xs, lines, title, xlabel,
                           baselines=("numpy", "torch"))
        if path is not None:
            print(f"    -> {path}")


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table-only", action="store_true", help="skip the figures")
    ap.add_argument("--plots", type=Path, default=PLOTS_DIR, help="folder of the PNG files")
    args = ap.parse_args(argv)
    table()
    if not args.table_only:
        plots(args.plots)


if __name__ == "__main__":
    main()
