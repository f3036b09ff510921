"""Features of a lowered loop nest for the cost model (the ``itervar`` feature type).

The hot store (the one executed most often) stands for the kernel: for each of its enclosing
loops, innermost last, the loop's extent, kind (serial/parallel/vector/unrolled), the product
of the extents inside it, and, for each buffer the statement touches, the stride of its index
along that loop. A few global figures follow (total iterations, loop and store counts, local
allocation size, the parallel extent). The vector has a fixed length for every config of a
template, so a model can compare them.
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence, Tuple

from ..arith.linear import linear_form
from ..tir import expr as E
from ..tir import stmt as S
from ..tir.functor import post_order_visit
from .feature_touch import (  # noqa: F401  (classic autotvm.feature API)
    ana_lower,
    flatten_itervar_feature,
    get_buffer_curve_sample_flatten,
    get_flatten_name,
    get_itervar_feature,
    get_itervar_feature_flatten,
)

MAX_LOOPS = 8
MAX_BUFFERS = 4
_PER_LOOP = 7 + 2 * MAX_BUFFERS
N_GLOBAL = 8
FEATURE_LEN = MAX_LOOPS * _PER_LOOP + N_GLOBAL


def _log(x: float) -> float:
    return math.log2(1.0 + abs(x))


def _const(e) -> Optional[int]:
    return int(e.value) if isinstance(e, E.IntImm) else None


def _coef(e, v) -> Optional[int]:
    """The coefficient of ``v`` in a linear index (None when not linear in ``v``)."""
    return linear_form(e, look_through=True).coeff_of(v)


class _Walker:
    def __init__(self):
        self.loops: List[S.For] = []
        self.best: Optional[Tuple[float, List[S.For], S.BufferStore]] = None
        self.n_loops = 0
        self.n_stores = 0
        self.alloc_bytes = 0
        self.parallel = 1

    def visit(self, s) -> None:
        if isinstance(s, S.For):
            self.n_loops += 1
            ext = _const(s.extent) or 1
            if s.kind == S.ForKind.PARALLEL:
                self.parallel = max(self.parallel, ext)
            self.loops.append(s)
            self.visit(s.body)
            self.loops.pop()
        elif isinstance(s, S.SeqStmt):
            for x in s.seq:
                self.visit(x)
        elif isinstance(s, S.BufferStore):
            self.n_stores += 1
            weight = math.prod(_const(f.extent) or 1 for f in self.loops)
            if self.best is None or weight > self.best[0]:
                self.best = (weight, list(self.loops), s)
        elif isinstance(s, S.IfThenElse):
            self.visit(s.then_case)
            if s.else_case is not None:
                self.visit(s.else_case)
        elif isinstance(s, S.Allocate):
            ext = math.prod(_const(x) or 1 for x in s.extents)
            self.alloc_bytes += ext * 4
            self.visit(s.body)
        else:
            body = getattr(s, "body", None)
            if isinstance(body, S.Stmt):
                self.visit(body)


def _accesses(store: S.BufferStore) -> List[Tuple[str, Sequence]]:
    out: Dict[str, Sequence] = {store.buffer.name: store.indices}

    def f(x):
        if isinstance(x, E.BufferLoad) and x.buffer.name not in out:
            out[x.buffer.name] = x.indices

    post_order_visit(store.value, f)
    return sorted(out.items())[:MAX_BUFFERS]


def loop_nest_features(func) -> List[float]:
    """The feature vector of a lowered PrimFunc (or an IRModule holding one)."""
    if hasattr(func, "functions"):
        func = next(iter(func.functions.values()))
    w = _Walker()
    w.visit(func.body)
    feats = [0.0] * FEATURE_LEN
    if w.best is None:
        return feats
    weight, loops, store = w.best
    loops = loops[-MAX_LOOPS:]
    acc = _accesses(store)
    base = (MAX_LOOPS - len(loops)) * _PER_LOOP
    inner_prod = 1
    rows = []
    for f in reversed(loops):
        ext = _const(f.extent) or 1
        inner_prod *= ext
        row = [_log(ext), float(f.kind == S.ForKind.SERIAL), float(f.kind == S.ForKind.PARALLEL),
               float(f.kind == S.ForKind.VECTORIZED), float(f.kind == S.ForKind.UNROLLED),
               _log(inner_prod), float(ext == 1)]
        for _, indices in acc:
            c = _coef(indices[-1], f.loop_var) if indices else 0
            row += [_log(c) if c is not None else 8.0, float(c == 0)]
        row += [0.0] * (_PER_LOOP - len(row))
        rows.append(row)
    for i, row in enumerate(reversed(rows)):
        feats[base + i * _PER_LOOP: base + (i + 1) * _PER_LOOP] = row
    g = MAX_LOOPS * _PER_LOOP
    feats[g:] = [_log(weight), float(len(loops)), float(w.n_loops), float(w.n_stores),
                 _log(w.alloc_bytes), _log(w.parallel),
                 float(any(f.kind == S.ForKind.VECTORIZED for f in loops)),
                 float(store.value.dtype.count("x") > 0 if hasattr(store.value, "dtype") else 0)]
    return feats
