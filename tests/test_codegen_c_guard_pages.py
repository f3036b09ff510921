"""Guarded loads of vectorized code never touch inactive lanes: inputs are placed right after
and right before an inaccessible (PROT_NONE) page, so a load of a masked-off lane past either
end of the buffer faults. The kernels run in a child process, so a fault fails the test
instead of killing pytest."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_CHILD = textwrap.dedent(r"""
    import ctypes, mmap, sys
    import numpy as np
    import tvmlite as tvm
    from tvmlite import te

    sys.path.insert(0, "tests")  # run from the repository root
    from programs import conv1d_v4  # seed 000's v4

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    PG = mmap.PAGESIZE

    def fenced(values, at_end):
        # the array ends at (at_end) or starts at (not at_end) an inaccessible page
        nbytes = values.nbytes
        pages = (nbytes + PG - 1) // PG
        p = libc.mmap(None, (pages + 2) * PG, mmap.PROT_READ | mmap.PROT_WRITE,
                      mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
        assert p not in (None, ctypes.c_void_p(-1).value)
        assert libc.mprotect(p, PG, 0) == 0
        assert libc.mprotect(p + (pages + 1) * PG, PG, 0) == 0
        start = p + PG + (pages * PG - nbytes if at_end else 0)
        arr = np.frombuffer((ctypes.c_char * nbytes).from_address(start), values.dtype)
        arr[:] = values
        return tvm.nd.from_numpy_view(arr)

    def strided_exp(M, factor):
        # strided (gathered) loads under a lane-varying guard, through a lane-wise call; the
        # bound m is a runtime argument, so loop partitioning cannot remove the guard
        A = te.placeholder((M,), name="A")
        m = te.var("m")
        n = (M + 1) // 2 + 5
        C = te.compute((n,), lambda i: tvm.tir.if_then_else(
            i * 2 + 1 < m, te.exp(A[i * 2 + 1]), tvm.tir.const(-1.0, "float32")), name="C")
        s = te.create_schedule(C.op)
        o, i = s[C].split(C.op.axis[0], factor=factor)
        s[C].vectorize(i)
        return s, [A, m, C]

    rng = np.random.default_rng(0)
    for case in sys.argv[1:]:
        kind, *nums = case.split(":")
        nums = [int(x) for x in nums]
        for at_end in (True, False):
            if kind == "conv":
                M, N, factor = nums
                s, args = conv1d_v4(M, N, factor)
                a, w = rng.random(M, dtype="float32"), rng.random(N, dtype="float32")
                f = tvm.build(s, args)
                out = tvm.nd.array(np.zeros(M + N - 1, "float32"))
                f(fenced(a, at_end), fenced(w, at_end), out)
                want = np.convolve(a, w)
            else:
                M, factor = nums
                s, args = strided_exp(M, factor)
                a = rng.random(M, dtype="float32")
                f = tvm.build(s, args)
                n = (M + 1) // 2 + 5
                out = tvm.nd.array(np.zeros(n, "float32"))
                f(fenced(a, at_end), M, out)
                idx = np.arange(n) * 2 + 1
                want = np.where(idx < M, np.exp(a[np.minimum(idx, M - 1)]), -1)
            np.testing.assert_allclose(out.numpy(), want, rtol=1e-4)
            assert "tvml_float32x" in f.get_source(), "not vector code"
            print("ok", case, "at_end" if at_end else "at_start", flush=True)
""")


@pytest.mark.parametrize("cases", [
    ["conv:4096:128:8", "conv:37:5:8", "conv:50:9:41", "conv:100:7:3"],
    ["conv:300:17:100", "conv:1000:33:16", "strided:61:8", "strided:37:41"],
])
def test_masked_lanes_never_load_across_a_guard_page(cases):
    r = subprocess.run([sys.executable, "-c", _CHILD, *cases], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    done = r.stdout.strip().splitlines()
    assert r.returncode == 0, (f"exit code {r.returncode} (negative: killed by that signal) "
                               f"after {done[-1:] or 'no case'}:\n{r.stderr[-2000:]}")
    assert len(done) == 2 * len(cases)
