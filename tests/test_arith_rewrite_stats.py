"""The simplifier's named rewrites: ``rewrite_stats()`` / ``TVMLITE_ARITH_STATS`` count which
rules fired, and each rule fires on the small example its name stands for."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tvmlite
from tvmlite import tir
from tvmlite.arith import Analyzer, RewriteStats, rewrite_stats
from tvmlite.arith.rules import RULES, fire
from tvmlite.ir import Range, structural_equal
from tvmlite.tir import expr as E

ROOT = Path(__file__).resolve().parents[1]
x, y, n = tir.Var("x"), tir.Var("y"), tir.Var("n")
f, g = tir.Var("f", "float32"), tir.Var("g", "float32")


def c(v, dtype="int32"):
    return tir.const(v, dtype)


def ranged(**ranges):
    ana = Analyzer()
    for name, (lo, hi) in ranges.items():
        ana.bind(globals()[name], Range(c(lo), c(hi - lo)))
    return ana


def _bound_x5():
    ana = Analyzer()
    ana.bind(x, Range(c(5), c(1)))
    return ana


def _bound_subst():
    ana = Analyzer()
    ana.bind(x, y + 1)
    return ana


# rule -> (analyzer factory, expression, expected result)
CASES = {
    "canonical.fold_const": (Analyzer, lambda: E.Add(c(3), E.Mul(c(4), c(2))), c(11)),
    "canonical.cancel": (Analyzer, lambda: x + y - x, y),
    "canonical.distribute": (Analyzer, lambda: (x + 2) * 3, x * 3 + 6),
    "canonical.subst_var": (_bound_subst, lambda: x * 2, y * 2 + 2),
    "canonical.const_var": (_bound_x5, lambda: x + y, y + 5),
    "canonical.cast_push": (lambda: ranged(x=(0, 100)),
                            lambda: E.Cast("int64", x + 1),
                            E.Cast("int64", x) + tir.const(1, "int64")),
    "canonical.fold_float": (Analyzer,
                             lambda: E.Mul(tir.const(2.0, "float32"), tir.const(3.0, "float32")),
                             tir.const(6.0, "float32")),
    "div_mod.fold_const": (Analyzer, lambda: E.FloorDiv(c(7), c(2)), c(3)),
    "div_mod.by_one": (Analyzer, lambda: E.FloorDiv(x, c(1)), x),
    "div_mod.common_factor": (Analyzer, lambda: tir.floordiv(x * 4 + 2, 6),
                              tir.floordiv(x * 2 + 1, 3)),
    "div_mod.split_multiple": (Analyzer, lambda: tir.floordiv(x * 8 + 11, 8), x + 1),
    "div_mod.bound_collapse": (lambda: ranged(y=(0, 8)),
                               lambda: tir.floordiv(x * 8 + y, 8), x),
    "div_mod.gcd_split": (lambda: ranged(y=(0, 4)),
                          lambda: tir.floordiv(x * 4 + y, 8), tir.floordiv(x, 2)),
    "div_mod.nested_div": (Analyzer, lambda: tir.floordiv(tir.floordiv(x, 4), 2),
                           tir.floordiv(x, 8)),
    "div_mod.nested_mod": (Analyzer, lambda: tir.floormod(tir.floormod(x, 16), 8),
                           tir.floormod(x, 8)),
    "div_mod.symbolic": (lambda: ranged(y=(0, 4), n=(4, 9)),
                         lambda: tir.floordiv(x * n + y, n), x),
    "div_mod.in_range": (lambda: ranged(y=(0, 4), n=(4, 9)),
                         lambda: tir.floormod(y, n), y),
    "div_mod.merge": (Analyzer, lambda: tir.floordiv(x, 8) * 8 + tir.floormod(x, 8), x),
    "div_mod.div_to_mod": (Analyzer, lambda: x - tir.floordiv(x, 8) * 8, tir.floormod(x, 8)),
    "div_mod.trunc_exact": (Analyzer, lambda: tir.truncdiv(x * 4, 2), x * 2),
    "div_mod.trunc_to_floor": (lambda: ranged(x=(0, 100)),
                               lambda: tir.truncdiv(x, 4), tir.floordiv(x, 4)),
    "min_max.prove": (Analyzer, lambda: tir.min(x, x + 1), x),
    "min_max.nested_const": (Analyzer, lambda: tir.min(tir.min(x, 4), 2), tir.min(x, 2)),
    "compare.fold_const": (Analyzer, lambda: x + 1 == x + 1, tir.const(True, "bool")),
    "compare.prove_true": (lambda: ranged(x=(0, 8)), lambda: x < 8, tir.const(True, "bool")),
    "compare.prove_false": (Analyzer, lambda: x + 1 <= x, tir.const(False, "bool")),
    "compare.prove_ne": (Analyzer, lambda: x * 2 == y * 2 + 1, tir.const(False, "bool")),
    "compare.divide_gcd": (Analyzer, lambda: x * 4 < 9, x < 3),
    "compare.cancel_common": (Analyzer, lambda: x + y < x + 5, y < 5),
    "compare.floordiv_const": (Analyzer, lambda: tir.floordiv(x, 8) < 3, x < 24),
    "logic.absorb": (Analyzer, lambda: tir.all(x < 0, x > 0, y < 3), tir.const(False, "bool")),
    "logic.neutral": (lambda: ranged(x=(0, 8)), lambda: tir.all(x < 8, y < 3), y < 3),
    "logic.duplicate": (Analyzer, lambda: tir.all(y < 3, y < 3), y < 3),
    "logic.complement": (Analyzer, lambda: E.And(f < g, E.Not(f < g)),
                         tir.const(False, "bool")),
    "logic.implied": (Analyzer, lambda: tir.all(x < 3, x < 4), x < 3),
    "logic.bound_mod": (Analyzer, lambda: tir.all(x < 256, tir.floormod(x, 128) < 127),
                        tir.all(x < 255, tir.floormod(x, 128) < 127)),
    "logic.contradiction": (Analyzer, lambda: tir.all(x < y, y <= x), tir.const(False, "bool")),
    "logic.not_const": (Analyzer, lambda: E.Not(x < x + 1), tir.const(False, "bool")),
    "logic.double_not": (Analyzer, lambda: E.Not(E.Not(f < g)), f < g),
    "logic.not_cmp": (Analyzer, lambda: E.Not(x < y), y <= x),
    "select.const_cond": (Analyzer, lambda: tir.Select(x < x + 1, y, x), y),
    "select.same_arms": (Analyzer, lambda: tir.Select(x < y, x + y, y + x), x + y),
    "if_then_else.const_cond": (lambda: ranged(x=(0, 8)),
                                lambda: tir.if_then_else(x < 0, y, x), x),
    "if_then_else.same_arms": (Analyzer, lambda: tir.if_then_else(x < y, y, y), y),
    "likely.const": (Analyzer, lambda: tir.likely(x < x + 1), tir.const(True, "bool")),
    "cast.fold_const": (Analyzer, lambda: E.Cast("float32", c(2)), tir.const(2.0, "float32")),
    "vector.broadcast_op": (Analyzer, lambda: E.Broadcast(x, 4) + E.Broadcast(y, 4),
                            E.Broadcast(x + y, 4)),
    "vector.ramp_offset": (Analyzer, lambda: E.Ramp(x, c(1), 4) + E.Broadcast(c(3), 4),
                           E.Ramp(x + 3, c(1), 4)),
    "vector.ramp_ramp": (Analyzer, lambda: E.Ramp(x, c(1), 4) + E.Ramp(y, c(2), 4),
                         E.Ramp(x + y, c(3), 4)),
    "vector.ramp_scale": (Analyzer, lambda: E.Ramp(x, c(1), 4) * E.Broadcast(c(3), 4),
                          E.Ramp(x * 3, c(3), 4)),
    "vector.ramp_div": (Analyzer, lambda: tir.floordiv(E.Ramp(x * 8, c(1), 4),
                                                       E.Broadcast(c(8), 4)),
                        E.Broadcast(x, 4)),
    "vector.ramp_mod": (Analyzer, lambda: tir.floormod(E.Ramp(x * 8, c(1), 4),
                                                       E.Broadcast(c(8), 4)),
                        E.Ramp(c(0), c(1), 4)),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_fires_on_its_example(rule):
    make_ana, make_expr, want = CASES[rule]
    ana, e = make_ana(), make_expr()
    with rewrite_stats() as st:
        got = ana.simplify(e)
    assert structural_equal(got, want, map_free_vars=False), (got, want)
    assert st[rule] >= 1, f"{rule} did not fire: {dict(st)}"
    assert set(st) <= set(RULES)


def test_every_rule_is_named_with_an_example():
    for name, example in RULES.items():
        family, _, rule = name.partition(".")
        assert family and rule and example.strip(), name
    uncovered = set(RULES) - set(CASES) - {
        "canonical.cast_const", "cast.same_dtype", "context.known_fact"}
    assert not uncovered, uncovered


def test_known_fact_and_cast_const():
    ana = Analyzer()
    with ana.constraint_scope(f < g):
        with rewrite_stats() as st:
            got = ana.simplify(f < g)
    assert got.value == 1 and st["context.known_fact"] == 1
    with rewrite_stats() as st:
        ana.simplify(E.Cast("int64", c(3)) + x.astype("int64"))
    assert st["canonical.cast_const"] >= 1


def test_counts_add_up_and_nest():
    ana = Analyzer()
    with rewrite_stats() as outer:
        ana.simplify(E.FloorDiv(c(7), c(2)))
        with rewrite_stats() as inner:
            ana.simplify(E.FloorDiv(c(9), c(2)) + E.FloorMod(c(9), c(4)))
        assert inner["div_mod.fold_const"] == 2
    assert outer["div_mod.fold_const"] == 3
    assert "div_mod.fold_const" in str(outer) and "7 // 2 -> 3" in outer.table()
    assert isinstance(outer, RewriteStats)


def test_memoized_results_do_not_refire():
    ana = Analyzer()
    e = tir.floordiv(x * 4 + 2, 6)
    with rewrite_stats() as st:
        ana.simplify(e)
        ana.simplify(e)
    assert st["div_mod.common_factor"] == 1


def test_off_by_default_and_names_checked():
    with rewrite_stats() as st:
        pass
    assert not st and str(st) == "no rewrite fired"
    Analyzer().simplify(E.FloorDiv(c(7), c(2)))   # no active counter: nothing to count into
    with rewrite_stats():
        with pytest.raises(KeyError, match="unregistered"):
            fire("no_such.rule")


def test_env_switch_prints_a_table_at_exit():
    code = ("from tvmlite import tir; from tvmlite.arith import Analyzer;"
            "x = tir.Var('x'); Analyzer().simplify(tir.floordiv(x * 4 + 2, 6))")
    env = dict(os.environ, TVMLITE_ARITH_STATS="1",
               PYTHONPATH=str(Path(tvmlite.__file__).parents[1]))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=120, check=True)
    assert "div_mod.common_factor" in r.stderr and "rule" in r.stderr
    env["TVMLITE_ARITH_STATS"] = "0"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=120, check=True)
    assert "div_mod" not in r.stderr
