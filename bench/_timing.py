"""Timing of Python-side baselines (numpy) for the benchmarks: medians of repeated runs."""
import statistics
import time


def median_time(f, reps: int = 5, number: int = None) -> float:
    """Median over ``reps`` runs of the mean time of ``number`` calls of ``f`` (seconds).
    ``number`` defaults to enough calls for about 20 ms per run."""
    f()
    if number is None:
        t0 = time.perf_counter()
        f()
        number = max(1, int(0.02 / max(time.perf_counter() - t0, 1e-7)))
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(number):
            f()
        ts.append((time.perf_counter() - t0) / number)
    return statistics.median(ts)
