"""``ApplyHistoryBest``: dispatch each workload to the best record of a tuning log.

It reads logs with :mod:`.record`, which sits above :mod:`.dispatch` (records name tasks, and
tasks dispatch), so it lives here rather than beside the other dispatch contexts.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

from .dispatch import DispatchContext, _target_keys
from .record import decode, load_from_file


def _is_pathlike(x) -> bool:
    return isinstance(x, (str, bytes, os.PathLike))


class ApplyHistoryBest(DispatchContext):
    """Give each workload the best valid record of a log (``autotvm.apply_history_best``).

    ``records``: a log file name, a list of file names, or an iterable of
    ``(MeasureInput, MeasureResult)`` pairs. The other valid records are kept too
    (:meth:`records`): AlterOpLayout chooses among them so that neighbouring convolutions
    agree on their data layout.
    """

    def __init__(self, records):
        super().__init__()
        self.best_by_targetkey: Dict[Tuple[str, Tuple], Tuple[Any, Any]] = {}
        self._best_user: Dict[Tuple[str, Tuple], Any] = {}
        self._all: Dict[Tuple[str, Tuple], List[Tuple[float, Any, Any]]] = {}
        if records is not None:
            self.load(records)

    def load(self, records) -> None:
        """Add ``records``: a log file name or open file, ``(MeasureInput, MeasureResult)``
        pairs, or any (nested) iterable of those, as classic TVM accepts."""
        items = []
        self._collect(records, items)
        for inp, res in items:
            if res.error_no != 0:
                continue
            cost = sum(res.costs) / len(res.costs)
            for key in _target_keys(inp.target) or ("",):
                k = (key, inp.task.workload)
                old = self.best_by_targetkey.get(k)
                if old is None or cost < sum(old[1].costs) / len(old[1].costs):
                    self.best_by_targetkey[k] = (inp, res)
                self._all.setdefault(k, []).append((cost, inp, res))

    @staticmethod
    def _collect(records, items: list) -> None:
        if _is_pathlike(records):
            items.extend(load_from_file(records, skip_invalid=True))
        elif hasattr(records, "read"):
            items.extend(rec for rec in map(decode, records) if rec is not None)
        elif isinstance(records, tuple) and len(records) == 2 and hasattr(records[0], "config"):
            items.append(records)
        else:
            for r in records:
                ApplyHistoryBest._collect(r, items)

    def _query_inside(self, target, workload):
        if workload is None:
            return None
        keys = _target_keys(target) or tuple({k for k, _ in self.best_by_targetkey})
        for key in keys:
            k = (key, workload)
            if k in self._best_user:
                return self._best_user[k]
            if k in self.best_by_targetkey:
                return self.best_by_targetkey[k][0].config
        return None

    def _records_inside(self, target, workload) -> Optional[List[Tuple[Any, Any]]]:
        if workload is None:
            return None
        keys = _target_keys(target) or tuple({k for k, _ in self._all})
        for key in keys:
            k = (key, workload)
            if k in self._best_user:
                return []
            if k in self._all:
                recs = self._all[k]
                recs.sort(key=lambda r: r[0])  # stable: equal costs keep the log's order
                return [(inp, res) for _, inp, res in recs]
        return None

    def update(self, target, workload, cfg) -> None:
        for key in _target_keys(target) or ("",):
            self._best_user[(key, workload)] = cfg


class ApplyGraphBest(ApplyHistoryBest):
    """The graph tuner's choice (``autotvm.apply_graph_best``): one record per tuned node of
    the graph, in the order of the nodes (what ``write_opt_sch2record_file`` wrote).

    AlterOpLayout gives its k-th packed convolution the next of these records when the
    workloads match (classic's counter), so two nodes of one workload may run different
    configs; other queries see the records as :class:`ApplyHistoryBest` does.
    """

    def __init__(self, records):
        items: list = []
        self._collect(records, items)
        self.nodes = [(inp, res) for inp, res in items if res.error_no == 0]
        self._cursor = 0
        super().__init__(self.nodes)

    def node_record(self, index: int, workloads) -> Optional[Tuple[Any, Any]]:
        """The record of the graph's node number ``index`` (0 restarts the count), if the
        next unused record is of one of ``workloads`` (the node's implementations)."""
        if index == 0:
            self._cursor = 0
        if self._cursor < len(self.nodes) and self.nodes[self._cursor][0].task.workload \
                in workloads:
            self._cursor += 1
            return self.nodes[self._cursor - 1]
        return None


def apply_graph_best(records) -> ApplyGraphBest:
    """``with autotvm.apply_graph_best("graph_opt.log"): relay.build(...)`` — build with the
    graph tuner's per-node configs (:class:`ApplyGraphBest`)."""
    return ApplyGraphBest(records)


def apply_history_best(records) -> ApplyHistoryBest:
    """``with autotvm.apply_history_best("tune.log"): ...`` — use the best tuned configs."""
    return ApplyHistoryBest(records)
