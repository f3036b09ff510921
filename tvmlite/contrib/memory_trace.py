"""Space-time diagrams of memory accesses (seed 003): which element of which buffer a schedule
touches at each step, to see what ``reorder``, ``split``, ``cache_read`` or ``vectorize``
change before timing anything.

:func:`trace_memory` runs a schedule at small sizes on the reference interpreter
(``tvmlite.tir.interpreter``) and records every load and store: time step, buffer, flattened
element address. The lanes of a ``vectorized`` loop run in lockstep (their k-th accesses
share one time step, as one vector instruction would), so a vector access shows as a vertical
run of addresses; other loops, ``parallel`` ones included, run in order.
:func:`plot_memory_traces` draws address against time step, one panel per buffer and one
column per trace (matplotlib, optional: ``pip install tvmlite[bench]``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..error import TVMError
from ..te.schedule import Schedule, schedule_to_prim_func
from ..tir import stmt as S
from ..tir.function import PrimFunc
from ..tir.interpreter import Interpreter, _np_dtype, _wrap


@dataclass
class MemoryTrace:
    """The accesses of one run: ``events[i] = (step, buffer name, flat address, is_store)``
    in execution order; ``sizes`` the element count of every buffer touched."""

    events: List[Tuple[int, str, int, bool]] = field(default_factory=list)
    sizes: Dict[str, int] = field(default_factory=dict)

    @property
    def steps(self) -> int:
        """Time steps the run took (the vector lanes of one step counted once)."""
        return 1 + max((e[0] for e in self.events), default=-1)

    def buffer(self, name: str) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(steps, addresses, is_store)`` arrays of the accesses to buffer ``name``."""
        rows = [e for e in self.events if e[1] == name]
        return (np.array([r[0] for r in rows], dtype=np.int64),
                np.array([r[2] for r in rows], dtype=np.int64),
                np.array([r[3] for r in rows], dtype=bool))

    def buffers(self) -> List[str]:
        """Buffer names in order of first access."""
        return list(dict.fromkeys(e[1] for e in self.events))


class _Tracer(Interpreter):
    def __init__(self):
        super().__init__()
        self.trace = MemoryTrace()
        self.step = 0

    def _touch(self, buf, arr, idx, store: bool) -> None:
        addr = int(np.ravel_multi_index(idx, arr.shape)) if arr.ndim else 0
        self.trace.events.append((self.step, buf.name, addr, store))
        self.trace.sizes[buf.name] = int(arr.size)
        self.step += 1

    def _load(self, e):
        index = self._index(e.buffer, [self.expr(i) for i in e.indices])
        buf, dt = e.buffer, e.dtype

        def load():
            arr, idx = index()
            self._touch(buf, arr, idx, False)
            return _wrap(arr[idx], dt)
        return load

    def stmt(self, s) -> None:
        if isinstance(s, S.BufferStore):
            index = self._index(s.buffer, [self.expr(i) for i in s.indices])
            value = self.expr(s.value)()  # the loads of the value come first
            arr, idx = index()
            self._touch(s.buffer, arr, idx, True)
            arr[idx] = value
        elif isinstance(s, S.For) and s.kind == S.ForKind.VECTORIZED:
            lo = int(self.expr(s.min)())
            n = int(self.expr(s.extent)())
            start = end = self.step
            for i in range(lo, lo + n):  # lanes in lockstep
                self.step = start
                self.env[s.loop_var] = i
                self.stmt(s.body)
                end = max(end, self.step)
            self.step = end
        else:
            super().stmt(s)


def trace_memory(sch, args: Sequence = (), inputs: Optional[Sequence[np.ndarray]] = None,
                 seed: int = 0) -> MemoryTrace:
    """Run a schedule on the reference interpreter and record its memory accesses.

    Parameters
    ----------
    sch : te.Schedule or tir.PrimFunc
        A TE schedule (with its ``args`` tensors) or a TensorIR function (its scheduled
        ``mod["main"]``); keep the sizes small, the interpreter runs in Python.
    args : list of te.Tensor
        The TE schedule's arguments, as for ``tvm.build``.
    inputs : list of numpy.ndarray, optional
        One array per buffer parameter (outputs are written); random ones by default.
    seed : int
        Seed of the random inputs.

    Returns
    -------
    MemoryTrace
    """
    if isinstance(sch, Schedule):
        func = schedule_to_prim_func(sch, list(args))
    elif isinstance(sch, PrimFunc):
        func = sch
    else:
        raise TVMError(f"trace_memory: expected a te.Schedule or a tir.PrimFunc, got "
                       f"{type(sch).__name__}")
    bufs = [func.buffer_map[p] for p in func.params if p in func.buffer_map]
    if len(bufs) != len(func.params):
        raise TVMError("trace_memory: every parameter must be a buffer (give the shapes as "
                       "constants)")
    if inputs is None:
        rng = np.random.default_rng(seed)
        inputs = []
        for b in bufs:
            shape = tuple(int(d) for d in b.shape)
            inputs.append(rng.random(shape).astype(_np_dtype(b.dtype)))
    if len(inputs) != len(bufs):
        raise TVMError(f"trace_memory: {len(bufs)} buffers but {len(inputs)} inputs")
    tracer = _Tracer()
    tracer.run(func, *inputs)
    return tracer.trace


def plot_memory_traces(traces: Dict[str, MemoryTrace], path=None,
                       buffers: Optional[Sequence[str]] = None, title: str = ""):
    """Address against time step: one column per trace (``{label: trace}``), one row per
    buffer; loads as blue dots, stores as red crosses. Saves a PNG when ``path`` is given and
    returns the matplotlib figure."""
    try:
        import matplotlib
    except ImportError as err:
        raise TVMError("plot_memory_traces needs matplotlib (pip install tvmlite[bench])") \
            from err
    if path is not None:
        matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    names = list(buffers) if buffers else list(dict.fromkeys(
        n for t in traces.values() for n in t.buffers()))
    fig, axes = plt.subplots(len(names), len(traces), squeeze=False, sharey="row",
                             figsize=(4.2 * len(traces), 1.9 * len(names) + 0.6), dpi=110)
    for col, (label, tr) in enumerate(traces.items()):
        for row, name in enumerate(names):
            ax = axes[row][col]
            steps, addr, store = tr.buffer(name)
            ax.scatter(steps[~store], addr[~store], s=4, c="tab:blue", marker=".",
                       label="load", linewidths=0)
            ax.scatter(steps[store], addr[store], s=10, c="tab:red", marker="x",
                       label="store", linewidths=0.8)
            ax.set_xlim(-0.02 * tr.steps, 1.02 * tr.steps)
            if row == 0:
                ax.set_title(f"{label} ({tr.steps} steps)", fontsize=9)
            if col == 0:
                ax.set_ylabel(f"{name}\naddress", fontsize=8)
            if row == len(names) - 1:
                ax.set_xlabel("time step", fontsize=8)
            ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=7, loc="upper left")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path)
        plt.close(fig)
    return fig
