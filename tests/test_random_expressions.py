"""Random elementwise expressions (arithmetic, min/max, comparisons, if_then_else guarding
shifted loads, floordiv/floormod, casts) under random split/vectorize/parallel/unroll
schedules, built and compared with numpy. ``TVMLITE_RANDOM_CASES=N`` runs N cases."""
import os
import random

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te

N_CASES = int(os.environ.get("TVMLITE_RANDOM_CASES", "24"))


def _expr(rng, A, B, i, n, dtype, depth):
    """A random expression and its numpy counterpart (a function of a, b and the index)."""
    if depth == 0 or rng.random() < 0.25:
        kind = rng.choice(["a", "b", "shift", "const", "idx"])
        if kind == "a":
            return A[i], lambda a, b, ix: a
        if kind == "b":
            return B[i], lambda a, b, ix: b
        if kind == "shift":  # a guarded load of a neighbour
            d = rng.choice([-3, -1, 1, 2])
            cond = te.all(i + d >= 0, i + d < n)
            e = te.if_then_else(cond, A[i + d], tvm.tir.const(0, dtype))

            def f(a, b, ix, d=d):
                out = np.zeros_like(a)
                src = ix + d
                ok = (src >= 0) & (src < n)
                out[ok] = a[src[ok]]
                return out

            return e, f
        if kind == "const":
            c = rng.randint(-3, 3)
            return tvm.tir.const(c, dtype), lambda a, b, ix, c=c: np.full_like(a, c)
        return (i % 7).astype(dtype), lambda a, b, ix: (ix % 7).astype(dtype)
    op = rng.choice(["+", "-", "*", "max", "min", "select", "cast"] +
                    (["//", "%"] if "int" in dtype else []))
    x, fx = _expr(rng, A, B, i, n, dtype, depth - 1)
    y, fy = _expr(rng, A, B, i, n, dtype, depth - 1)
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


@pytest.mark.parametrize("case", range(N_CASES))
def test_random_expression(case):
    rng = random.Random(7000 + case)
    dtype = rng.choice(["float32", "float64", "int32", "int64"])
    n = rng.randint(1, 70)
    A = te.placeholder((n,), name="A", dtype=dtype)
    B = te.placeholder((n,), name="B", dtype=dtype)
    holder = {}

    def body(i):
        e, f = _expr(rng, A, B, i, n, dtype, rng.randint(1, 4))
        holder["f"] = f
        return e

    C = te.compute((n,), body, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=rng.choice([1, 3, 4, 8, 16, 41]))
    if rng.random() < 0.7:
        s[C].vectorize(xi)
    elif rng.random() < 0.5:
        s[C].unroll(xi)
    if rng.random() < 0.5:
        s[C].parallel(xo)
    f = tvm.build(s, [A, B, C])
    np_rng = np.random.default_rng(case)
    if "int" in dtype:
        a, b = (np_rng.integers(-20, 20, n).astype(dtype) for _ in range(2))
    else:
        a, b = (np_rng.standard_normal(n).astype(dtype) for _ in range(2))
    c = tvm.nd.empty((n,), dtype)
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    with np.errstate(all="ignore"):
        want = holder["f"](a, b, np.arange(n)).astype(dtype)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-5, atol=1e-5,
                               err_msg=str(tvm.lower(s, [A, B, C])))
