"""AlterOpLayout's choice of tuned configs over a whole function: among the logged records of
every packed convolution, the ones whose channel blocks let neighbouring layers agree.

A tuning log holds many configs per convolution. The fastest alone picks its blocks
(``tile_ic``, ``tile_oc``) without regard to its neighbours, and every disagreement costs a
layout transform between the layers (issue 16: MobileNetV2 tuned with 24 trials per layer ran
39 transforms instead of 2 and 1.2x slower than its untuned build). As classic TVM's graph
tuner does, the choice minimises the kernels' logged times plus the modelled times of the
transforms their blocks imply. Each value's transforms depend on the labels (the chosen
candidates) of the few convolutions that set its block and the blocks its consumers need,
so the sum is one of small tables over a few variables each, minimised exactly by variable
elimination (bucket elimination, the smallest new table first).
"""
from __future__ import annotations

import itertools
import math
from typing import Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ...topi.x86.injective import vector_width

#: seconds per element of a one-thread layout transform whose stores are whole vectors, read
#: from NCHW or gathered across source blocks (ResNet and MobileNet shapes, Zen 4; a
#: contiguous block-to-block copy costs a quarter of it, see :func:`transform_seconds`)
SECONDS_PER_ELEMENT = 0.65e-9
#: a value's transforms as one table while it depends on at most this many convolutions
#: (beyond: one table per consumer, which counts a transform two consumers share twice)
MAX_TABLE_VARS = 3
#: the largest table the elimination builds; beyond, coordinate descent
MAX_TABLE = 1 << 22

Labels = Mapping[int, int]  # variable (a convolution's index) -> its label (candidate index)


class Block(NamedTuple):
    """The channel block of a packed value (None: plain NCHW) as a function ``at`` of the
    labels of the variables ``vars``."""

    vars: Tuple[int, ...]
    at: Callable[[Labels], Optional[int]]


NCHW = Block((), lambda labels: None)


def fixed(block: Optional[int]) -> Block:
    """A block no label changes."""
    return Block((), lambda labels: block)


class Value(NamedTuple):
    """A non-constant value: its element count, the block it is produced in, the blocks its
    consumers read it in, and its (NCHW) shape."""

    numel: int
    produced: Block
    needs: List[Block]
    shape: Tuple[int, ...] = ()


#: the seconds of re-laying a value from one block to another (None: NCHW)
TransformCost = Callable[[Value, Optional[int], Optional[int]], float]


def transform_seconds(numel: int, src: Optional[int], dst: Optional[int], lanes: int,
                      threads: int) -> float:
    """Modelled time of re-laying ``numel`` floats from ``NCHW{src}c`` to ``NCHW{dst}c``
    (None: NCHW), as AlterOpLayout emits it (through NCHW; the two transforms fuse) and the
    x86 injective schedule vectorizes it (the inner axis, the block, by
    :func:`~tvmlite.topi.x86.injective.vector_width`; without one, the flattened nest).

    Measured on one thread, Zen 4 (ns per element): a block-to-block copy whose
    register-wide parts each lie in one source block, 0.05-0.08; other stores of 8 or more
    lanes 0.24-0.8; short vectors of a whole block of 4 or 2 lanes 0.8-1.2 and 1.7-3.5;
    blocks of 1, flattened, 6-20; vectors that straddle the source's blocks (16 from 24 or
    72), gathered lane by lane, 2.5."""
    if src == dst:
        return 0.0
    t = SECONDS_PER_ELEMENT
    width = vector_width(dst, lanes) if dst is not None else None
    if src is not None and width is not None and src % min(width, lanes) == 0:
        # a contiguous copy: the x86 injective schedule keeps the row loop and the vectorizer
        # re-derives contiguous parts
        return numel * t * 0.25 / threads
    if dst is not None:
        if width is None:
            t *= 12.0
        else:
            t *= max(1.0, 8 / width)
            if src is not None and src > 1 and dst % src and src % width:
                t *= 4.0
    return numel * t / threads


def choose(kernel_seconds: Sequence[Sequence[float]], values: Sequence[Value], lanes: int,
           threads: int, transform_cost: Optional[TransformCost] = None) -> List[int]:
    """The label of each variable minimising its kernel's seconds (``kernel_seconds[v]``, one
    per label) plus the transforms of ``values``: their measured seconds by
    ``transform_cost`` (the graph tuner's), else :func:`transform_seconds`."""
    if transform_cost is None:
        def transform_cost(val: Value, src: Optional[int], dst: Optional[int]) -> float:
            return transform_seconds(val.numel, src, dst, lanes, threads)
    sizes = [len(k) for k in kernel_seconds]
    factors: List[Tuple[Tuple[int, ...], np.ndarray]] = [
        ((v,), np.asarray(k, dtype="float64")) for v, k in enumerate(kernel_seconds)
        if len(k) > 1]
    for val in values:
        groups = [val.needs]
        scope = set(val.produced.vars).union(*(b.vars for b in val.needs))
        if len(scope) > MAX_TABLE_VARS:
            groups = [[b] for b in val.needs]
        for needs in groups:
            f = _transform_table(val, needs, sizes, transform_cost)
            if f is not None:
                factors.append(f)
    return minimize(sizes, factors)


def _transform_table(val: Value, needs: Sequence[Block], sizes: Sequence[int],
                     cost: TransformCost) -> Optional[Tuple[Tuple[int, ...], np.ndarray]]:
    """The seconds of the transforms ``needs`` ask of ``val`` (one per distinct block) as a
    table over the labels of the variables involved; None when it is zero throughout."""
    scope = tuple(sorted(set(val.produced.vars).union(*(b.vars for b in needs))))
    table = np.zeros([sizes[v] for v in scope])
    for point in itertools.product(*(range(sizes[v]) for v in scope)):
        labels = dict(zip(scope, point))
        src = val.produced.at(labels)
        dsts = {b.at(labels) for b in needs} - {src}
        table[point] = sum(cost(val, src, d) for d in dsts)
    if not table.any():
        return None
    return scope, table


def minimize(sizes: Sequence[int], factors: Sequence[Tuple[Tuple[int, ...], np.ndarray]]
             ) -> List[int]:
    """The labels minimising the sum of ``factors``, each a table over the labels of its
    variables (a sorted tuple; axis ``i`` for variable ``vars[i]``): exact by variable
    elimination, or by coordinate descent where a table would exceed ``MAX_TABLE``."""
    pending = [(tuple(vs), np.asarray(t, dtype="float64")) for vs, t in factors]
    left = set(range(len(sizes)))
    steps: List[Tuple[int, Tuple[int, ...], np.ndarray]] = []
    while left:
        scopes: Dict[int, set] = {v: set() for v in left}
        for vs, _ in pending:
            for v in vs:
                scopes[v].update(vs)
        v = min(left, key=lambda u: (math.prod(sizes[w] for w in scopes[u]), u))
        full = tuple(sorted(scopes[v] | {v}))
        if math.prod(sizes[w] for w in full) > MAX_TABLE:
            return _descend(sizes, factors)
        total = np.zeros([sizes[w] for w in full])
        keep = []
        for vs, t in pending:
            if v in vs:
                total = total + t.reshape([sizes[w] if w in vs else 1 for w in full])
            else:
                keep.append((vs, t))
        axis = full.index(v)
        rest = full[:axis] + full[axis + 1:]
        steps.append((v, rest, total.argmin(axis=axis)))
        pending = keep + [(rest, total.min(axis=axis))]
        left.remove(v)
    labels = [0] * len(sizes)
    for v, rest, arg in reversed(steps):
        labels[v] = int(arg[tuple(labels[w] for w in rest)])
    return labels


def _descend(sizes: Sequence[int], factors: Sequence[Tuple[Tuple[int, ...], np.ndarray]]
             ) -> List[int]:
    """Coordinate descent from label 0 everywhere: each variable in turn takes its best label
    given the others, until none changes."""
    labels = [0] * len(sizes)
    touching: Dict[int, list] = {v: [] for v in range(len(sizes))}
    for vs, t in factors:
        for v in vs:
            touching[v].append((vs, np.asarray(t)))
    for _ in range(100):
        changed = False
        for v in range(len(sizes)):
            cost = np.zeros(sizes[v])
            for vs, t in touching[v]:
                idx = tuple(slice(None) if w == v else labels[w] for w in vs)
                cost += t[idx]
            best = int(cost.argmin())
            if cost[best] < cost[labels[v]]:
                labels[v], changed = best, True
        if not changed:
            break
    return labels
