"""The XGBoost cost-model tuner (``autotvm.tuner.XGBTuner``).

A gradient-boosted ranking model (xgboost, ``rank:pairwise`` by default) learns the measured
throughput from each config's features: by default the lowered loop nest's (``itervar``,
computed in the build workers and cached), or the knob values (``knob``). It is retrained as
results arrive; between measurements, simulated annealing over the model (or, for small
spaces, a scan of the whole space) picks the next configs to measure.
"""
from __future__ import annotations

import logging
import time
from typing import Dict, List, Optional

import numpy as np

from ...error import TVMError  # noqa: F401  (its historical home; tests import it here)
from ..space import ConfigEntity
from .tuner import Tuner, fallback_index
from .xgboost_cost_model import XGBoostCostModel, _import_xgboost

logger = logging.getLogger("autotvm")

class SimulatedAnnealingOptimizer:
    """Find high-scoring unvisited configs: anneal ``parallel_size`` chains that move one knob
    at a time, for ``n_iter`` steps or until ``feature_budget`` new configs were featurized."""

    def __init__(self, space, n_iter: int = 150, parallel_size: int = 64, temp=(1.0, 0.0),
                 early_stop: int = 30, feature_budget: int = 256, exhaustive_limit: int = 1024,
                 seed=None):
        self.space = space
        self.dims = space.dims
        self.n_iter = n_iter
        self.parallel_size = parallel_size
        self.temp = temp
        self.early_stop = early_stop
        self.feature_budget = feature_budget
        self.exhaustive_limit = exhaustive_limit
        self.rng = np.random.default_rng(seed)

    def _neighbor(self, idx: int) -> int:
        knobs = self.space.knob_indices(idx)
        movable = [d for d, n in enumerate(self.dims) if n > 1]
        if not movable:
            return idx
        d = movable[int(self.rng.integers(len(movable)))]
        n = self.dims[d]
        # mostly a step to an adjacent candidate, sometimes a jump
        if self.rng.random() < 0.7:
            knobs[d] = int(np.clip(knobs[d] + (1 if self.rng.random() < 0.5 else -1), 0, n - 1))
        else:
            knobs[d] = int(self.rng.integers(n))
        cand = self.space.index_of(knobs)
        return cand if self.space.is_index_valid(cand) else idx

    def find_maximums(self, model: XGBoostCostModel, num: int, exclusive: set) -> List[int]:
        n = self.space.range_length
        if n <= self.exhaustive_limit:
            cand = [i for i in range(n) if i not in exclusive and self.space.is_index_valid(i)]
            scores = model.predict(cand)
            order = np.argsort(-scores, kind="stable")
            return [cand[k] for k in order[:num] if np.isfinite(scores[k])]
        cache = model.features.cache
        start_new = len(cache)
        points = []
        while len(points) < self.parallel_size:
            i = int(self.rng.integers(n))
            if self.space.is_index_valid(i):
                points.append(i)
        scores = model.predict(points)
        best: Dict[int, float] = {}

        def consider(idxs, sc):
            for i, s in zip(idxs, sc):
                if i not in exclusive and np.isfinite(s):
                    best[i] = float(s)

        consider(points, scores)
        t0, t1 = self.temp
        stale = 0
        top_before = None
        for it in range(self.n_iter):
            temp = t0 + (t1 - t0) * it / max(1, self.n_iter - 1)
            new = [self._neighbor(p) for p in points]
            if len(cache) - start_new >= self.feature_budget:
                # out of featurization budget: only move to configs already featurized
                new = [q if q in cache else p for p, q in zip(points, new)]
            new_scores = model.predict(new)
            consider(new, new_scores)
            with np.errstate(over="ignore", invalid="ignore"):
                accept = np.exp(np.minimum((new_scores - scores) / (temp + 1e-5), 0.0))
            take = self.rng.random(len(points)) < np.nan_to_num(accept)
            points = [q if t else p for p, q, t in zip(points, new, take)]
            scores = np.where(take, new_scores, scores)
            top = tuple(sorted(best, key=best.get, reverse=True)[:num])
            stale = stale + 1 if top == top_before else 0
            top_before = top
            if stale >= self.early_stop:
                break
        return sorted(best, key=best.get, reverse=True)[:num]


class XGBTuner(Tuner):
    """Tune with an xgboost cost model (classic AutoTVM's XGBTuner). The first config
    measured is the template's fallback (the untuned build's), the next ones random until
    the model has results to learn from.

    Parameters
    ----------
    task : the tuning task
    plan_size : how many top predicted configs each model plans ahead
    feature_type : ``"itervar"`` (the lowered loop nest, default) or ``"knob"``
    loss_type : ``"rank"`` (pairwise ranking, default) or ``"reg"``
    optimizer : ``"sa"`` (simulated annealing; whole-space scan for small spaces)
    retrain_every : retrain after this many new results (default: max(8, batch size))
    """

    def __init__(self, task, plan_size: int = 64, feature_type: str = "itervar",
                 loss_type: str = "rank", num_threads: Optional[int] = None,
                 optimizer: str = "sa", diversity_filter_ratio=None, log_interval: int = 50,
                 retrain_every: Optional[int] = None, seed=None):
        super().__init__(task)
        _import_xgboost()
        if optimizer != "sa" and not isinstance(optimizer, SimulatedAnnealingOptimizer):
            raise ValueError(f"unknown optimizer {optimizer!r} (use 'sa')")
        self.plan_size = plan_size
        self.model = XGBoostCostModel(task, feature_type, loss_type, num_threads, seed=seed)
        self.features = self.model.features
        self.optimizer = optimizer if isinstance(optimizer, SimulatedAnnealingOptimizer) \
            else SimulatedAnnealingOptimizer(self.space, seed=seed)
        self.rng = np.random.default_rng(seed)
        self.retrain_every = retrain_every
        self.xs: List[int] = []
        self.ys: List[float] = []
        self.trials: List[int] = []
        self.trial_pt = 0
        self.n_since_train = 0
        self.train_ct = 0
        self.eps_greedy = 0.05
        self.stats.update({"model_s": 0.0, "features_s": 0.0, "trains": 0})
        # measured first: the config an untuned build uses, so that the best record is never
        # worse than it and AlterOpLayout can weigh the untuned blocks against tuned ones
        fb = fallback_index(task)
        self._first: List[int] = [] if fb is None else [fb]

    def prepare(self, measure_batch) -> None:
        builder = measure_batch.builder
        self.features.builder = builder
        builder.want_features = self.features.feature_type == "itervar"
        self._batch = measure_batch.n_parallel

    def next_batch(self, batch_size: int) -> List[ConfigEntity]:
        out = [i for i in self._first if i not in self.visited][:batch_size]
        self._first = []
        while len(out) < batch_size and len(self.visited) + len(out) < len(self.space):
            idx = None
            while self.trial_pt < len(self.trials):
                cand = self.trials[self.trial_pt]
                self.trial_pt += 1
                if cand not in self.visited and cand not in out:
                    idx = cand
                    break
            if idx is None or (self.trials and self.rng.random() < self.eps_greedy):
                r = self._random_unvisited(1, out)
                if not r:
                    break
                idx = r[0] if idx is None else idx if self.rng.random() < 0.5 else r[0]
            out.append(idx)
        return [self.space.get(i) for i in out]

    @property
    def cost_model(self) -> XGBoostCostModel:
        """The model (classic name)."""
        return self.model

    def load_history(self, data_set, min_seed_records: int = 500) -> int:
        """Take earlier records as measured (:meth:`Tuner.load_history`); with at least
        ``min_seed_records`` of this task, also train a base model on them that the cost
        model starts from (classic transfer learning)."""
        data_set = list(data_set)
        n = super().load_history(data_set, min_seed_records)
        base = self.model.spawn_base_model()
        if base.fit_log(data_set, self.plan_size, min_seed_records):
            self.model.load_basemodel(base)
        return n

    def update(self, inputs, results) -> None:
        for inp, res in zip(inputs, results):
            idx = inp.config.index
            self.visited.add(idx)
            flops = inp.task.flop / float(np.mean(res.costs)) if res.error_no == 0 else 0.0
            self.xs.append(idx)
            self.ys.append(flops)
        builder = self.features.builder
        if builder is not None:
            fc = getattr(builder, "feature_cache", None)
            if fc:
                for i, f in fc.items():
                    self.features.add(i, f)
                fc.clear()
        self.n_since_train += len(inputs)
        every = self.retrain_every or max(8, getattr(self, "_batch", 1))
        # records loaded (load_history) before tune gave the loop-nest features a builder
        # wait for the first update inside tune
        can_featurize = self.features.feature_type == "knob" or builder is not None
        if self.n_since_train >= every and len(self.xs) >= 4 and max(self.ys) > 0 and \
                can_featurize:
            t0 = time.perf_counter()
            f0 = self.features.seconds
            self.model.fit(self.xs, self.ys)
            self.trials = self.optimizer.find_maximums(self.model, self.plan_size,
                                                       self.visited | set(self.xs))
            self.trial_pt = 0
            self.n_since_train = 0
            self.train_ct += 1
            self.stats["trains"] += 1
            self.stats["features_s"] += self.features.seconds - f0
            self.stats["model_s"] += time.perf_counter() - t0 - (self.features.seconds - f0)
