"""Random elementwise expressions and their numpy counterparts: arithmetic, min/max,
comparisons, ``if_then_else`` guarding shifted loads, floordiv/floormod, casts.

The one expression generator of the test suite (``tests/test_random_expressions.py`` and the
schedule fuzzer's ``ewise`` programs both draw from it).
"""
from __future__ import annotations

import random
from typing import Callable, Tuple

import numpy as np

import tvmlite as tvm
from tvmlite import te


def _shifted(a: np.ndarray, d: int) -> np.ndarray:
    """``a`` shifted by ``d`` along its last axis, zero where the source is outside."""
    out = np.zeros_like(a)
    n = a.shape[-1]
    src = np.arange(n) + d
    ok = (src >= 0) & (src < n)
    out[..., ok] = a[..., src[ok]]
    return out


def random_expr(rng: random.Random, load_a: Callable, load_b: Callable, i, n: int, dtype: str,
                depth: int) -> Tuple[object, Callable]:
    """A random expression of ``dtype`` and ``f(a, b, ix)`` computing it with numpy.

    ``load_a()`` is ``A`` at the current point, ``load_a(d)`` the neighbour ``d`` steps along
    the last axis (index ``i``, extent ``n``) or 0 outside it; ``load_b()`` is ``B`` there.
    """
    if depth == 0 or rng.random() < 0.25:
        kind = rng.choice(["a", "b", "shift", "const", "idx"])
        if kind == "a":
            return load_a(), lambda a, b, ix: a
        if kind == "b":
            return load_b(), lambda a, b, ix: b
        if kind == "shift":  # a guarded load of a neighbour
            d = rng.choice([-3, -1, 1, 2])
            return load_a(d), lambda a, b, ix, d=d: _shifted(a, d)
        if kind == "const":
            c = rng.randint(-3, 3)
            return tvm.tir.const(c, dtype), lambda a, b, ix, c=c: np.full_like(a, c)
        return (i % 7).astype(dtype), lambda a, b, ix: (ix % 7).astype(dtype)
    op = rng.choice(["+", "-", "*", "max", "min", "select", "cast"] +
                    (["//", "%"] if "int" in dtype else []))
    x, fx = random_expr(rng, load_a, load_b, i, n, dtype, depth - 1)
    y, fy = random_expr(rng, load_a, load_b, i, n, dtype, depth - 1)
    if op == "+":
        return x + y, lambda a, b, ix: fx(a, b, ix) + fy(a, b, ix)
    if op == "-":
        return x - y, lambda a, b, ix: fx(a, b, ix) - fy(a, b, ix)
    if op == "*":
        return x * y, lambda a, b, ix: fx(a, b, ix) * fy(a, b, ix)
    if op == "max":
        return te.max(x, y), lambda a, b, ix: np.maximum(fx(a, b, ix), fy(a, b, ix))
    if op == "min":
        return te.min(x, y), lambda a, b, ix: np.minimum(fx(a, b, ix), fy(a, b, ix))
    if op == "select":
        return te.if_then_else(x < y, x, y * 2), lambda a, b, ix: np.where(
            fx(a, b, ix) < fy(a, b, ix), fx(a, b, ix), fy(a, b, ix) * 2)
    if op == "cast":
        other = "float64" if "float" in dtype else "int64"
        return (x.astype(other) + y.astype(other)).astype(dtype), \
            lambda a, b, ix: (fx(a, b, ix).astype(other) + fy(a, b, ix).astype(other)
                              ).astype(dtype)
    d = rng.choice([2, 3, 5])
    if op == "//":
        return x // d + y, lambda a, b, ix: fx(a, b, ix) // d + fy(a, b, ix)
    return x % d + y, lambda a, b, ix: fx(a, b, ix) % d + fy(a, b, ix)


def guarded_loader(A, prefix: tuple, i, n: int, dtype: str) -> Callable:
    """``load_a`` for :func:`random_expr` over tensor ``A`` indexed ``prefix + (i,)``."""

    def load(d: int = 0):
        if d == 0:
            return A[prefix + (i,)]
        cond = te.all(i + d >= 0, i + d < n)
        return te.if_then_else(cond, A[prefix + (i + d,)], tvm.tir.const(0, dtype))

    return load
