"""The tuning loop shared by every tuner (``Tuner.tune``)."""
from __future__ import annotations

import logging
import os
import time
from typing import Callable, List, Optional, Sequence

import numpy as np

from ..argcheck import check_int
from ..measure import MeasureInput, MeasureResult, create_measure_batch
from ..record import load_from_file
from ..space import ConfigEntity, FallbackConfigEntity, SpaceError, SplitEntity

logger = logging.getLogger("autotvm")


def fallback_index(task) -> Optional[int]:
    """The index in ``task``'s space of its template's fallback config (what a build without
    a record of the workload uses); None when that is no valid point of the space."""
    cfg = FallbackConfigEntity()
    try:
        with task.target:
            task.instantiate(cfg)
    except Exception:  # noqa: BLE001  (a template that fails on its fallback has none)
        return None
    space = task.config_space
    try:
        idx = space.index_of([_candidate(s, cfg[name]) for name, s in space.space_map.items()])
    except SpaceError:
        return None
    return idx if space.is_index_valid(idx) else None


def _candidate(space, entity) -> int:
    """The index of ``entity`` among ``space``'s candidates (a split matches on its inner
    factors: the space writes the outer one as -1)."""
    for i, e in enumerate(space.entities):
        if e == entity or (isinstance(e, SplitEntity) and isinstance(entity, SplitEntity)
                           and list(e.size[1:]) == list(entity.size[1:])):
            return i
    raise SpaceError(f"{entity!r} is not a candidate of the knob")


class Tuner:
    """Base class: subclasses pick configs (``next_batch``) and learn from results
    (``update``)."""

    def __init__(self, task, **kwargs):
        if not hasattr(task, "config_space"):
            raise TypeError(f"{type(self).__name__}: task must be an autotvm Task (from "
                            f"autotvm.task.create), got {task!r}")
        if task.config_space is None:
            raise ValueError("the task has no config space: create it with "
                             "autotvm.task.create(name, args, target)")
        self.param = kwargs
        self.task = task
        self.space = task.config_space
        self.best_config: Optional[ConfigEntity] = None
        self.best_flops = 0.0
        self.best_measure_pair = None
        self.best_iter = 0
        self.visited: set = set()
        self.n_trial = 0
        self.early_stopping = None
        self.ttl = None
        self.stats = {"tune_s": 0.0, "build_s": 0.0, "run_s": 0.0, "trials": 0, "resumed": 0}
        self.rng = np.random.default_rng()

    def _random_unvisited(self, k: int, taken=()) -> List[int]:
        """Up to ``k`` distinct random valid indices, neither visited nor in ``taken``."""
        space = self.space
        n = space.range_length
        if len(space) - len(self.visited) - len(taken) <= 4 * k:
            rest = [i for i in range(n) if i not in self.visited and i not in taken
                    and space.is_index_valid(i)]
            self.rng.shuffle(rest)
            return rest[:k]
        out: List[int] = []
        while len(out) < k:
            i = int(self.rng.integers(n))
            if i not in self.visited and i not in taken and i not in out and \
                    space.is_index_valid(i):
                out.append(i)
        return out

    # -- to implement
    def has_next(self) -> bool:
        return len(self.visited) < len(self.space)

    def next_batch(self, batch_size: int) -> List[ConfigEntity]:
        raise NotImplementedError

    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        """Learn from measured trials (the default does nothing)."""

    def prepare(self, measure_batch) -> None:
        """Hook called once per ``tune`` with the measure function."""

    # -- the loop
    def _note(self, inp, res, i: int) -> None:
        if res.error_no == 0:
            flops = inp.task.flop / float(np.mean(res.costs))
        else:
            flops = 0.0
        if flops > self.best_flops:
            self.best_flops = flops
            self.best_config = inp.config
            self.best_measure_pair = (inp, res)
            self.best_iter = i

    def load_history(self, data_set, min_seed_records: int = 0) -> int:
        """Take earlier records of this task as measured: their configs are not measured
        again and they count towards the best config (and the model, for model tuners)."""
        inputs, results = [], []
        wl = self.task.workload
        for inp, res in data_set:
            if inp.task.workload != wl or inp.config.index in self.visited:
                continue
            if not self.space.is_index_valid(inp.config.index):
                continue
            # records hold only knob values; take the space's own entity for this index
            cfg = self.space.get(inp.config.index)
            inputs.append(MeasureInput(self.task.target, self.task, cfg))
            results.append(res)
        for inp, res in zip(inputs, results):
            self.visited.add(inp.config.index)
            self._note(inp, res, -1)
        if inputs:
            self.update(inputs, results)
        self.stats["resumed"] += len(inputs)
        return len(inputs)

    def _resume_from_logs(self, callbacks) -> None:
        for cb in callbacks:
            path = getattr(cb, "log_file", None)
            if isinstance(path, (str, os.PathLike)) and os.path.exists(path):
                n = self.load_history(load_from_file(path, skip_invalid=True))
                if n:
                    logger.info("resumed %d trials of %s from %s", n, self.task.name, path)

    def tune(self, n_trial: int, measure_option, early_stopping: Optional[int] = None,
             callbacks: Sequence[Callable] = (), si_prefix: str = "G") -> None:
        """Measure up to ``n_trial`` new configs, calling each callback after every batch.

        Configs already in a ``log_to_file`` callback's file are not measured again.
        Stops early after ``early_stopping`` trials without improvement.
        """
        n_trial = check_int(n_trial, "tune: n_trial", 0)
        early_stopping = check_int(early_stopping, "tune: early_stopping", 0, allow_none=True)
        if not isinstance(measure_option, dict) or \
                not {"builder", "runner"} <= set(measure_option):
            raise TypeError("tune: measure_option must be the dict autotvm.measure_option() "
                            f"returns, got {measure_option!r}")
        if callable(callbacks) or not isinstance(callbacks, (list, tuple)) or \
                not all(callable(cb) for cb in callbacks):
            raise TypeError(f"tune: callbacks must be a list of callables, got {callbacks!r}")
        t_start = time.perf_counter()
        callbacks = list(callbacks)
        measure_batch = create_measure_batch(self.task, measure_option)
        self.prepare(measure_batch)
        # after prepare: a model tuner learns from the resumed records with its builder's help
        self._resume_from_logs(callbacks)
        builder, runner = measure_batch.builder, measure_batch.runner
        b0, r0 = builder.stats["build_s"], runner.stats["run_s"]
        n_parallel = measure_batch.n_parallel
        early_stopping = early_stopping or 10 ** 9
        self.n_trial, self.early_stopping = n_trial, early_stopping
        self.best_iter = 0
        i = error_ct = 0
        while i < n_trial and self.has_next():
            configs = self.next_batch(min(n_parallel, n_trial - i))
            if not configs:
                break
            inputs = [MeasureInput(self.task.target, self.task, c) for c in configs]
            results = measure_batch(inputs)
            for k, (inp, res) in enumerate(zip(inputs, results)):
                self.visited.add(inp.config.index)
                self._note(inp, res, i + k)
                if res.error_no == 0:
                    error_ct = 0
                    flops = inp.task.flop / float(np.mean(res.costs))
                else:
                    error_ct += 1
                    flops = 0.0
                # classic AutoTVM's per-trial line (shown with the autotvm logger at DEBUG)
                logger.debug("No: %d\tGFLOPS: %.2f/%.2f\tresult: %s\t%s", i + k + 1,
                             flops / 1e9, self.best_flops / 1e9,
                             res if res.error_no == 0 else res.costs[0], inp.config)
            i += len(results)
            self.ttl = min(early_stopping + self.best_iter, n_trial) - i
            self.update(inputs, results)
            for cb in callbacks:
                cb(self, inputs, results)
            if i >= self.best_iter + early_stopping:
                logger.debug("early stopped after %d trials", i)
                break
            if error_ct > 150:
                logger.warning("too many errors in a row; check the template and the "
                               "measure options")
        for cb in callbacks:
            fin = getattr(cb, "finish", None)
            if fin is not None:
                fin(self)
        self.stats["trials"] += i
        self.stats["build_s"] += builder.stats["build_s"] - b0
        self.stats["run_s"] += runner.stats["run_s"] - r0
        self.stats["tune_s"] += time.perf_counter() - t_start

    def reset(self) -> None:
        self.best_config = None
        self.best_flops = 0.0
        self.best_measure_pair = None
        self.visited = set()
