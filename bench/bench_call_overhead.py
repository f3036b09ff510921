"""Call overhead of a compiled 3-argument kernel on tiny arrays, beside numpy's np.add.

Run: python bench/bench_call_overhead.py
"""
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tvmlite as tvm  # noqa: E402
from tvmlite import tir  # noqa: E402
from tvmlite.codegen.build_c import build  # noqa: E402
from tvmlite.ir import IRModule  # noqa: E402


def vadd(n):
    bufs = [tir.decl_buffer((n,), "float32", x) for x in "abc"]
    params = [tir.Var(x, "handle") for x in "abc"]
    i = tir.Var("i", "int32")
    A, B, C = bufs
    body = tir.For(i, tir.const(0), tir.const(n), tir.ForKind.SERIAL,
                   tir.BufferStore(C, A[i] + B[i], (i,)))
    f = tir.PrimFunc(tuple(params), body, buffer_map=dict(zip(params, bufs)),
                     attrs={"global_symbol": "vadd", "tir.noalias": True})
    return build(IRModule({"vadd": f}), "llvm")


def per_call_us(fn, calls=20000, runs=7):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def main():
    n = 4
    mod = vadd(n)
    f = mod["vadd"]
    a, b, c = (tvm.nd.array(np.ones(n, "float32")) for _ in range(3))
    an, bn, cn = (np.ones(n, "float32") for _ in range(3))
    ours = per_call_us(lambda: f(a, b, c))
    via_mod = per_call_us(lambda: mod(a, b, c))
    ref = per_call_us(lambda: np.add(an, bn, out=cn))
    native = mod.time_evaluator("vadd", tvm.cpu(), number=100000, repeat=5)(a, b, c)
    print(f"3-argument kernel, n={n} (median of 7 runs, microseconds per call)")
    print(f"  tvmlite mod['vadd'](a, b, c)     {ours:8.3f} us")
    print(f"  tvmlite mod(a, b, c)             {via_mod:8.3f} us")
    print(f"  numpy np.add(a, b, out=c)        {ref:8.3f} us")
    print(f"  ratio tvmlite / numpy            {ours / ref:8.2f}x")
    print(f"  kernel alone (time_evaluator)    {native.median * 1e6:8.3f} us")


if __name__ == "__main__":
    main()
