"""TOPI operators (issue 14's "Speed" list) against PyTorch, in one process.

Every distinct conv layer of ResNet-18 (batch 1, 224², packed ``NCHW{bn}c`` layouts, the
fallback config), MobileNet's depthwise 3x3 layers, 3x3 max/avg pooling, inference batch norm,
dense 1x512x1000 and 128x768x3072, and softmax. Each row is first checked against the
``topi.testing`` numpy reference (``assert_allclose``), then timed: tvmlite with
``time_evaluator``, PyTorch (or numpy where torch is missing) with Python timing, medians of
7 runs. ``TVM_NUM_THREADS`` and torch's thread count are set to the same value (default 2);
``OMP_WAIT_POLICY`` defaults to passive for both (set it to active on an idle machine).

Run: python bench/bench_topi.py [group ...]   (groups: conv depthwise pool bn dense softmax
build)

The run ends with one line per figure of the Speed list: the measured ratio, its goal, and
"ok" or "MISS". The build-time row reports wall time and CPU time (this process + the C
compiler), the latter hardly changed by other load on the machine.

The conv rows are timed twice, with the fallback config and with the best record of
``bench/logs/resnet18_conv2d_x86.log`` (the ``conv2d_NCHWc.x86`` template tuned by XGBTuner),
and report GFLOP/s against the machine's FMA peak. Tune (appends to the log, skips configs it
already has): python bench/bench_topi.py --tune [trials per layer, default 200]
"""
from __future__ import annotations

import contextlib
import logging
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence

os.environ.setdefault("TVM_NUM_THREADS", "2")
THREADS = int(os.environ["TVM_NUM_THREADS"])
# for both OpenMP runtimes (ours and torch's), read when they load: an idle worker sleeps
# instead of spinning, so that neither side's spinning threads hold a core the other times
# on, and a loaded machine does not stall parallel regions for whole time slices
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _timing import median_time  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import autotvm, te, topi  # noqa: E402
from tvmlite.topi import testing as ref  # noqa: E402
from tvmlite.topi.x86.utils import largest_factor, vector_lanes  # noqa: E402

try:
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(THREADS)
except ImportError:  # the numpy reference is the baseline then
    torch = F = None

RNG = np.random.default_rng(14)


@dataclass
class Case:
    """One benchmark row: ``build()`` gives (schedule, TE args, input arrays in our layout);
    ``want`` the reference result in our output's layout; ``baseline`` the inputs in the
    baseline's form and its function."""

    group: str
    label: str
    flops: float
    build: Callable
    want: Callable[[], np.ndarray]
    base_inputs: Callable[[], list]
    base_fn: Callable
    rtol: float = 1e-4
    build_tuned: Optional[Callable] = None  # the same with the tuned log applied


def _rand(*shape) -> np.ndarray:
    return RNG.uniform(-1, 1, shape).astype("float32")


def _t(x: np.ndarray):
    return torch.from_numpy(x) if torch is not None else x


# ------------------------------------------------------------------------------- the cases
# (in_c, out_c, size, kernel, stride, pad): the distinct convolutions of ResNet-18 at 224²
RESNET18_CONVS = [(3, 64, 224, 7, 2, 3), (64, 64, 56, 3, 1, 1), (64, 128, 56, 3, 2, 1),
                  (64, 128, 56, 1, 2, 0), (128, 128, 28, 3, 1, 1), (128, 256, 28, 3, 2, 1),
                  (128, 256, 28, 1, 2, 0), (256, 256, 14, 3, 1, 1), (256, 512, 14, 3, 2, 1),
                  (256, 512, 14, 1, 2, 0), (512, 512, 7, 3, 1, 1)]
# (channels, size, stride): MobileNet-v1's depthwise 3x3 layers at 224²
MOBILENET_DW = [(32, 112, 1), (64, 112, 2), (128, 56, 1), (128, 56, 2), (256, 28, 1),
                (256, 28, 2), (512, 14, 1), (512, 14, 2), (1024, 7, 1)]


def _out_size(n, k, s, p):
    return (n + 2 * p - k) // s + 1


TUNE_LOG = ROOT / "bench" / "logs" / "resnet18_conv2d_x86.log"


def _conv_blocks(c, f):
    lanes = vector_lanes()
    return largest_factor(c, lanes), largest_factor(f, lanes)


def conv_task_args(c, f, n, k, s, p) -> tuple:
    """The ``conv2d_NCHWc.x86`` template arguments of one ResNet-18 layer in the packed
    layouts the bench uses (the workload under which tuned records are found)."""
    ibn, obn = _conv_blocks(c, f)
    return (("TENSOR", (1, c // ibn, n, n, ibn), "float32"),
            ("TENSOR", (f // obn, c // ibn, k, k, ibn, obn), "float32"),
            s, p, 1, f"NCHW{ibn}c", f"NCHW{obn}c", "float32")


def conv_case(c, f, n, k, s, p) -> Case:
    ibn, obn = _conv_blocks(c, f)
    x, w = _rand(1, c, n, n), _rand(f, c, k, k)
    o = _out_size(n, k, s, p)

    def build(tuned: bool = False):
        D = te.placeholder((1, c // ibn, n, n, ibn), name="data")
        K = te.placeholder((f // obn, c // ibn, k, k, ibn, obn), name="kernel")
        ctx = autotvm.apply_history_best(str(TUNE_LOG)) if tuned else contextlib.nullcontext()
        with ctx:
            out = topi.x86.conv2d_NCHWc(D, K, s, p, 1, f"NCHW{ibn}c", f"NCHW{obn}c",
                                        "float32")
            sch = topi.x86.schedule_conv2d_NCHWc(out)
        return sch, [D, K, out], [ref.pack_nchwc(x, ibn), ref.pack_oihw(w, ibn, obn)]

    return Case("conv", f"conv {c}->{f} {n}² k{k} s{s}", 2.0 * f * o * o * c * k * k, build,
                lambda: ref.pack_nchwc(ref.conv2d_nchw_python(x, w, s, p), obn),
                lambda: [_t(x), _t(w)],
                (lambda a, b: F.conv2d(a, b, stride=s, padding=p)) if torch else
                (lambda a, b: ref.conv2d_nchw_python(a, b, s, p)), rtol=1e-3,
                build_tuned=(lambda: build(True)) if TUNE_LOG.exists() else None)


def depthwise_case(c, n, s) -> Case:
    bn = largest_factor(c, vector_lanes())
    x, w = _rand(1, c, n, n), _rand(c, 1, 3, 3)
    o = _out_size(n, 3, s, 1)

    def build():
        D = te.placeholder((1, c // bn, n, n, bn), name="data")
        K = te.placeholder((c // bn, 1, 3, 3, 1, bn), name="kernel")
        out = topi.x86.depthwise_conv2d_NCHWc(D, K, s, 1, 1, f"NCHW{bn}c", f"NCHW{bn}c",
                                              "float32")
        return (topi.x86.schedule_depthwise_conv2d_NCHWc(out), [D, K, out],
                [ref.pack_nchwc(x, bn), ref.pack_depthwise_kernel(w, bn)])

    return Case("depthwise", f"depthwise {c} {n}² s{s}", 2.0 * c * o * o * 9, build,
                lambda: ref.pack_nchwc(ref.depthwise_conv2d_python_nchw(x, w, s, 1), bn),
                lambda: [_t(x), _t(w)],
                (lambda a, b: F.conv2d(a, b, stride=s, padding=1, groups=c)) if torch else
                (lambda a, b: ref.depthwise_conv2d_python_nchw(a, b, s, 1)))


def pool_case(kind, c, n, s) -> Case:
    x = _rand(1, c, n, n)
    o = _out_size(n, 3, s, 1)

    def build():
        X = te.placeholder(x.shape, name="data")
        Y = topi.nn.pool2d(X, (3, 3), (s, s), (1, 1), (1, 1, 1, 1), kind)
        return topi.x86.schedule_pool(Y, "NCHW"), [X, Y], [x]

    def base(a):
        if torch is None:
            return ref.pool2d_ref(a, (3, 3), (s, s), (1, 1), (1, 1, 1, 1), kind)
        if kind == "max":
            return F.max_pool2d(a, 3, s, 1)
        return F.avg_pool2d(a, 3, s, 1)

    return Case("pool", f"{kind} pool 3x3 {c} {n}² s{s}", 9.0 * c * o * o, build,
                lambda: ref.pool2d_ref(x, (3, 3), (s, s), (1, 1), (1, 1, 1, 1), kind),
                lambda: [_t(x)], base)


def batch_norm_case(c, n) -> Case:
    x = _rand(1, c, n, n)
    g, b, m = _rand(c), _rand(c), _rand(c)
    v = np.abs(_rand(c)) + 0.5

    def build():
        X = te.placeholder(x.shape, name="data")
        P = [te.placeholder((c,), name=k) for k in ("gamma", "beta", "mean", "var")]
        out = topi.nn.batch_norm(X, *P, axis=1, epsilon=1e-5)[0]
        return topi.x86.schedule_batch_norm(out), [X, *P, out], [x, g, b, m, v]

    def base(a, gg, bb, mm, vv):
        if torch is None:
            return ref.batch_norm(a, gg, bb, mm, vv, 1, 1e-5, True, True)[0]
        return F.batch_norm(a, mm, vv, gg, bb, training=False, eps=1e-5)

    return Case("bn", f"batch norm {c} {n}²", 2.0 * x.size, build,
                lambda: ref.batch_norm(x, g, b, m, v, 1, 1e-5, True, True)[0],
                lambda: [_t(a) for a in (x, g, b, m, v)], base)


def dense_case(variant, m, k, n) -> Case:
    """``variant``: nopack, pack (the weight packed in the kernel) or prepacked (packed ahead
    of time, as a graph compiler does with a constant weight)."""
    a, w = _rand(m, k), _rand(n, k)
    bn = topi.x86.fallback_pack_block(n)
    compute = topi.x86.dense_nopack if variant == "nopack" else topi.x86.dense_pack
    schedule = topi.x86.schedule_dense_nopack if variant == "nopack" else \
        topi.x86.schedule_dense_pack

    def build():
        A = te.placeholder((m, k), name="data")
        if variant == "prepacked":
            W = te.placeholder((n // bn, k, bn), name="weight")
            wp = np.ascontiguousarray(w.reshape(n // bn, bn, k).transpose(0, 2, 1))
        else:
            W, wp = te.placeholder((n, k), name="weight"), w
        out = compute(A, W)
        return schedule(out), [A, W, out], [a, wp]

    return Case("dense", f"dense_{variant} {m}x{k}x{n}", 2.0 * m * n * k, build,
                lambda: a @ w.T, lambda: [_t(a), _t(w)],
                F.linear if torch else (lambda x, y: x @ y.T), rtol=1e-3)


def softmax_case(shape, fast=False) -> Case:
    x = _rand(*shape) * 4

    def build():
        X = te.placeholder(shape, name="data")
        Y = (topi.nn.fast_softmax if fast else topi.nn.softmax)(X, -1)
        return topi.x86.schedule_softmax(Y), [X, Y], [x]

    name = "fast_softmax" if fast else "softmax"
    return Case("softmax", f"{name} {'x'.join(map(str, shape))}", 4.0 * x.size, build,
                lambda: ref.softmax_python(x, -1), lambda: [_t(x)],
                (lambda t: F.softmax(t, -1)) if torch else
                (lambda t: ref.softmax_python(t, -1)), rtol=1e-5)


def all_cases() -> List[Case]:
    cases = [conv_case(*c) for c in RESNET18_CONVS]
    cases += [depthwise_case(*c) for c in MOBILENET_DW]
    cases += [pool_case(kind, 64, 112, 2) for kind in ("max", "avg")]
    cases += [batch_norm_case(64, 112), batch_norm_case(256, 28)]
    cases += [dense_case("nopack", 1, 512, 1000)]
    cases += [dense_case(v, 128, 768, 3072) for v in ("nopack", "pack", "prepacked")]
    cases += [softmax_case((1, 1000)), softmax_case((1536, 128)),
              softmax_case((1, 1000), True), softmax_case((1536, 128), True)]
    return cases


# ------------------------------------------------------------------------------ measuring
@dataclass
class Result:
    case: Case
    ours: List[float]  # seconds per call, one entry per interleaved run
    base: List[float]
    tuned: Optional[List[float]] = None  # with the tuned log, when the case has one

    @property
    def ours_s(self) -> float:
        return statistics.median(self.ours)

    @property
    def base_s(self) -> float:
        return statistics.median(self.base)

    @property
    def ratio(self) -> float:
        """Baseline time / our time (medians): above 1 we are faster."""
        return self.base_s / self.ours_s

    @property
    def tuned_s(self) -> float:
        return statistics.median(self.tuned)

    @property
    def ratio_tuned(self) -> float:
        return self.base_s / self.tuned_s

    @property
    def ratio_best(self) -> float:
        """The same with the fastest run of each: steadier on a loaded machine."""
        return min(self.base) / min(self.ours)


REPS = 7
RUN_S = 0.02  # each run repeats the call for about this long
SWITCH_PAUSE_S = 0.01


def _calls_per_run(f) -> int:
    t0 = time.perf_counter()
    f()
    return max(1, int(RUN_S / max(time.perf_counter() - t0, 1e-7)))


def _built_and_checked(case: Case, build: Callable):
    """``build``'s kernel, its arguments, and a timer of it; the result checked first."""
    s, args, inputs = build()
    f = tvm.build(s, args, target="llvm")
    dev = tvm.cpu()
    nd_in = [tvm.nd.array(a, dev) for a in inputs]
    out = tvm.nd.array(np.zeros([int(d) for d in args[-1].shape], args[-1].dtype), dev)
    f(*nd_in, out)
    want = case.want()
    scale = float(np.max(np.abs(want))) or 1.0
    np.testing.assert_allclose(out.numpy(), want, rtol=case.rtol, atol=case.rtol * scale,
                               err_msg=case.label)
    ev = f.time_evaluator(f.entry_name, dev, number=_calls_per_run(lambda: f(*nd_in, out)),
                          repeat=1)
    return lambda: ev(*nd_in, out).mean


def measure(case: Case) -> Result:
    """Check ``case`` against its reference, then time ours (fallback and tuned, where the
    case has a tuned build) and the baseline in alternating runs (so that all see the same
    machine load), ``REPS`` runs each."""
    timers = [_built_and_checked(case, case.build)]
    if case.build_tuned is not None:
        timers.append(_built_and_checked(case, case.build_tuned))
    want = case.want()
    scale = float(np.max(np.abs(want))) or 1.0
    base_in = case.base_inputs()
    ctx = torch.no_grad() if torch is not None else contextlib.nullcontext()
    with ctx:
        got = case.base_fn(*base_in)
        got = got.numpy() if torch is not None else got
        np.testing.assert_allclose(_to_ours(got, want), want, rtol=case.rtol,
                                   atol=case.rtol * scale, err_msg=f"baseline {case.label}")
        n_base = _calls_per_run(lambda: case.base_fn(*base_in))
        ours: List[List[float]] = [[] for _ in timers]
        base = []
        for _ in range(REPS):
            # the pause lets the other side's OpenMP workers stop spinning (torch has its
            # own runtime): a spinning thread would hold one of the cores we time on
            for times, timer in zip(ours, timers):
                time.sleep(SWITCH_PAUSE_S)
                times.append(timer())
            time.sleep(SWITCH_PAUSE_S)
            base.append(median_time(lambda: case.base_fn(*base_in), reps=1, number=n_base))
    return Result(case, ours[0], base, ours[1] if len(ours) > 1 else None)


def _to_ours(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """The baseline's NCHW result in the layout of ours (packed NCHW{bn}c when 5-D)."""
    if want.ndim == 5 and got.ndim == 4:
        return ref.pack_nchwc(got, want.shape[-1])
    return got


def geomean(xs: Sequence[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def print_table(results: Sequence[Result], base_name: str) -> None:
    print(f"  {'operator':<34}{'tvmlite':>11}{'GFLOP/s':>9}{base_name:>11}{'GFLOP/s':>9}"
          f"{'ratio':>8}{'best':>8}")
    group = None
    for r in results:
        if group is not None and r.case.group != group:
            _print_geomean(results, group)
        group = r.case.group
        c = r.case
        print(f"  {c.label:<34}{r.ours_s * 1e3:8.3f} ms{c.flops / r.ours_s / 1e9:9.1f}"
              f"{r.base_s * 1e3:8.3f} ms{c.flops / r.base_s / 1e9:9.1f}{r.ratio:7.2f}x"
              f"{r.ratio_best:7.2f}x")
    if group is not None:
        _print_geomean(results, group)


def _print_geomean(results, group):
    rs = [r for r in results if r.case.group == group]
    if len(rs) > 1:
        print(f"  {'  geometric mean (' + group + ')':<73}"
              f"{geomean([r.ratio for r in rs]):7.2f}x{geomean([r.ratio_best for r in rs]):7.2f}x")


# one thread per core, each running 12 independent vector FMA chains (enough to cover the
# FMA latency on any x86 core), timed by the OpenMP clock
_PEAK_SRC = r"""
#include <omp.h>
typedef float v16 __attribute__((vector_size(64)));
double fma_peak_gflops(int threads, long iters) {
  double t0 = omp_get_wtime();
  volatile float sink = 0;
  #pragma omp parallel num_threads(threads)
  {
    v16 acc[12], a = (v16){0} + 1.0001f, b = (v16){0} + 0.9999f;
    for (int j = 0; j < 12; ++j) acc[j] = (v16){0} + (float)j;
    for (long i = 0; i < iters; ++i) {
      #pragma GCC unroll 12
      for (int j = 0; j < 12; ++j) acc[j] = acc[j] * a + b;
    }
    float s = 0;
    for (int j = 0; j < 12; ++j) s += acc[j][0];
    #pragma omp atomic
    sink += s;
  }
  return 2.0 * 16 * 12 * iters * threads / (omp_get_wtime() - t0) / 1e9;
}
"""


def nominal_fma_peak_gflops(threads: int = THREADS) -> float:
    """``threads`` x the clock /proc/cpuinfo reports x 32 fp32 flops per cycle (one 16-lane
    FMA per cycle: Zen 4's two 256-bit FMA pipes, or AVX2 with two FMA units); the
    environment variable ``BENCH_FMA_PEAK_GFLOPS`` overrides it."""
    if os.environ.get("BENCH_FMA_PEAK_GFLOPS"):
        return float(os.environ["BENCH_FMA_PEAK_GFLOPS"])
    mhz = 0.0
    with contextlib.suppress(OSError, ValueError), open("/proc/cpuinfo") as f:
        mhz = max(float(line.split(":")[1]) for line in f if line.startswith("cpu MHz"))
    return threads * mhz / 1e3 * 32


def fma_peak_gflops(threads: int = THREADS) -> float:
    """The machine's fp32 FMA peak on ``threads`` threads, measured (the best of 5 runs):
    GFLOP/s of a loop of independent vector FMAs, as wide as ``-march=native`` allows (on a
    loaded machine far below the nominal peak)."""
    import ctypes
    import tempfile

    from tvmlite.contrib import cc

    with tempfile.TemporaryDirectory() as d:
        src, lib = Path(d) / "peak.c", Path(d) / "peak.so"
        src.write_text(_PEAK_SRC)
        cc.create_shared(str(lib), [str(src)], ["-O2", "-march=native", "-ffp-contract=fast"])
        fn = ctypes.CDLL(str(lib)).fma_peak_gflops
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_int, ctypes.c_long]
    return max(fn(threads, 20_000_000) for _ in range(5))


def print_conv_table(results: Sequence[Result], base_name: str) -> None:
    """One row per conv layer: fallback, tuned (where logged) and the baseline, GFLOP/s and
    the share of the FMA peak (the larger of the nominal and the measured one); ratios =
    baseline time / ours, from the same run."""
    nominal, measured = nominal_fma_peak_gflops(), fma_peak_gflops()
    peak = max(nominal, measured)
    print(f"  conv2d_NCHWc.x86 vs {base_name}; fp32 FMA peak on {THREADS} threads: nominal "
          f"{nominal:.0f} GFLOP/s, measured now {measured:.0f}; GF = GFLOP/s, % = of "
          f"{peak:.0f}")
    print(f"  {'layer':<26}{'fallback':>10}{'GF':>6}{'%':>4}{'tuned':>10}{'GF':>6}{'%':>4}"
          f"{base_name:>10}{'GF':>6}{'fallb.':>8}{'tuned':>7}")
    for r in results:
        c = r.case
        gf = [c.flops / t / 1e9 for t in (r.ours_s, r.tuned_s if r.tuned else 1e9, r.base_s)]
        tuned = (f"{r.tuned_s * 1e3:7.3f} ms{gf[1]:6.1f}{100 * gf[1] / peak:4.0f}"
                 if r.tuned else f"{'-':>20}")
        print(f"  {c.label[5:]:<26}{r.ours_s * 1e3:7.3f} ms{gf[0]:6.1f}{100 * gf[0] / peak:4.0f}"
              f"{tuned}{r.base_s * 1e3:7.3f} ms{gf[2]:6.1f}{r.ratio:7.2f}x"
              + (f"{r.ratio_tuned:6.2f}x" if r.tuned else ""))
    tuned = [r.ratio_tuned for r in results if r.tuned]
    print(f"  {'  geometric mean':<76}{geomean([r.ratio for r in results]):7.2f}x"
          + (f"{geomean(tuned):6.2f}x" if len(tuned) == len(results) else ""))


def _cpu_s() -> float:
    """CPU seconds of this process and its finished children (the C compiler): unlike wall
    time, hardly changed by other processes on a loaded machine."""
    import resource

    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def build_time_row() -> None:
    """Uncached build of the default-scheduled conv2d with fusion (conv + bias + relu,
    ResNet-18's 64->64 56² layer in NCHW16c), split into its phases: declare and schedule,
    lowering (TE materialization and the pass list), C code + the C compiler + loading; wall
    and CPU time (ours + the compiler's)."""
    import tempfile

    from tvmlite.codegen import build_c
    from tvmlite.driver import build_module

    def phases(salt: float):
        t = [(time.perf_counter(), _cpu_s())]
        D = te.placeholder((1, 4, 56, 56, 16), name="data")
        K = te.placeholder((4, 4, 3, 3, 16, 16), name="kernel")
        B = te.placeholder((4, 1, 1, 16), name="bias")
        conv = topi.x86.conv2d_NCHWc(D, K, 1, 1, 1, "NCHW16c", "NCHW16c", "float32")
        out = topi.nn.relu(conv + B + salt)  # salt: a new kernel each time, never cached
        sch = topi.x86.schedule_conv2d_NCHWc(out)
        t.append((time.perf_counter(), _cpu_s()))
        lowered = build_module.lower(sch, [D, K, B, out], name="default_function",
                                     _for_build=True)
        t.append((time.perf_counter(), _cpu_s()))
        build_c.build(lowered, tvm.target.Target("llvm"))  # C code, compiler, load
        t.append((time.perf_counter(), _cpu_s()))
        return [(b[0] - a[0], b[1] - a[1]) for a, b in zip(t, t[1:])]

    old = os.environ.get("TVMLITE_CACHE_DIR")
    with tempfile.TemporaryDirectory() as d:
        os.environ["TVMLITE_CACHE_DIR"] = d
        try:
            phases(0.0)  # warm: the ISA and the compiler's identity, resolved once a process
            runs = [phases(0.25 * i + 1.0) for i in range(REPS)]
        finally:
            if old is None:
                del os.environ["TVMLITE_CACHE_DIR"]
            else:
                os.environ["TVMLITE_CACHE_DIR"] = old
    totals = []
    for k, what in enumerate(("wall", "CPU")):
        med = [statistics.median(p[i][k] for p in runs) * 1e3 for i in range(3)]
        totals.append(statistics.median(sum(p[i][k] for i in range(3)) for p in runs) * 1e3)
        print(f"  build conv2d+bias+relu (fallback, uncached), {what} time, medians of {REPS}: "
              f"declare+schedule {med[0]:.0f} ms, lower {med[1]:.0f} ms, "
              f"C code+compiler+load {med[2]:.0f} ms; total {totals[-1]:.0f} ms (goal <= 150)")
    return totals[0], totals[1]


# issue 14's Speed list: (figure, goal, the rows it is computed from, how)
GOALS = [
    ("conv2d ResNet-18 tuned, geomean", 1.0, "conv", "tuned"),
    ("conv2d ResNet-18 fallback, geomean", 0.7, "conv", "fallback"),
    ("depthwise 3x3 MobileNet, geomean", 1.5, "depthwise", "fallback"),
    ("depthwise 3x3 MobileNet, worst layer", 1.5, "depthwise", "min"),
    ("max/avg pool 3x3, worst", 5.0, "pool", "min"),
    ("batch norm, worst", 1.0, "bn", "min"),
    ("dense 1x512x1000", 0.9, "dense_nopack 1x512x1000", "fallback"),
    ("dense 128x768x3072 (dense_pack, packed in kernel)", 0.9, "dense_pack 128x768x3072",
     "fallback"),
    ("dense 128x768x3072 (weight pre-packed)", 0.9, "dense_prepacked 128x768x3072",
     "fallback"),
    ("softmax, worst", 1.0, "softmax ", "min"),
]


def print_goals(results: Sequence[Result], build: Optional[tuple], base_name: str) -> None:
    """One line per figure of issue 14's Speed list: measured ratio (median; fastest runs in
    brackets), goal, and whether it is met."""
    print(f"  Speed list (ratio = {base_name} time / tvmlite time; [x] = fastest runs):")
    for what, goal, rows, how in GOALS:
        rs = [r for r in results if r.case.group == rows or r.case.label.startswith(rows)]
        if how == "tuned":
            rs = [r for r in rs if r.tuned]
        if not rs:
            continue
        if how == "tuned":
            med, best = geomean([r.ratio_tuned for r in rs]), None
        elif how == "min":
            med, best = min(r.ratio for r in rs), min(r.ratio_best for r in rs)
        else:
            med, best = geomean([r.ratio for r in rs]), geomean([r.ratio_best for r in rs])
        mark = "ok " if med >= goal else "MISS"
        extra = f" [{best:.2f}x]" if best is not None else ""
        print(f"    {mark} {what:<52}{med:6.2f}x{extra:<10} goal >= {goal:.1f}x")
    if build is not None:
        for t, what in zip(build, ("wall", "CPU")):
            mark = "ok " if t <= 150 else "MISS"
            print(f"    {mark} {'build conv2d+bias+relu uncached, ' + what:<52}{t:6.0f} ms"
                  f"{'':<11}goal <= 150 ms")


def main(argv: Optional[Sequence[str]] = None) -> List[Result]:
    groups = set(sys.argv[1:] if argv is None else argv)
    logging.getLogger("autotvm").setLevel(logging.ERROR)  # fallback-config notices
    base_name = "torch" if torch is not None else "numpy"
    print(f"TOPI operators vs {base_name}"
          f"{' ' + torch.__version__ if torch is not None else ''}, {THREADS} threads, "
          f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}, "
          f"medians of {REPS} alternating runs; ratio = {base_name} time / tvmlite time "
          f"(> 1: tvmlite faster), best = the same with each side's fastest run")
    results = []
    for case in all_cases():
        if groups and case.group not in groups:
            continue
        results.append(measure(case))
    convs = [r for r in results if r.case.group == "conv"]
    if convs:
        print_conv_table(convs, base_name)
    rest = [r for r in results if r.case.group != "conv"]
    if rest:
        print_table(rest, base_name)
    build = build_time_row() if not groups or "build" in groups else None
    print_goals(results, build, base_name)
    return results


def tune(n_trial: int = 200) -> None:
    """Tune every ResNet-18 layer's ``conv2d_NCHWc.x86`` task with XGBTuner for up to
    ``n_trial`` trials (fewer when the space is smaller), appending to ``TUNE_LOG``."""
    TUNE_LOG.parent.mkdir(parents=True, exist_ok=True)
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(n_parallel=THREADS),
        runner=autotvm.LocalRunner(number=2, repeat=3, min_repeat_ms=50))
    for layer in RESNET18_CONVS:
        task = autotvm.task.create("conv2d_NCHWc.x86", conv_task_args(*layer), target="llvm")
        trials = min(n_trial, len(task.config_space))
        t0 = time.perf_counter()
        tuner = autotvm.tuner.XGBTuner(task)
        tuner.tune(n_trial=trials, measure_option=option,
                   callbacks=[autotvm.callback.log_to_file(str(TUNE_LOG))])
        print(f"tuned {layer}: {trials} trials of a space of {len(task.config_space)} in "
              f"{time.perf_counter() - t0:.0f} s, best {tuner.best_flops / 1e9:.1f} GFLOP/s "
              f"{tuner.best_config}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--tune"]:
        tune(*(int(a) for a in sys.argv[2:3]))
    else:
        main()
