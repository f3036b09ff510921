"""Build time of a small kernel: uncached (compiler runs) and cached (disk hit).

Run: python bench/bench_build_time.py
"""
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tvmlite import tir  # noqa: E402
from tvmlite.codegen.build_c import build, generate_source  # noqa: E402
from tvmlite.contrib import cc  # noqa: E402
from tvmlite.ir import IRModule  # noqa: E402
from tvmlite.target import Target  # noqa: E402


def kernel(k, parallel=True):
    m = 64
    A, B = tir.decl_buffer((m, m), "float32", "A"), tir.decl_buffer((m, m), "float32", "B")
    Af = tir.decl_buffer((m * m,), "float32", "Af", data=A.data)
    Bf = tir.decl_buffer((m * m,), "float32", "Bf", data=B.data)
    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    val = tir.exp(Af[i * m + j]) * tir.const(k, "float32") + Af[j * m + i]
    body = tir.For(i, tir.const(0), tir.const(m),
                   tir.ForKind.PARALLEL if parallel else tir.ForKind.SERIAL,
                   tir.For(j, tir.const(0), tir.const(m), tir.ForKind.SERIAL,
                           tir.BufferStore(Bf, val, (i * m + j,))))
    params = [tir.Var("A", "handle"), tir.Var("B", "handle")]
    f = tir.PrimFunc(tuple(params), body, buffer_map=dict(zip(params, [A, B])),
                     attrs={"global_symbol": "k", "tir.noalias": True})
    return IRModule({"k": f})


def main():
    with tempfile.TemporaryDirectory() as d:
        os.environ["TVMLITE_CACHE_DIR"] = d
        build(kernel(0.5), "llvm")  # warm: resolve the ISA and compiler identity once
        for parallel in (False, True):
            codegen, uncached, cached = [], [], []
            for r in range(5):
                k = 1.0 + r + (10 if parallel else 0)
                t0 = time.perf_counter()
                generate_source(kernel(k, parallel), Target("llvm"))
                codegen.append(time.perf_counter() - t0)
                n0, t0 = cc.stats["compiles"], time.perf_counter()
                build(kernel(k, parallel), "llvm")
                uncached.append(time.perf_counter() - t0)
                assert cc.stats["compiles"] == n0 + 1
                t0 = time.perf_counter()
                build(kernel(k, parallel), "llvm")
                cached.append(time.perf_counter() - t0)
                assert cc.stats["compiles"] == n0 + 1
            ms = lambda xs: statistics.median(xs) * 1e3  # noqa: E731
            kind = "parallel (OpenMP)" if parallel else "serial"
            print(f"small kernel (64x64 exp + transpose, {kind}), median of 5 builds")
            print(f"  codegen only        {ms(codegen):8.2f} ms")
            print(f"  uncached build      {ms(uncached):8.2f} ms  (gcc -O3 + load)")
            print(f"  cached build        {ms(cached):8.2f} ms  (codegen + disk hit + load)")

if __name__ == "__main__":
    main()
