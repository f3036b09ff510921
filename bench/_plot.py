"""GFLOP/s-versus-size line plots as the book (d2ltvm) draws them, written as PNG files.

matplotlib is optional (``pip install tvmlite[bench]``): without it :func:`plot_gflops`
returns None and the benchmarks print their tables only."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Optional, Sequence

PLOTS_DIR = Path(__file__).resolve().parent / "plots"


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def plot_gflops(path: Path, sizes: Sequence[float], lines: Dict[str, Sequence[float]],
                title: str, xlabel: str = "Size", baselines: Sequence[str] = (),
                log_x: bool = True) -> Optional[Path]:
    """One figure: a line per entry of ``lines`` (GFLOP/s per size), log-log as d2ltvm's
    ``plot_gflops``; the ``baselines`` (numpy, torch) dashed, tvmlite's schedules solid."""
    if not have_matplotlib():
        return None
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=(5.0, 3.4), dpi=120)
    for name, ys in lines.items():
        ax.plot(sizes, ys, "--" if name in baselines else "-", marker="o", markersize=3,
                label=name)
    ax.set_xscale("log" if log_x else "linear", base=2 if log_x else 10)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("GFLOPS")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
