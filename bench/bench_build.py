"""Build speed for tuning: an uncached tvm.build of a small TE kernel (lower + codegen + gcc),
a repeated tvm.build (front cache), `import tvmlite`, and a 3-argument call, each beside its
target.

Run: python bench/bench_build.py
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def small_kernel(tvm, te, factor):
    n = 1024
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] * B[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    o, i = s[C].split(C.op.axis[0], factor=factor)
    s[C].vectorize(i)
    return s, [A, B, C]


def import_time():
    code = "import time; t=time.perf_counter(); import tvmlite; print(time.perf_counter()-t)"
    ts = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               cwd=ROOT, check=True).stdout) for _ in range(5)]
    return statistics.median(ts)


def main():
    t_import = import_time()
    with tempfile.TemporaryDirectory() as d:
        os.environ["TVMLITE_CACHE_DIR"] = d  # fresh disk cache: every new kernel compiles
        import tvmlite as tvm
        from tvmlite import te
        from tvmlite.driver import build_module as bm

        tvm.build(*small_kernel(tvm, te, 4))  # warm: ISA resolution, compiler identity
        uncached, lower_only, repeated = [], [], []
        for _r, factor in enumerate((8, 16, 32, 64, 2)):
            s, args = small_kernel(tvm, te, factor)
            t0 = time.perf_counter()
            tvm.lower(s, args)
            lower_only.append(time.perf_counter() - t0)
            bm.clear_build_cache()
            t0 = time.perf_counter()
            mod = tvm.build(s, args)
            uncached.append(time.perf_counter() - t0)
            for _ in range(3):
                s, args = small_kernel(tvm, te, factor)  # a fresh, equal schedule
                t0 = time.perf_counter()
                assert tvm.build(s, args) is mod
                repeated.append(time.perf_counter() - t0)
    ms = lambda xs: statistics.median(xs) * 1e3  # noqa: E731
    from tvmlite import te as _te  # noqa: F401

    s, args = small_kernel(tvm, te, 8)
    f = tvm.build(s, args)
    a, b, c = (tvm.nd.array(np.ones(1024, "float32")) for _ in range(3))
    calls = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(20000):
            f(a, b, c)
        calls.append((time.perf_counter() - t0) / 20000)
    an, bn, cn = (np.ones(1024, "float32") for _ in range(3))
    ref = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(20000):
            np.multiply(an, bn, out=cn)
        ref.append((time.perf_counter() - t0) / 20000)
    print("build speed (medians of 5)                 measured     target")
    print(f"  import tvmlite                         {t_import * 1e3:8.1f} ms   < 500 ms")
    print(f"  tvm.lower, small TE kernel             {ms(lower_only):8.1f} ms")
    print(f"  tvm.build uncached (lower+C+gcc+load)  {ms(uncached):8.1f} ms   < 100 ms")
    print(f"  tvm.build repeated (front cache)       {ms(repeated):8.2f} ms   <   5 ms")
    print(f"  call of a 3-argument kernel (n=1024)   {statistics.median(calls) * 1e6:8.2f} us"
          f"   (numpy multiply: {statistics.median(ref) * 1e6:.2f} us)")


if __name__ == "__main__":
    main()
