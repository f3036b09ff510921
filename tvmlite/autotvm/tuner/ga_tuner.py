"""A genetic-algorithm tuner: genes are knob choices."""
from __future__ import annotations

from typing import List

import numpy as np

from ..space import ConfigEntity
from .tuner import Tuner


class GATuner(Tuner):
    """Evolve a population of ``pop_size`` configs: keep ``elite_num`` best, breed the rest
    by uniform crossover of fitness-weighted parents, mutate each knob with
    ``mutation_prob``."""

    def __init__(self, task, pop_size: int = 100, elite_num: int = 3,
                 mutation_prob: float = 0.1, seed=None):
        super().__init__(task)
        if pop_size < 1 or not 0 <= elite_num <= pop_size:
            raise ValueError("GATuner: need pop_size >= 1 and 0 <= elite_num <= pop_size")
        self.rng = np.random.default_rng(seed)
        self.dims = self.space.dims
        self.pop_size = min(pop_size, len(self.space))
        self.elite_num = min(elite_num, self.pop_size)
        self.mutation_prob = mutation_prob
        self.scores = {}  # index -> flops
        # as in classic AutoTVM, ``visited`` holds every config proposed (a gene), measured
        # or not; ``scores`` holds the measured ones
        self.genes: List[int] = self._random_unvisited(self.pop_size)
        self.visited.update(self.genes)
        self.trial_pt = 0

    def has_next(self) -> bool:
        return len(self.scores) < len(self.space)

    def next_batch(self, batch_size: int) -> List[ConfigEntity]:
        out = []
        while len(out) < batch_size and len(self.scores) + len(out) < len(self.space):
            if self.trial_pt >= len(self.genes):
                self._evolve()
                if not self.genes:
                    break
            idx = self.genes[self.trial_pt]
            self.trial_pt += 1
            if idx in self.scores or any(c.index == idx for c in out):
                continue
            out.append(self.space.get(idx))
        return out

    def update(self, inputs, results) -> None:
        for inp, res in zip(inputs, results):
            flops = inp.task.flop / float(np.mean(res.costs)) if res.error_no == 0 else 0.0
            self.scores[inp.config.index] = flops

    def _evolve(self) -> None:
        pool = sorted(self.scores.items(), key=lambda kv: -kv[1])[: self.pop_size]
        if not pool:
            self.genes, self.trial_pt = self._random_unvisited(self.pop_size), 0
            self.visited.update(self.genes)
            return
        idxs = [i for i, _ in pool]
        fit = np.array([s for _, s in pool], dtype="float64")
        probs = fit / fit.sum() if fit.sum() > 0 else np.full(len(fit), 1.0 / len(fit))
        elites = idxs[: self.elite_num]
        new: List[int] = []
        seen = set()
        tries = 0
        while len(new) < self.pop_size and tries < 50 * self.pop_size:
            tries += 1
            a, b = self.rng.choice(len(idxs), size=2, p=probs)
            ga = self.space.knob_indices(idxs[a])
            gb = self.space.knob_indices(idxs[b])
            child = [x if self.rng.random() < 0.5 else y for x, y in zip(ga, gb)]
            for d, n in enumerate(self.dims):
                if self.rng.random() < self.mutation_prob:
                    child[d] = int(self.rng.integers(n))
            c = self.space.index_of(child)
            if c not in self.visited and c not in seen and self.space.is_index_valid(c):
                seen.add(c)
                new.append(c)
        if len(new) < self.pop_size:
            new += self._random_unvisited(self.pop_size - len(new), seen)
        self.genes = [e for e in elites if e not in self.scores] + new
        self.visited.update(new)
        self.trial_pt = 0
