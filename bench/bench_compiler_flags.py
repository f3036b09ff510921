"""What the C backend's flag decision costs (issue 12): the book's chapter 4 schedules built with
the shipped flags (``-O3 ... -fno-tree-loop-if-convert``) and with the same flags minus the
miscompile guard, with ``-O2``, and with the other guard that works (no complete peeling),
timed alternately in one process.

``-fno-tree-loop-if-convert`` keeps GCC 12.2's -O3 select miscompile away (see
``tvmlite/codegen/build_c.py`` and ``tests/test_codegen_build_c_miscompile.py``); the ratios
say what it costs on real schedules (> 1: the shipped flags are slower). Every build is checked
against the shipped one before it is timed.

Run: python bench/bench_compiler_flags.py [--reps N]   (TVM_NUM_THREADS sets the threads)
"""
import argparse
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import book_ch4 as b  # noqa: E402
from _timing import median_time  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite.codegen import build_c  # noqa: E402

SHIPPED = tuple(build_c.BASE_FLAGS)
VARIANTS = {
    "shipped": SHIPPED,
    "if-convert": tuple(f for f in SHIPPED if f != "-fno-tree-loop-if-convert"),
    "-O2": tuple("-O2" if f == "-O3" else f for f in SHIPPED),
    # the other flag that keeps the known miscompile away: no complete peeling, if-conversion on
    "no-peel": tuple(f for f in SHIPPED if f != "-fno-tree-loop-if-convert")
    + ("--param", "max-completely-peel-times=0"),
}

# (name, schedule builder, its arguments): the book's sections, default and optimized
CASES = [
    ("vector add, vectorized", b.va_vectorized, (2 ** 22,)),
    ("broadcast add, good", b.bc_good, (2048,)),
    ("matmul, default", b.mm_default, (256,)),
    ("matmul, reorder", b.mm_reorder, (512,)),
    ("matmul, parallel", b.mm_parallel, (512,)),
    ("matmul, cached block", b.mm_cached_block, (512,)),
    ("conv, cached block", b.conv_cached_block, (64, 64, 64, 3, 1, 1)),
    ("depthwise, cached block", b.depthwise_cached_block, (64, 64, 3, 1, 1)),
    ("max pool, default", b.default_max, ((64, 64, 3),)),
    ("max pool, optimized", b.optimized_max, ((64, 64, 3),)),
    ("avg pool, default", b.default_avg, ((64, 64, 3),)),
    ("avg pool, optimized", b.schedule_avg, ((64, 64, 3),)),
    ("batch norm, default", b.default_bn, ((64, 64),)),
    ("batch norm, optimized", b.optimized_bn, ((64, 64),)),
]


def _build(make, arg, flags):
    build_c.BASE_FLAGS = flags
    try:
        s, tensors = make(*arg)
        return tvm.build(s, list(tensors)), tensors
    finally:
        build_c.BASE_FLAGS = SHIPPED


def _arrays(tensors, rng):
    out = []
    for t in tensors:
        shape = [int(x) for x in t.shape]
        out.append(tvm.nd.array(rng.uniform(0.5, 1.5, shape).astype(t.dtype)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5, help="alternating rounds per case")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    names = list(VARIANTS)
    print(f"{'case':28s} " + " ".join(f"{n + ' ms':>13s}" for n in names)
          + "   " + " ".join(f"{'/' + n:>11s}" for n in names[1:]))
    ratios = {n: [] for n in names[1:]}
    for title, make, arg in CASES:
        fns = {}
        for n in names:
            fns[n], tensors = _build(make, arg, VARIANTS[n])
        arrs = _arrays(tensors, rng)
        got = {}
        for n in names:
            for a in arrs[-1:]:
                a.copyfrom(np.zeros(a.shape, a.dtype))
            fns[n](*arrs)
            got[n] = arrs[-1].numpy().copy()
        for n in names[1:]:
            np.testing.assert_allclose(got[n], got["shipped"], rtol=1e-5, atol=1e-5,
                                       err_msg=f"{title}: {n} differs from shipped")
        times = {n: [] for n in names}
        for _ in range(args.reps):
            for n in names:
                times[n].append(median_time(lambda f=fns[n], a=arrs: f(*a), reps=3))
        med = {n: statistics.median(times[n]) for n in names}
        for n in names[1:]:
            ratios[n].append(med["shipped"] / med[n])
        print(f"{title:28s} " + " ".join(f"{med[n] * 1e3:13.3f}" for n in names) + "   "
              + " ".join(f"{med['shipped'] / med[n]:11.2f}" for n in names[1:]), flush=True)
    for n in names[1:]:
        g = float(np.exp(np.mean(np.log(ratios[n]))))
        print(f"geomean time ratio shipped / {n}: {g:.3f}")
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
