"""Tuners that walk the space by index: random order and grid order."""
from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np

from ..space import ConfigEntity
from .tuner import Tuner


class IndexBaseTuner(Tuner):
    """Walk the valid indices of ``range_idx = (lo, hi)`` (inclusive) of the space in some
    order; ``begin_idx``/``end_idx`` bound it (end exclusive) and ``visited_max`` counts the
    indices a ``multi_filter`` leaves in it."""

    def __init__(self, task, range_idx: Optional[Sequence[int]] = None):
        super().__init__(task)
        n = self.space.range_length
        lo, hi = (0, n - 1) if range_idx is None else (int(range_idx[0]), int(range_idx[1]))
        if not 0 <= lo <= hi < n:
            raise ValueError(f"range_idx {range_idx} is outside the space [0, {n - 1}]")
        self.begin_idx, self.end_idx = lo, hi + 1
        self.range_length = self.end_idx - self.begin_idx
        self.visited_max = self.space.subrange_length(self.begin_idx, self.end_idx)
        self.counter = 0

    def _order(self, k: int) -> int:
        raise NotImplementedError

    def has_next(self) -> bool:
        return len(self.visited) < self.visited_max and self.counter < self.range_length

    def next_batch(self, batch_size: int) -> List[ConfigEntity]:
        out = []
        while len(out) < batch_size and self.counter < self.range_length:
            idx = self._order(self.counter)
            self.counter += 1
            if idx not in self.visited and self.space.is_index_valid(idx):
                out.append(self.space.get(idx))
        return out


class GridSearchTuner(IndexBaseTuner):
    """Measure configs in index order."""

    def _order(self, k: int) -> int:
        return self.begin_idx + k

    @property
    def index(self) -> int:
        """The next index the grid search measures (the first valid one from the counter)."""
        nxt = self.begin_idx + self.counter
        if self.space.is_index_valid(nxt):
            return nxt
        found = self.space.get_next_index(nxt, start=self.begin_idx, end=self.end_idx)
        return self.end_idx if found is None else found


class RandomTuner(IndexBaseTuner):
    """Measure configs in a random order, each once."""

    def __init__(self, task, range_idx: Optional[Sequence[int]] = None, seed=None):
        super().__init__(task, range_idx)
        self.rng = np.random.default_rng(seed)
        n = self.range_length
        # a full permutation for spaces that fit; a lazy affine one beyond
        if n <= 1 << 22:
            self.perm = self.rng.permutation(n)
        else:
            self.perm = None
            self.mul = int(self.rng.integers(1, n))
            while np.gcd(self.mul, n) != 1:
                self.mul += 1
            self.off = int(self.rng.integers(0, n))
        self.n = n

    def _order(self, k: int) -> int:
        if self.perm is not None:
            return self.begin_idx + int(self.perm[k])
        return self.begin_idx + (k * self.mul + self.off) % self.n
