"""Sampling primitives: ``sample_categorical``, ``sample_perfect_tile``,
``sample_compute_location``.

They change no IR: each draws a decision from the schedule's random state (or takes the
decision a trace recorded, so that a replay chooses the same) and returns it. The decision is
what the trace keeps; the values reach the IR through the primitives they are passed to
(``split`` factors, ``compute_at`` locations).
"""
from __future__ import annotations

import random
from typing import List, Optional, Sequence, Tuple

from ..expr import IntImm, IterVarType, Var
from ..functor import collect_vars
from ..stmt import For
from .compute_inline import compute_inline
from .error import ScheduleError, fail
from .state import BlockRV, LoopRV, ScheduleState, child_blocks, const_value, loops_above

# the locations sample_compute_location may return besides a loop (classic's root and inline
# marks); compute_at accepts them.
COMPUTE_ROOT = LoopRV(Var("compute_root", "int32"))
COMPUTE_INLINE = LoopRV(Var("compute_inline", "int32"))

_INTERNED: dict = {}


def decision_int(v: int) -> IntImm:
    """The decision ``v`` as an ``IntImm``, one object per value so that equal decisions are
    the same dict key."""
    return _INTERNED.setdefault(int(v), IntImm("int64", int(v)))


class RandomState:
    """The schedule's random state: the minimal-standard linear congruential generator
    classic TVM uses, drawn from the way classic's C++ library draws integers, so a seed
    gives the same sampled integers as in classic TVM."""

    _MOD, _MUL = 2147483647, 48271

    def __init__(self, seed: int):
        seed %= self._MOD
        self.state = seed or 1

    def _next(self) -> int:
        self.state = self.state * self._MUL % self._MOD
        return self.state

    def randrange(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 1:
            return 0
        scaling = (self._MOD - 1) // n  # the generator's values are 1 .. MOD-1
        past = n * scaling
        while True:
            r = self._next()
            if r < past:
                return r // scaling

    def random(self) -> float:
        """A uniform float in ``[0, 1)``."""
        hi, lo = self._next() - 1, self._next() - 1
        return (hi * (self._MOD - 1) + lo) / float((self._MOD - 1) ** 2)

    def choice(self, seq: Sequence):
        """A uniform element of ``seq``."""
        return seq[self.randrange(len(seq))]

    def fork_seed(self) -> int:
        """A new seed drawn from this state, for an independent one (classic's ForkSeed)."""
        return self._next() * 32767 % 1999999973


def new_rng(seed: Optional[int]) -> RandomState:
    """The random state of a schedule created with ``seed`` (None or -1: nondeterministic)."""
    if seed is None or seed == -1:
        return RandomState(random.SystemRandom().randrange(1, RandomState._MOD))
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"Schedule: seed must be a non-negative int or -1, got {seed!r}")
    return RandomState(seed)


def fork_seed(rng: RandomState) -> int:
    """A new seed drawn from ``rng``, for an independent random state."""
    return rng.fork_seed()


def sample_categorical(rng: RandomState, candidates: Sequence[int], probs: Sequence[float],
                       decision: Optional[int] = None) -> Tuple[int, int]:
    """Pick one of ``candidates`` with the given probabilities.

    Returns ``(value, decision)``; the decision is the index of the value in ``candidates``.

    Before/after: the IR is unchanged; ``v = sample_categorical([1, 4, 16], [0.5, 0.25,
    0.25])`` makes ``sch.get(v)`` 1 half of the time, 4 or 16 a quarter each.
    """
    prim = "sample_categorical"
    cands = [_as_int(prim, c) for c in candidates]
    weights = [_as_float(prim, p) for p in probs]
    if not cands or len(cands) != len(weights):
        raise fail(prim, "candidates", f"{len(cands)} candidates and {len(weights)} "
                   "probabilities: they must be as many, and at least one")
    if any(w < 0 for w in weights) or sum(weights) <= 0:
        raise fail(prim, "probs", "probabilities must be non-negative with a positive sum")
    if decision is None:
        total, x, idx = sum(weights), 0.0, len(cands) - 1
        u = rng.random() * total
        for k, w in enumerate(weights):
            x += w
            if u < x:
                idx = k
                break
    else:
        idx = _as_int(prim, decision)
        if not 0 <= idx < len(cands):
            raise fail(prim, f"decision {idx}", f"out of range for {len(cands)} candidates")
    return cands[idx], idx


def sample_perfect_tile(state: ScheduleState, rng: RandomState, loop_rv: LoopRV, n: int,
                        max_innermost_factor: int = 16,
                        decision: Optional[Sequence[int]] = None) -> List[int]:
    """``n`` factors whose product is the loop's constant extent, the innermost at most
    ``max_innermost_factor`` (-1 or 0: no limit).

    Before/after: the IR is unchanged; for ``for i in range(12)``,
    ``sample_perfect_tile(i, n=3)`` gives e.g. ``[3, 1, 4]``, to pass to ``split``.
    """
    prim = "sample_perfect_tile"
    loop: For = state.loop_path(loop_rv, prim)[-1]
    what = f'loop "{loop.loop_var.name}"'
    extent = const_value(loop.extent)
    if extent is None or extent < 1:
        raise fail(prim, what, "the loop's extent must be a positive constant")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise fail(prim, what, f"n must be a positive int, got {n!r}")
    limit = extent if max_innermost_factor in (None, -1, 0) else int(max_innermost_factor)
    if limit < 1:
        raise fail(prim, what, f"max_innermost_factor must be positive or -1, got "
                   f"{max_innermost_factor!r}")
    if decision is not None:
        factors = [_as_int(prim, f) for f in decision]
        prod = 1
        for f in factors:
            prod *= f
        if len(factors) != n or prod != extent or min(factors) < 1:
            raise fail(prim, what, f"decision {factors} is not {n} positive factors of the "
                       f"extent {extent}")
        return factors
    inner = rng.choice([d for d in range(1, min(limit, extent) + 1) if extent % d == 0])
    factors = [1] * n
    factors[-1] = inner
    rest = extent // inner
    if n == 1:
        factors[0] *= rest
        return factors
    p = 2
    while rest > 1:  # each prime factor goes to one of the outer positions
        if p * p > rest:
            p = rest
        while rest % p == 0:
            factors[rng.randrange(n - 1)] *= p
            rest //= p
        p += 1
    return factors


def sample_compute_location(state: ScheduleState, rng: RandomState, block_rv: BlockRV,
                            consumer_paths: Sequence[list],
                            decision: Optional[int] = None) -> Tuple[LoopRV, int]:
    """Pick where ``block`` could be computed: inlined (decision -2, where it can be), at the
    root (-1), or under the ``k``-th loop above its first consumer (decision ``k``).

    The loops offered are classic TVM's: those above every consumer, not of extent 1, and
    neither a data-parallel loop after a reduction loop nor a reduction loop after the last
    data-parallel one.

    Before/after: the IR is unchanged; the returned loop goes to ``compute_at``, which also
    takes the root and inline marks.
    """
    prim = "sample_compute_location"
    state.block_path(block_rv, prim)
    locations: List[Tuple[int, LoopRV]] = []
    try:
        compute_inline(state.copy(), block_rv)
        locations.append((-2, COMPUTE_INLINE))
    except ScheduleError:
        pass
    locations.append((-1, COMPUTE_ROOT))
    if consumer_paths:
        loops = loops_above(consumer_paths[0])
        common = [lp for lp in loops if all(any(s is lp for s in p) for p in consumer_paths)]
        n_cand = len(common) if common and common[-1] is loops[len(common) - 1] else 0
        kinds = [_is_data_parallel(lp) for lp in loops[:n_cand]]
        last_dp = max((i for i, dp in enumerate(kinds) if dp), default=-1)
        seen_reduce = False
        for i in range(n_cand):
            if const_value(loops[i].extent) == 1:
                continue
            if kinds[i] and seen_reduce:
                break
            if not kinds[i]:
                seen_reduce = True
                if i > last_dp:
                    break
            locations.append((i, LoopRV(loops[i].loop_var, block_rv.func_name)))
    if decision is None:
        k, rv = locations[rng.randrange(len(locations))]
        return rv, k
    want = _as_int(prim, decision)
    # a recorded decision no longer offered falls back to the nearest one before it
    before = [(k, rv) for k, rv in locations if k <= want]
    k, rv = before[-1] if before else (-1, COMPUTE_ROOT)
    return rv, k


def _is_data_parallel(loop: For) -> bool:
    var = loop.loop_var
    for r in _all_blocks(loop):
        for iv, v in zip(r.block.iter_vars, r.iter_values):
            if iv.iter_type != IterVarType.DataPar and var in collect_vars(v):
                return False
    return True


def _all_blocks(s) -> list:
    out, stack = [], child_blocks(s)
    while stack:
        r = stack.pop()
        out.append(r)
        stack.extend(child_blocks(r))
    return out


def _as_int(prim: str, x) -> int:
    if isinstance(x, IntImm):
        return x.value
    if isinstance(x, bool) or not isinstance(x, int):
        raise fail(prim, repr(x), "expected an integer")
    return x


def _as_float(prim: str, x) -> float:
    v = getattr(x, "value", x)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise fail(prim, repr(x), "expected a number")
    return float(v)
