"""ResNet-18 3x3 convolutions in NHWC (``topi.x86.schedule_conv2d_nhwc``) against the same
convolution through the x86 ``conv2d_NCHWc`` path (packed layouts, fallback config), the
generic NHWC schedule, and PyTorch with ``channels_last`` (when installed): alternating
runs in one process, medians; ratios only (time of the row / time of the NHWC schedule).
A MobileNet depthwise 3x3 layer the same way (``schedule_depthwise_conv2d_nhwc`` against
``depthwise_conv2d_NCHWc``).

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
#: (channels, size, stride): depthwise 3x3, padding 1
DEPTHWISE = [(128, 56, 1)]


def _nhwc_timer(x, w, s, p, schedule, depthwise: bool = False) -> Callable[[], float]:
    D = te.placeholder(x.shape, name="data")
    K = te.placeholder(w.shape, name="kernel")
    compute = topi.nn.depthwise_conv2d_nhwc if depthwise else topi.nn.conv2d_nhwc
    out = compute(D, K, s, p, 1)
    f = tvm.build(schedule(out), [D, K, out], target="llvm")
    dev = tvm.cpu()
    args = [tvm.nd.array(x, dev), tvm.nd.array(w, dev),
            tvm.nd.array(np.zeros([int(d) for d in out.shape], "float32"), dev)]
    f(*args)
    want = (ref.depthwise_conv2d_python_nhwc if depthwise else ref.conv2d_nhwc_python)(
        x, w, s, p)
    np.testing.assert_allclose(args[-1].numpy(), want, rtol=1e-3, atol=1e-3)
    ev = f.time_evaluator(f.entry_name, dev, number=bt._calls_per_run(lambda: f(*args)),
                          repeat=1)
    return lambda: ev(*args).mean


def _torch_timer(x, w, s, p, depthwise: bool = False) -> Callable[[], float]:
    torch = bt.torch
    xt = torch.from_numpy(x.transpose(0, 3, 1, 2).copy()).to(
        memory_format=torch.channels_last)
    # HWIO -> OIHW; depthwise HWC1 -> C1HW
    wt = torch.from_numpy(w.transpose((2, 3, 0, 1) if depthwise else (3, 2, 0, 1)).copy()).to(
        memory_format=torch.channels_last)
    groups = x.shape[3] if depthwise else 1

    def f():
        with torch.no_grad():
            return bt.F.conv2d(xt, wt, stride=s, padding=p, groups=groups)
    got = f().permute(0, 2, 3, 1).numpy()
    want = (ref.depthwise_conv2d_python_nhwc if depthwise else ref.conv2d_nhwc_python)(
        x, w, s, p)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
    number = bt._calls_per_run(f)
    return lambda: bt.median_time(f, reps=1, number=number)


def _report(label: str, timers: Dict[str, Callable[[], float]]) -> None:
    times: Dict[str, List[float]] = {name: [] for name in timers}
    for _ in range(bt.REPS):
        for name, timer in timers.items():
            time.sleep(bt.SWITCH_PAUSE_S)
            times[name].append(timer())
    base = statistics.median(times["nhwc x86"])
    print(f"{label}  (time / nhwc x86 time, medians of {bt.REPS}, {bt.THREADS} threads)")
    for name, ts in times.items():
        print(f"  {name:20s} {statistics.median(ts) / base:6.2f}")


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
        _report(f"conv {c}->{f} {size}² k{k} s{s}", timers)
    for c, size, s in DEPTHWISE:
        x, w = bt._rand(1, size, size, c), bt._rand(3, 3, c, 1)
        timers = {
            "nhwc x86": _nhwc_timer(x, w, s, 1, topi.x86.schedule_depthwise_conv2d_nhwc, True),
            "nhwc generic": _nhwc_timer(x, w, s, 1, topi.generic.schedule_depthwise_conv2d_nhwc,
                                        True),
        }
        case = bt.depthwise_case(c, size, s)
        timers["NCHWc x86"] = bt._built_and_checked(case, case.build)
        if bt.torch is not None:
            timers["torch channels_last"] = _torch_timer(x, w, s, 1, True)
        _report(f"depthwise {c} {size}² s{s}", timers)


if __name__ == "__main__":
    main()
