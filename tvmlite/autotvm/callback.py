"""Tuning callbacks (``autotvm.callback``): each is called as
``callback(tuner, inputs, results)`` after every measured batch."""
from __future__ import annotations

import logging
import os
import sys
import time
from typing import Callable

from .record import encode


def log_to_file(file_out, protocol: str = "json") -> Callable:
    """Append one record per trial to ``file_out`` (a path or an open file), flushed at once."""
    if protocol != "json":
        raise ValueError(f"unsupported record protocol {protocol!r} (only 'json')")

    def _callback(tuner, inputs, results):
        if isinstance(file_out, (str, bytes, os.PathLike)):
            text = "".join(encode(inp, res, protocol) + "\n" for inp, res in zip(inputs, results))
            with open(file_out, "a+b") as fh:
                # a line cut short by an earlier crash must not swallow the first new record
                if fh.tell() > 0:
                    fh.seek(-1, os.SEEK_END)
                    if fh.read(1) != b"\n":
                        text = "\n" + text
                fh.write(text.encode())
        else:
            for inp, res in zip(inputs, results):
                file_out.write(encode(inp, res, protocol) + "\n")
            file_out.flush()

    _callback.log_file = file_out
    return _callback


class Monitor:
    """Collect the trials' inputs and results (``trial_scores()``, ``trial_timestamps()``)."""

    def __init__(self):
        self.scores = []
        self.timestamps = []

    def __call__(self, tuner, inputs, results):
        for inp, res in zip(inputs, results):
            if res.error_no == 0:
                flops = inp.task.flop / (sum(res.costs) / len(res.costs))
                self.scores.append(flops)
            else:
                self.scores.append(0)
            self.timestamps.append(res.timestamp)

    def reset(self):
        self.scores, self.timestamps = [], []

    def trial_scores(self):
        return list(self.scores)

    def trial_timestamps(self):
        return list(self.timestamps)


def _debug_mode() -> bool:
    """Classic AutoTVM prints the bar only while the ``autotvm`` logger has no level set; at
    DEBUG the tuner's per-trial lines take its place."""
    return logging.getLogger("autotvm").level >= logging.DEBUG


def progress_bar(total: int, prefix: str = "", si_prefix: str = "G", stream=None) -> Callable:
    """Print ``Current/Best: x/y GFLOPS | Progress: (i/total) | t s`` after every batch, and
    `` Done.`` when tuning ends."""
    units = {"G": 1e9, "M": 1e6, "K": 1e3, "T": 1e12, "": 1.0}
    if si_prefix not in units:
        raise ValueError(f"progress_bar: unknown SI prefix {si_prefix!r}")
    scale = units[si_prefix]
    state = {"ct": 0, "cur": 0.0, "best": 0.0, "start": time.time(), "tuner": None}

    def _out():
        return stream or sys.stdout

    def _line():
        el = time.time() - state["start"]
        return (f"\r{prefix} Current/Best: {state['cur'] / scale:7.2f}/"
                f"{state['best'] / scale:7.2f} {si_prefix}FLOPS | Progress: "
                f"({state['ct']}/{total}) | {el:.2f} s")

    def _callback(tuner, inputs, results):
        if state["tuner"] is None:
            state["tuner"] = tuner
        elif tuner is not state["tuner"]:  # the same callback reused for another tuning run
            state.update(ct=0, cur=0.0, best=0.0, start=time.time(), tuner=tuner,
                         printed=False)
        # as classic AutoTVM: current is the batch's last valid result (0 if none), best is
        # the tuner's best (records resumed from a log included)
        state["cur"] = 0.0
        for inp, res in zip(inputs, results):
            state["ct"] += 1
            if res.error_no == 0:
                state["cur"] = inp.task.flop / (sum(res.costs) / len(res.costs))
                state["best"] = max(state["best"], state["cur"])
        state["best"] = max(state["best"], getattr(tuner, "best_flops", 0.0))
        if _debug_mode():
            return
        state["printed"] = True
        _out().write(_line())
        _out().flush()

    def _finish(tuner=None):
        if tuner is not None:
            state["best"] = max(state["best"], getattr(tuner, "best_flops", 0.0))
        if _debug_mode():
            return
        # the last line stays as it was printed; a run that measured nothing prints one
        _out().write((" Done.\n" if state.get("printed") else _line() + " Done.\n"))
        _out().flush()

    _callback.finish = _finish
    return _callback
