"""Tuners that walk the space by index: random order and grid order."""
from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np

from ..space import ConfigEntity
from .tuner import Tuner


class IndexBaseTuner(Tuner):
    """Walk indices ``range_idx = (lo, hi)`` (inclusive) of the space in some order."""

    def __init__(self, task, range_idx: Optional[Sequence[int]] = None):
        super().__init__(task)
        n = len(self.space)
        lo, hi = (0, n - 1) if range_idx is None else (int(range_idx[0]), int(range_idx[1]))
        if not 0 <= lo <= hi < n:
            raise ValueError(f"range_idx {range_idx} is outside the space [0, {n - 1}]")
        self.range_lo, self.range_hi = lo, hi
        self.counter = 0

    def _order(self, k: int) -> int:
        raise NotImplementedError

    def has_next(self) -> bool:
        n = self.range_hi - self.range_lo + 1
        return self.counter < n and len(self.visited) < len(self.space)

    def next_batch(self, batch_size: int) -> List[ConfigEntity]:
        out = []
        n = self.range_hi - self.range_lo + 1
        while len(out) < batch_size and self.counter < n:
            idx = self._order(self.counter)
            self.counter += 1
            if idx not in self.visited:
                out.append(self.space.get(idx))
        return out


class GridSearchTuner(IndexBaseTuner):
    """Measure configs in index order."""

    def _order(self, k: int) -> int:
        return self.range_lo + k


class RandomTuner(IndexBaseTuner):
    """Measure configs in a random order, each once."""

    def __init__(self, task, range_idx: Optional[Sequence[int]] = None, seed=None):
        super().__init__(task, range_idx)
        self.rng = np.random.default_rng(seed)
        n = self.range_hi - self.range_lo + 1
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
            return self.range_lo + int(self.perm[k])
        return self.range_lo + (k * self.mul + self.off) % self.n
