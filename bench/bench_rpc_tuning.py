"""Tuning throughput over RPC: seed 000's conv1d template, the same trials measured through a
loopback tracker with 1, 2 and 4 rpc_servers (``autotvm.RPCRunner``); trials per second and
the scaling ratio against one server. Builds run in a LocalBuilder pool; each trial's run
lasts at least ``min_repeat_ms`` on its device.

    python bench/bench_rpc_tuning.py [trials] [--isolate]
"""
import os
import sys
import time

from tvmlite import autotvm, rpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from programs import conv1d_auto_tune  # noqa: E402,F401  (registers seed 000's template)

HOST = "127.0.0.1"


def tune(n_servers: int, trials: int, isolate: bool) -> tuple:
    tracker = rpc.Tracker(HOST, port=0, silent=True)
    servers = [rpc.Server(HOST, port=0, key="bench", tracker_addr=(HOST, tracker.port),
                          isolate=isolate, silent=True) for _ in range(n_servers)]
    try:
        while rpc.connect_tracker(HOST, tracker.port).summary()["queue"].get(
                "bench", [0, 0])[1] < n_servers:
            time.sleep(0.02)
        task = autotvm.task.create("tutorial/conv1d_auto_tune", args=(4096, 128),
                                   target="llvm")
        runner = autotvm.RPCRunner("bench", HOST, tracker.port, number=5, repeat=1,
                                   min_repeat_ms=50, timeout=30)
        # a batch as large as the largest pool, so 4 servers can each take one trial
        option = autotvm.measure_option(builder=autotvm.LocalBuilder(n_parallel=4),
                                        runner=runner)
        tuner = autotvm.tuner.RandomTuner(task)
        ok = []
        t0 = time.perf_counter()
        tuner.tune(n_trial=trials, measure_option=option,
                   callbacks=[lambda t, i, r: ok.extend(x.error_no == 0 for x in r)])
        wall = time.perf_counter() - t0
        return wall, runner.stats["run_s"], sum(ok), len(ok)
    finally:
        for s in servers:
            s.terminate()
        tracker.terminate()


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    trials = int(args[0]) if args else 64
    isolate = "--isolate" in sys.argv
    print(f"seed 000 conv1d template, {trials} trials, RandomTuner, LocalBuilder(n_parallel=4), "
          f"RPCRunner(min_repeat_ms=50), {os.cpu_count()} CPUs, isolate={isolate}")
    base = None
    for n in (1, 2, 4):
        wall, run_s, ok, total = tune(n, trials, isolate)
        rate = total / wall
        base = base or rate
        print(f"{n} server(s): {wall:6.2f} s  ({run_s:6.2f} s in runs)  {rate:5.2f} trials/s  "
              f"x{rate / base:4.2f} vs 1 server   ({ok}/{total} ok)")


if __name__ == "__main__":
    main()
