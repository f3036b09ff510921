"""This machine's float32 FMA peak, measured: the ceiling of any convolution's GFLOP/s.

A C loop of independent vector FMAs (12 accumulators of the widest vector the compiler
targets, ``-march=native``) runs on each of ``threads`` OpenMP threads; the figure is the
best of several runs (a peak: noise only lowers it; one bench run measured half of it, with
one thread held up). Printed with a network's GFLOP/s, it says how much room any compiler
has left: a network at 90% of it can only be a few percent faster.

    python bench/roofline.py [--threads 2]
"""
from __future__ import annotations

import argparse
import ctypes
import os
import tempfile

from tvmlite.contrib import cc

_SOURCE = r"""
#include <omp.h>
#include <time.h>
typedef float vec __attribute__((vector_size(64)));
static double now(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9;
}
/* seconds for `iters` x 12 vector FMAs on each of `threads` threads; `sink` keeps the work */
double fma_loop(long iters, int threads, float *sink) {
    double t0 = now();
    #pragma omp parallel num_threads(threads)
    {
        vec a[12], b, c;
        for (int i = 0; i < 16; ++i) { b[i] = 1.0000001f; c[i] = 1e-7f; }
        for (int j = 0; j < 12; ++j) for (int i = 0; i < 16; ++i) a[j][i] = (float)j;
        for (long k = 0; k < iters; ++k) {
            #pragma GCC unroll 12
            for (int j = 0; j < 12; ++j) a[j] = a[j] * b + c;
        }
        float s = 0;
        for (int j = 0; j < 12; ++j) s += a[j][omp_get_thread_num() % 16];
        #pragma omp atomic
        *sink += s;
    }
    return now() - t0;
}
"""


def fma_peak_gflops(threads: int, runs: int = 15, iters: int = 20_000_000) -> float:
    """Best float32 GFLOP/s of ``threads`` threads doing nothing but independent FMAs."""
    work = tempfile.mkdtemp(prefix="roofline_")
    src, lib = os.path.join(work, "fma.c"), os.path.join(work, "fma.so")
    with open(src, "w") as f:
        f.write(_SOURCE)
    cc.create_shared(lib, [src], ["-O2", "-march=native", "-ffp-contract=fast"])
    fn = ctypes.CDLL(lib).fma_loop
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    sink = ctypes.c_float(0)
    fn(iters // 10, threads, ctypes.byref(sink))  # wake the thread pool, settle the clock
    flops = 2.0 * 16 * 12 * iters * threads
    return max(flops / fn(iters, threads, ctypes.byref(sink)) / 1e9 for _ in range(runs))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", 2)))
    print(f"float32 FMA peak, {ap.parse_args().threads} threads: "
          f"{fma_peak_gflops(ap.parse_args().threads):.1f} GFLOP/s")
