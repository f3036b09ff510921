"""The book's chapter 4 CPU schedules (§4.3–4.11, from tests/book_ch4.py) beside numpy.

Each row: the schedule's time and GFLOP/s, and a numpy computation of the same result timed in
the same run (medians). The convolutions' numpy baseline is im2col (sliding windows) + matmul.

Run: python bench/bench_book_ch4.py   (TVM_NUM_THREADS sets the threads)
"""
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import book_ch4 as b  # noqa: E402
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


def main():
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


if __name__ == "__main__":
    main()
