"""Space-time diagram of seed 000's conv1d, v0 (the reduction over all of A, every output
element a scalar loop) against v4 (the output split by 8, the inner loop vectorized, the
reduction over the short W): address against time step for A, W and B, traced on the
reference interpreter at small sizes. Writes ``bench/plots/memory_trace_conv1d_v0_v4.png``.

Run: python bench/plot_memory_trace.py [M N]
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from _plot import PLOTS_DIR  # noqa: E402
from programs import conv1d_v4  # noqa: E402
from test_seed_conv1d_unscheduled import make_conv1d_cpu_scheduler_v0  # noqa: E402

from tvmlite.contrib.memory_trace import plot_memory_traces, trace_memory  # noqa: E402


def main(m: int = 24, n: int = 5) -> Path:
    s0, a0, w0, b0 = make_conv1d_cpu_scheduler_v0(m, n, False)
    s4, (a4, w4, b4) = conv1d_v4(m, n, 8)
    traces = {"v0": trace_memory(s0, [a0, w0, b0]), "v4": trace_memory(s4, [a4, w4, b4])}
    for label, tr in traces.items():
        counts = {b: len(tr.buffer(b)[0]) for b in tr.buffers()}
        print(f"{label}: {tr.steps} time steps, accesses per buffer {counts}")
    path = PLOTS_DIR / "memory_trace_conv1d_v0_v4.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    plot_memory_traces(traces, path, buffers=["A", "W", "B"],
                       title=f"seed 000 conv1d, M={m}, N={n}: address vs time step")
    print(f"-> {path}")
    return path


if __name__ == "__main__":
    main(*(int(v) for v in sys.argv[1:3]))
