"""Tuning records: classic AutoTVM's JSON-lines log format.

One line per trial::

    {"input": ["llvm", "tutorial/conv1d_auto_tune", [4096, 128], {}],
     "config": {"index": 17, "code_hash": null, "entity": [["tile_i", "sp", [-1, 41]], ...]},
     "result": [[0.00071], 0, 0.52, 1700000000.1], "version": 0.2, "tvm_version": "0.8.0"}

A failed trial's costs are written as ``[1000000000.0]``.
"""
from __future__ import annotations

import json
import logging
import os
from typing import Iterable, Iterator, Optional, Tuple

from ..error import TVMError
from .measure import MeasureInput, MeasureResult
from .space import ConfigEntity
from .task import TASK_TABLE, Task, deserialize_args

AUTOTVM_LOG_VERSION = 0.2
TVM_VERSION = "0.8.0"

logger = logging.getLogger("autotvm")
_warned_v01 = False


class RecordError(TVMError, ValueError):
    """A log line that is not a valid record."""


class _RecordTask:
    """The task of a record whose template is not registered in this process."""

    def __init__(self, name: str, args):
        from .task import args_to_workload

        self.name = name
        self.args = tuple(args)
        self.workload = args_to_workload(self.args, name)
        self.target = None

    def __repr__(self) -> str:
        return f"Task(func_name={self.name}, args={self.args})"


def _make_task(name: str, args):
    if name in TASK_TABLE:
        t = Task(name, args)
        return t
    return _RecordTask(name, args)


def encode(inp: MeasureInput, result: MeasureResult, protocol: str = "json") -> str:
    """One record as a line of JSON."""
    if protocol != "json":
        raise RecordError(f"unsupported record protocol {protocol!r} (only 'json')")
    costs = list(result.costs) if result.error_no == 0 else [1e9]
    row = {"input": [str(inp.target), inp.task.name, _jsonable(inp.task.args), {}],
           "config": inp.config.to_json_dict(),
           "result": [costs, int(result.error_no), result.all_cost, result.timestamp],
           "version": AUTOTVM_LOG_VERSION, "tvm_version": TVM_VERSION}
    return json.dumps(row)


def _jsonable(x):
    if isinstance(x, (list, tuple)):
        return [_jsonable(a) for a in x]
    from .task import serialize_arg

    return _jsonable(serialize_arg(x)) if not isinstance(x, (int, float, str, type(None))) \
        else x


def decode(row: str, protocol: str = "json") -> Optional[Tuple[MeasureInput, MeasureResult]]:
    """Parse one record line (None for a blank line)."""
    from ..target import Target

    if protocol != "json":
        raise RecordError(f"unsupported record protocol {protocol!r} (only 'json')")
    row = row.strip()
    if not row or row.startswith("#"):  # classic logs may hold comment lines
        return None
    try:
        d = json.loads(row)
        if isinstance(d, dict) and d.get("v") == 0.1:
            global _warned_v01
            if not _warned_v01:
                logger.warning("AutoTVM log version 0.1 is no longer supported.")
                _warned_v01 = True
            return None
        tgt, name, args, _kwargs = d["input"]
        config = ConfigEntity.from_json_dict(d["config"])
        costs, error_no, all_cost, timestamp = d["result"]
    except (ValueError, KeyError, TypeError) as e:
        raise RecordError(f"not an AutoTVM record: {row[:120]!r} ({e})") from None
    task = _make_task(name, deserialize_args(args))
    target = Target(str(tgt))  # the whole string: -mcpu and the like are kept
    task.target = target
    return (MeasureInput(target, task, config),
            MeasureResult(tuple(costs), int(error_no), float(all_cost), float(timestamp)))


def load_from_file(filename) -> Iterator[Tuple[MeasureInput, MeasureResult]]:
    """The records of a log file, in order."""
    filename = os.fspath(filename)
    if not os.path.exists(filename):
        raise RecordError(f"record file {filename!r} does not exist")
    with open(filename) as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                rec = decode(line)
            except RecordError as e:
                raise RecordError(f"{filename}:{lineno}: {e}") from None
            if rec is not None:
                yield rec


def save_to_file(filename, records: Iterable[Tuple[MeasureInput, MeasureResult]],
                 mode: str = "a") -> None:
    with open(filename, mode) as fh:
        for inp, res in records:
            fh.write(encode(inp, res) + "\n")


def pick_best(in_file, out_file) -> None:
    """Write the best valid record of each workload of ``in_file`` to ``out_file``."""
    best = {}
    for inp, res in load_from_file(in_file):
        if res.error_no != 0:
            continue
        key = (str(inp.target), inp.task.workload)
        cost = sum(res.costs) / len(res.costs)
        if key not in best or cost < best[key][0]:
            best[key] = (cost, inp, res)
    save_to_file(out_file, [(i, r) for _, i, r in best.values()], mode="w")


__all__ = ["encode", "decode", "load_from_file", "save_to_file", "pick_best", "RecordError"]


def measure_str_key(inp: MeasureInput, include_config: bool = True) -> str:
    """A string naming a measurement input: target, task name and arguments, and (by default)
    the config with its code hash — the key of :mod:`tvm.autotvm.database`."""
    config = f"{inp.config!r},{inp.config.code_hash}" if include_config else ""
    return "".join([str(inp.target), inp.task.name, str(inp.task.args),
                    str(getattr(inp.task, "kwargs", {})), config])


def __getattr__(name: str):
    if name == "ApplyHistoryBest":  # classic's home of the class (it lives in .dispatch)
        from .dispatch import ApplyHistoryBest

        return ApplyHistoryBest
    from .._classic import missing

    return missing(__name__, name)
