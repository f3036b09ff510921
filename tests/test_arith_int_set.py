"""Integer sets: eval_set (exact through floordiv/floormod), union/intersect, relax_region."""
import itertools

import pytest

from tvmlite import tir
from tvmlite.arith import (
    Analyzer,
    IntervalSet,
    IntSet,
    eval_set,
    intersect,
    is_neg_inf,
    is_pos_inf,
    pos_inf,
    relax_region,
    union,
)
from tvmlite.ir import Range, structural_equal

i, j, k, n, x = (tir.Var(s) for s in "ijknx")


def c(v):
    return tir.const(v, "int32")


def R(lo, ext):
    return Range(c(lo) if isinstance(lo, int) else lo, c(ext) if isinstance(ext, int) else ext)


def check(got, want):
    assert structural_equal(got, want, map_free_vars=False), (got, want)


def check_set(s, lo, hi):
    check(s.min_value, c(lo) if isinstance(lo, int) else lo)
    check(s.max_value, c(hi) if isinstance(hi, int) else hi)


def test_floordiv_is_exact_when_bounds_allow():
    check_set(eval_set(tir.floordiv(i * 8 + j, 8), {j: R(0, 8)}), i, i)
    check_set(eval_set(tir.floordiv(i * 8 + j, 8), {i: R(0, 4), j: R(0, 8)}), 0, 3)
    check_set(eval_set(tir.floormod(i * 8 + j, 8), {j: R(0, 8)}), 0, 7)
    s = eval_set(tir.floormod(i * 4 + j, 16), {j: R(0, 4)})
    check_set(s, tir.floormod(i, 4) * 4, tir.floormod(i, 4) * 4 + 3)


def test_linear_and_symbolic():
    check_set(eval_set(i * 8 + j, {j: R(0, 8)}), i * 8, i * 8 + 7)
    check_set(eval_set(i + 1, {i: R(0, n)}), 1, n)
    check_set(eval_set(i * 4 - j, {i: R(0, n), j: R(0, 4)}), -3, n * 4 - 4)
    check_set(eval_set(i - j, {i: R(0, 10), j: R(0, 4)}), -3, 9)
    s = eval_set(x * i, {i: R(0, 4)})
    check_set(s, tir.min(0, x * 3), tir.max(0, x * 3))
    check_set(eval_set(tir.min(i, 5), {i: R(0, 10)}), 0, 5)
    check_set(eval_set(tir.max(i, j), {i: R(0, 10), j: R(2, 3)}), 2, 9)


def test_point_and_missing_vars():
    s = eval_set(i + k, {i: R(0, 4)})
    check_set(s, k, k + 3)
    s = eval_set(i + k, {i: IntSet.single_point(j)})
    assert s.is_single_point()
    check(s.min_value, j + k)


def test_unbounded_ends():
    s = eval_set(i * 2 + 1, {i: IntervalSet(c(0), pos_inf)})
    check(s.min_value, c(1))
    assert is_pos_inf(s.max_value)
    s = eval_set(0 - i, {i: IntervalSet(c(0), pos_inf)})
    assert is_neg_inf(s.min_value)
    check(s.max_value, c(0))


def test_eval_set_contains_all_values_exhaustively():
    ana = Analyzer()
    exprs = [
        tir.floordiv(i * 3 + j, 4), tir.floormod(i * 3 + j - 5, 4), tir.min(i, j) * 2 - i,
        tir.floordiv(tir.floormod(i * 8 + j, 12), 3), (i - j) * (i + 1),
    ]
    dom = {i: R(-3, 7), j: R(0, 5)}
    for e in exprs:
        s = eval_set(e, dom, ana)
        lo, hi = s.min_value.value, s.max_value.value
        vals = [ana.simplify(tir.substitute(e, {i: c(a), j: c(b)})).value
                for a, b in itertools.product(range(-3, 4), range(0, 5))]
        assert lo <= min(vals) and max(vals) <= hi, (e, lo, hi, min(vals), max(vals))


def test_int_set_from_analyzer():
    ana = Analyzer()
    check_set(ana.int_set(i * 2, {i: R(1, 3)}), 2, 6)


def test_union_intersect():
    s = union([IntervalSet(0, 10), IntervalSet(5, 20)])
    check_set(s, 0, 20)
    s = intersect([IntervalSet(0, 10), IntervalSet(5, 20)])
    check_set(s, 5, 10)
    sn = tir.SizeVar("sn", "int32")
    s = union([IntSet.from_range(R(0, sn)), IntSet.single_point(sn)])
    check_set(s, 0, sn)
    s = union([IntSet.from_range(R(0, n)), IntSet.single_point(n)])  # n may be negative
    check_set(s, tir.min(0, n), n)
    assert union([IntSet.everything(), IntervalSet(0, 1)]).is_everything()


def test_from_range_and_single_point():
    s = IntSet.from_range(R(2, 5))
    check_set(s, 2, 6)
    assert not s.is_single_point()
    assert IntSet.from_range(R(i, 1)).is_single_point()
    assert IntSet.single_point(i + 1).is_single_point()
    assert IntervalSet(c(3), c(1)).is_nothing()
    with pytest.raises(TypeError):
        IntSet.from_range(5)


def test_relax_region():
    # a consumer reads A[i*8 + j, k] inside loops j in [0, 8), k in [0, 4): the producer's
    # region under loop i
    region = relax_region([i * 8 + j, k], {j: R(0, 8), k: R(0, 4)})
    check(region[0].min, i * 8)
    check(region[0].extent, c(8))
    check(region[1].min, c(0))
    check(region[1].extent, c(4))
    # a sliding window (conv): n + r with r in [0, 3)
    r = tir.Var("r")
    region = relax_region([n + r], {r: R(0, 3)})
    check(region[0].min, n)
    check(region[0].extent, c(3))
    # everything relaxed: the full extent
    region = relax_region([tir.floordiv(i * 8 + j, 8)], {i: R(0, 4), j: R(0, 8)})
    check(region[0].min, c(0))
    check(region[0].extent, c(4))
    with pytest.raises(ValueError):
        relax_region([i + 1], {i: IntervalSet(c(0), pos_inf)})
