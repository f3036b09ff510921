"""Stores of tuning records keyed by :func:`~tvm.autotvm.record.measure_str_key`
(``tvm.autotvm.database``); ``DummyDatabase`` keeps them in memory."""
from __future__ import annotations

from typing import Callable, Dict, List, Union

from ..error import TVMError
from .measure import MeasureInput, MeasureResult
from .record import measure_str_key


class Database:
    """The interface: ``load``/``save``/``filter``/``flush``."""

    def load(self, inp: MeasureInput, get_all: bool = False
             ) -> Union[None, MeasureResult, List[MeasureResult]]:
        """The latest result recorded for ``inp`` (all of them, oldest first, with
        ``get_all``); None when there is none."""
        raise NotImplementedError

    def save(self, inp: MeasureInput, res: MeasureResult, extend: bool = False) -> None:
        """Record ``res`` for ``inp``, replacing what was there unless ``extend``."""
        raise NotImplementedError

    def filter(self, func: Callable) -> List:
        """``[(input, [results])]`` for which ``func(input, results)`` is true."""
        raise NotImplementedError

    def flush(self) -> None:
        """Forget every record."""
        raise NotImplementedError


class DummyDatabase(Database):
    """An in-memory database."""

    def __init__(self):
        self._records: Dict[str, tuple] = {}

    def load(self, inp, get_all=False):
        entry = self._records.get(measure_str_key(inp))
        if entry is None:
            return None
        results = entry[1]
        return list(results) if get_all else max(results, key=lambda r: r.timestamp)

    def save(self, inp, res, extend=False):
        key = measure_str_key(inp)
        if extend and key in self._records:
            self._records[key][1].append(res)
        else:
            self._records[key] = (inp, [res])

    def filter(self, func):
        return [(inp, list(ress)) for inp, ress in self._records.values() if func(inp, ress)]

    def flush(self):
        self._records.clear()


def RedisDatabase(*args, **kwargs) -> Database:  # noqa: N802 -- classic class name
    """Not available: tvmlite keeps no Redis client."""
    raise TVMError("tvmlite does not implement autotvm.database.RedisDatabase")


