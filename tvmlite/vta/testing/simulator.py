"""The simulator's statistics and trace (classic ``vta.testing.simulator``)."""
from ..simulator import clear_stats, stats, trace, trace_dump, utilisation

__all__ = ["clear_stats", "stats", "trace", "trace_dump", "utilisation"]
