"""Tuning records: classic AutoTVM's JSON-lines log format.

One line per trial::

    {"input": ["llvm", "tutorial/conv1d_auto_tune", [4096, 128], {}],
     "config": {"index": 17, "code_hash": null, "entity": [["tile_i", "sp", [-1, 41]], ...]},
     "result": [[0.00071], 0, 0.52, 1700000000.1], "version": 0.2, "tvm_version": "0.8.0"}

A failed trial's costs are written as ``[1000000000.0]``.
"""
from __future__ import annotations

import base64
import io
import json
import logging
import os
import pickle
from typing import Iterable, Iterator, Optional, Tuple

from .._classic import missing
from ..error import TVMError
from ..target import Target
from .measure import MeasureInput, MeasureResult
from .space import ConfigEntity
from .task import TASK_TABLE, Task, args_to_workload, deserialize_args, serialize_arg

AUTOTVM_LOG_VERSION = 0.2
TVM_VERSION = "0.8.0"

logger = logging.getLogger("autotvm")
_warned_v01 = False


class RecordError(TVMError, ValueError):
    """A log line that is not a valid record."""


class _RecordTask:
    """The task of a record whose template is not registered in this process."""

    def __init__(self, name: str, args):
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


def _check_protocol(protocol: str) -> None:
    if protocol not in ("json", "pickle"):
        raise RecordError(f"unsupported record protocol {protocol!r} ('json' or 'pickle')")


class _PlainUnpickler(pickle.Unpickler):
    """Reads plain data only (a pickled record row holds lists, numbers and strings)."""

    def find_class(self, module, name):
        raise RecordError(f"a pickled record may hold plain data only, not {module}.{name}")


def encode(inp: MeasureInput, result: MeasureResult, protocol: str = "json") -> str:
    """One record as a line of JSON (``protocol="pickle"``: the same row, pickled and
    base64-encoded, as classic AutoTVM's compact form)."""
    _check_protocol(protocol)
    costs = list(result.costs) if result.error_no == 0 else [1e9]
    row = {"input": [str(inp.target), inp.task.name, _jsonable(inp.task.args), {}],
           "config": inp.config.to_json_dict(),
           "result": [costs, int(result.error_no), result.all_cost, result.timestamp],
           "version": AUTOTVM_LOG_VERSION, "tvm_version": TVM_VERSION}
    if protocol == "pickle":
        return base64.b64encode(pickle.dumps(row)).decode("ascii")
    return json.dumps(row)


def _jsonable(x):
    if isinstance(x, (list, tuple)):
        return [_jsonable(a) for a in x]

    return _jsonable(serialize_arg(x)) if not isinstance(x, (int, float, str, type(None))) \
        else x


def decode(row: str, protocol: str = "json") -> Optional[Tuple[MeasureInput, MeasureResult]]:
    """Parse one record line (None for a blank line)."""
    _check_protocol(protocol)
    if not isinstance(row, str):
        raise TypeError(f"decode: a record is a line of text, got {row!r}")
    if protocol == "pickle":
        try:
            row = json.dumps(_PlainUnpickler(io.BytesIO(base64.b64decode(row))).load())
        except (ValueError, TypeError, pickle.UnpicklingError, EOFError) as e:
            raise RecordError(f"not a pickled AutoTVM record: {row[:120]!r} ({e})") from None
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
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
        raise RecordError(f"not an AutoTVM record: {row[:120]!r} ({e})") from None
    result = _check_result(costs, error_no, all_cost, timestamp, row)
    if not isinstance(name, str) or not isinstance(tgt, str):
        raise RecordError(f"not an AutoTVM record: {row[:120]!r} (the input must be "
                          "[target string, task name, args, kwargs])")
    try:
        task = _make_task(name, deserialize_args(args))
        target = Target(str(tgt))  # the whole string: -mcpu and the like are kept
    except (TVMError, ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
        raise RecordError(f"not an AutoTVM record: {row[:120]!r} ({e})") from None
    task.target = target
    return MeasureInput(target, task, config), result


def _check_result(costs, error_no, all_cost, timestamp, row: str) -> MeasureResult:
    """The ``result`` field, checked: numeric costs for a valid trial, an integer error_no."""
    def bad(why: str) -> RecordError:
        return RecordError(f"not an AutoTVM record: {row[:120]!r} ({why})")

    if isinstance(error_no, bool) or not isinstance(error_no, int) or error_no < 0:
        raise bad(f"error_no must be a non-negative integer, got {error_no!r}")
    if not isinstance(costs, list) or not costs:
        raise bad(f"costs must be a non-empty list, got {costs!r}")
    if error_no == 0:
        for c in costs:
            if isinstance(c, bool) or not isinstance(c, (int, float)) or not c >= 0 \
                    or c == float("inf"):
                raise bad(f"cost {c!r} of a valid trial is not a non-negative number")
    for what, v in (("all_cost", all_cost), ("timestamp", timestamp)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise bad(f"{what} must be a number, got {v!r}")
    return MeasureResult(tuple(costs), error_no, float(all_cost), float(timestamp))


def load_from_file(filename, skip_invalid: bool = False
                   ) -> Iterator[Tuple[MeasureInput, MeasureResult]]:
    """The records of a log file, in order.

    An unreadable line raises :class:`RecordError` naming ``file:line``; with
    ``skip_invalid`` it is skipped with a warning naming it instead (a log cut short by a
    crash keeps its good records usable).
    """
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"load_from_file: filename must be a path, got {filename!r}")
    filename = os.fspath(filename)
    if not os.path.exists(filename):
        raise RecordError(f"record file {filename!r} does not exist")
    with open(filename, encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                rec = decode(line)
            except RecordError as e:
                if not skip_invalid:
                    raise RecordError(f"{filename}:{lineno}: {e}") from None
                logger.warning("skipping unreadable line %s:%d: %s", filename, lineno, e)
                continue
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
    for inp, res in load_from_file(in_file, skip_invalid=True):
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
    if name == "ApplyHistoryBest":  # classic's home of the class, which reads records
        from .apply_history_best import ApplyHistoryBest  # (so it imports this module)

        return ApplyHistoryBest
    return missing(__name__, name)
