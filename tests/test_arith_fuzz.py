"""Randomized differential tests of the simplifier and of interval evaluation.

Random integer expressions over a few bounded variables (+ - * // % truncdiv truncmod min max,
constants, comparisons, and/or/not, select) are evaluated by a tiny Python evaluator before and
after simplification at random points inside the bounds (and inside a random constraint); the
values must agree. ``eval_set`` must contain every sampled value. Set ``TVMLITE_ARITH_FUZZ`` to
run more cases (the suite runs a fast subset).
"""
import os
import random

import pytest

from tvmlite import tir
from tvmlite.arith import Analyzer, eval_set, is_neg_inf, is_pos_inf
from tvmlite.ir import Range, structural_equal
from tvmlite.tir import expr as E

N_CASES = int(os.environ.get("TVMLITE_ARITH_FUZZ", "300"))


class _Skip(Exception):
    pass


def _tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def evaluate(e, env):
    """Reference semantics: floor div/mod are Python's, Div/Mod truncate (C)."""
    t = type(e)
    if t is E.IntImm:
        return e.value
    if t is E.Var:
        return env[e]
    if t is E.Cast:
        return evaluate(e.value, env)
    if t in (E.And, E.Or):
        a = evaluate(e.a, env)
        b = evaluate(e.b, env)
        return int(bool(a) and bool(b)) if t is E.And else int(bool(a) or bool(b))
    if t is E.Not:
        return int(not evaluate(e.a, env))
    if t is E.Select:
        c = evaluate(e.condition, env)
        tv, fv = evaluate(e.true_value, env), evaluate(e.false_value, env)
        return tv if c else fv
    if t is E.Call and e.op == "if_then_else":
        return evaluate(e.args[1] if evaluate(e.args[0], env) else e.args[2], env)
    if t is E.Call and e.op == "likely":
        return evaluate(e.args[0], env)
    a, b = evaluate(e.a, env), evaluate(e.b, env)
    if t is E.Add:
        return a + b
    if t is E.Sub:
        return a - b
    if t is E.Mul:
        return a * b
    if t in (E.FloorDiv, E.FloorMod, E.Div, E.Mod) and b == 0:
        raise _Skip()
    if t is E.FloorDiv:
        return a // b
    if t is E.FloorMod:
        return a % b
    if t is E.Div:
        return _tdiv(a, b)
    if t is E.Mod:
        return a - b * _tdiv(a, b)
    if t is E.Min:
        return min(a, b)
    if t is E.Max:
        return max(a, b)
    cmp = {E.LT: a < b, E.LE: a <= b, E.GT: a > b, E.GE: a >= b, E.EQ: a == b, E.NE: a != b}
    return int(cmp[t])


def random_int_expr(rng, vs, depth):
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.65:
            return rng.choice(vs)
        return tir.const(rng.randint(-9, 12), "int32")
    k = rng.randrange(14)
    if k >= 12:  # split/fuse-like index patterns
        v1, v2 = rng.choice(vs), rng.choice(vs)
        inner = v1 * rng.choice([2, 4, 8, 16]) + v2 + rng.randint(-3, 9)
        d = rng.choice([2, 4, 8, 16, 32])
        return tir.floordiv(inner, d) if k == 12 else tir.floormod(inner, d) * rng.choice([1, 4])
    a = random_int_expr(rng, vs, depth - 1)
    if k < 3:
        return a + random_int_expr(rng, vs, depth - 1)
    if k < 4:
        return a - random_int_expr(rng, vs, depth - 1)
    if k < 6:
        c = rng.choice([2, 3, 4, 8, -1, -2]) if rng.random() < 0.7 else None
        return a * (c if c is not None else random_int_expr(rng, vs, 1))
    if k < 8:
        d = rng.choice([2, 3, 4, 8, 16, -3]) if rng.random() < 0.85 else \
            random_int_expr(rng, vs, 1)
        try:
            return tir.floordiv(a, d) if k == 6 else tir.floormod(a, d)
        except ZeroDivisionError:  # a constant-folded zero divisor: keep the raw node
            return E.FloorDiv(*_pair(a, d))
    if k < 9:
        d = rng.choice([2, 4, 5, -4])
        return tir.truncdiv(a, d) if rng.random() < 0.5 else tir.truncmod(a, d)
    if k < 10:
        b = random_int_expr(rng, vs, depth - 1)
        return E.Min(*_pair(a, b)) if rng.random() < 0.5 else E.Max(*_pair(a, b))
    if k < 11:
        b = random_int_expr(rng, vs, depth - 1)
        if rng.random() < 0.5:
            return tir.if_then_else(random_bool_expr(rng, vs, 1), a, b)
        return E.Select(random_bool_expr(rng, vs, 1), *_pair(a, b))
    return a + (rng.choice(vs) * 8 + rng.randint(0, 7))


def _pair(a, b):
    from tvmlite.tir.op import _operands

    return _operands(a, b)


def random_bool_expr(rng, vs, depth):
    if depth == 0 or rng.random() < 0.5:
        a, b = random_int_expr(rng, vs, 2), random_int_expr(rng, vs, 2)
        op = rng.choice(["lt", "le", "gt", "ge", "eq", "ne"])
        return getattr(tir.op, op)(a, b)
    k = rng.randrange(3)
    if k == 0:
        return tir.all(random_bool_expr(rng, vs, depth - 1), random_bool_expr(rng, vs, depth - 1))
    if k == 1:
        return tir.any(random_bool_expr(rng, vs, depth - 1), random_bool_expr(rng, vs, depth - 1))
    return E.Not(random_bool_expr(rng, vs, depth - 1))


def run_case(seed):
    rng = random.Random(seed)
    vs = [tir.Var(n, "int32") for n in "xyz"]
    bounds = {}
    ana = Analyzer()
    for v in vs:
        lo = rng.randint(-6, 4)
        ext = rng.choice([1, 2, 3, 5, 8, 16, 30])
        bounds[v] = (lo, lo + ext)
        ana.bind(v, Range(tir.const(lo), tir.const(ext)))
    e = random_bool_expr(rng, vs, 2) if rng.random() < 0.35 else random_int_expr(rng, vs, 4)
    constraint = random_bool_expr(rng, vs, rng.randrange(2)) if rng.random() < 0.3 else None
    if constraint is not None:
        with ana.constraint_scope(constraint):
            s = ana.simplify(e)
    else:
        s = ana.simplify(e)
    if s.dtype != e.dtype:
        raise AssertionError(f"seed {seed}: dtype {e.dtype} became {s.dtype}")
    if constraint is None:  # simplification is idempotent (the memo relies on it)
        fresh = Analyzer()
        for v, (lo, hi) in bounds.items():
            fresh.bind(v, Range(tir.const(lo), tir.const(hi - lo)))
        assert structural_equal(fresh.simplify(s), s), f"seed {seed}: not idempotent"
    iset = None
    if constraint is None and e.dtype == "int32":
        iset = eval_set(e, {v: Range(tir.const(lo), tir.const(hi - lo))
                            for v, (lo, hi) in bounds.items()})
    checked = 0
    for _ in range(12):
        env = {v: rng.randrange(lo, hi) for v, (lo, hi) in bounds.items()}
        try:
            if constraint is not None and not evaluate(constraint, env):
                continue
            want = evaluate(e, env)
        except _Skip:
            continue
        got = evaluate(s, env)
        if got != want:
            raise AssertionError(f"seed {seed}: at {[(v.name, x) for v, x in env.items()]} "
                                 f"original gives {want}, simplified gives {got}")
        if iset is not None:
            lo_v = None if is_neg_inf(iset.min_value) else evaluate(iset.min_value, env)
            hi_v = None if is_pos_inf(iset.max_value) else evaluate(iset.max_value, env)
            assert (lo_v is None or lo_v <= want) and (hi_v is None or want <= hi_v), \
                f"seed {seed}: {want} outside eval_set [{lo_v}, {hi_v}]"
        checked += 1
    return checked


@pytest.mark.parametrize("chunk", range(4))
def test_simplify_matches_evaluator_on_random_expressions(chunk):
    n = N_CASES // 4
    total = sum(run_case(1000 * chunk + i) for i in range(n))
    assert total > n  # most cases must have had valid points


def test_evaluator_itself():
    x = tir.Var("x")
    env = {x: -7}
    assert evaluate(tir.floordiv(x, 2), env) == -4
    assert evaluate(tir.floormod(x, 2), env) == 1
    assert evaluate(tir.truncdiv(x, 2), env) == -3
    assert evaluate(tir.truncmod(x, 2), env) == -1
