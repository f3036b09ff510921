"""ResNet-18 3x3 convolutions in NHWC (``topi.x86.schedule_conv2d_nhwc``) against the same
convolution through the x86 ``conv2d_NCHWc`` path (packed layouts, fallback config), the
generic NHWC schedule, and PyTorch with ``channels_last`` (when installed): alternating
runs in one process, medians; ratios only (time of the row / time of the NHWC schedule).

Run: python bench/bench_conv2d_nhwc.py   (TVM_NUM_THREADS / torch threads: 2 by default)
"""
from __future__ import annotations

import statistics
import time
from typing import Callable, Dict, List

import bench_topi as bt  # sets TVM_NUM_THREADS, OMP_WAIT_POLICY and sys.path first
import numpy as np

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref

#: (in_c, out_c, size, kernel, stride, pad)
LAYERS = [(64, 64, 56, 3, 1, 1), (128, 128, 28, 3, 1, 1)]


def _nhwc_timer(x, w, s, p, schedule) -> Callable[[], float]:
    n, h, wd, c = x.shape
    D = te.placeholder(x.shape, name="data")
    K = te.placeholder(w.shape, name="kernel")
    out = topi.nn.conv2d_nhwc(D, K, s, p, 1)
    f = tvm.build(schedule(out), [D, K, out], target="llvm")
    dev = tvm.cpu()
    args = [tvm.nd.array(x, dev), tvm.nd.array(w, dev),
            tvm.nd.array(np.zeros([int(d) for d in out.shape], "float32"), dev)]
    f(*args)
    want = ref.conv2d_nhwc_python(x, w, s, p)
    np.testing.assert_allclose(args[-1].numpy(), want, rtol=1e-3, atol=1e-3)
    ev = f.time_evaluator(f.entry_name, dev, number=bt._calls_per_run(lambda: f(*args)),
                          repeat=1)
    return lambda: ev(*args).mean


def _torch_timer(x, w, s, p) -> Callable[[], float]:
    torch = bt.torch
    xt = torch.from_numpy(x.transpose(0, 3, 1, 2).copy()).to(
        memory_format=torch.channels_last)
    wt = torch.from_numpy(w.transpose(3, 2, 0, 1).copy()).to(
        memory_format=torch.channels_last)

    def f():
        with torch.no_grad():
            return bt.F.conv2d(xt, wt, stride=s, padding=p)
    got = f().permute(0, 2, 3, 1).numpy()
    np.testing.assert_allclose(got, ref.conv2d_nhwc_python(x, w, s, p), rtol=1e-3, atol=1e-3)
    number = bt._calls_per_run(f)
    return lambda: bt.median_time(f, reps=1, number=number)


def main() -> None:
    for c, f, size, k, s, p in LAYERS:
        x = bt._rand(1, size, size, c)
        w = bt._rand(k, k, c, f)
        timers: Dict[str, Callable[[], float]] = {
            "nhwc x86": _nhwc_timer(x, w, s, p, topi.x86.schedule_conv2d_nhwc),
            "nhwc generic": _nhwc_timer(x, w, s, p, topi.generic.schedule_conv2d_nhwc),
        }
        case = bt.conv_case(c, f, size, k, s, p)
        timers["NCHWc x86"] = bt._built_and_checked(case, case.build)
        if bt.torch is not None:
            timers["torch channels_last"] = _torch_timer(x, w, s, p)
        times: Dict[str, List[float]] = {name: [] for name in timers}
        for _ in range(bt.REPS):
            for name, timer in timers.items():
                time.sleep(bt.SWITCH_PAUSE_S)
                times[name].append(timer())
        base = statistics.median(times["nhwc x86"])
        print(f"conv {c}->{f} {size}² k{k} s{s}  (time / nhwc x86 time, medians of "
              f"{bt.REPS}, {bt.THREADS} threads)")
        for name, ts in times.items():
            print(f"  {name:20s} {statistics.median(ts) / base:6.2f}")


if __name__ == "__main__":
    main()
