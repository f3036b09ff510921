"""Linear forms: ``arith.linear_form`` (syntactic) and ``detect_linear_equation`` (through the
simplifier) on random affine expressions, evaluated with numpy at random points."""
import numpy as np
import pytest

from tvmlite import tir
from tvmlite.arith import LinearForm, detect_linear_equation, linear_form
from tvmlite.tir import expr as E
from tvmlite.tir.functor import collect_vars

VARS = [tir.Var(s) for s in ("i", "j", "k", "n")]


def evaluate(e, env):
    """Evaluate an integer expression with numpy arrays bound to its variables."""
    t = type(e)
    if t is E.IntImm:
        return np.int64(e.value)
    if isinstance(e, E.Var):
        return env[e]
    if t in (E.Add, E.Sub, E.Mul, E.FloorDiv, E.FloorMod, E.Min, E.Max):
        a, b = evaluate(e.a, env), evaluate(e.b, env)
        return {E.Add: np.add, E.Sub: np.subtract, E.Mul: np.multiply,
                E.FloorDiv: np.floor_divide, E.FloorMod: np.mod, E.Min: np.minimum,
                E.Max: np.maximum}[t](a, b)
    if t is E.Cast:
        return evaluate(e.value, env)
    raise TypeError(t.__name__)


def random_affine(rng, depth):
    """A random expression over +, -, * by constants, with some non-linear atoms inside."""
    r = rng.integers(0, 10)
    if depth == 0 or r < 2:
        pick = rng.integers(0, 6)
        if pick < 4:
            return VARS[pick]
        if pick == 4:
            return tir.const(int(rng.integers(-9, 10)))
        v = VARS[int(rng.integers(0, 4))]
        return E.FloorDiv(v, tir.const(int(rng.integers(2, 5))))   # an atom
    a, b = random_affine(rng, depth - 1), random_affine(rng, depth - 1)
    if r < 5:
        return E.Add(a, b)
    if r < 7:
        return E.Sub(a, b)
    if r < 8:
        return E.Mul(a, tir.const(int(rng.integers(-4, 5))))
    if r < 9:
        return E.Mul(tir.const(int(rng.integers(-4, 5))), a)
    return E.Mul(a, VARS[int(rng.integers(0, 4))])   # a product of two terms: an atom


def env_of(rng, size=37):
    return {v: rng.integers(-50, 50, size=size).astype(np.int64) for v in VARS}


@pytest.mark.parametrize("seed", range(40))
def test_linear_form_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    e = random_affine(rng, 5)
    form = linear_form(e)
    assert isinstance(form, LinearForm)
    env = env_of(rng)
    want = evaluate(e, env) + np.zeros(37, np.int64)
    got = np.full_like(want, form.const) + sum(
        (k * evaluate(a, env) for a, k in form.terms), np.zeros_like(want))
    np.testing.assert_array_equal(got, want)
    for atom, _ in form.terms:   # atoms are never +, - or * by a constant
        assert not isinstance(atom, (E.Add, E.Sub, E.IntImm))
        if isinstance(atom, E.Mul):
            assert not isinstance(atom.a, E.IntImm) and not isinstance(atom.b, E.IntImm)
    rebuilt = form.to_expr("int32")
    if rebuilt is not None:
        np.testing.assert_array_equal(evaluate(rebuilt, env) + np.zeros(37, np.int64), want)


@pytest.mark.parametrize("seed", range(40))
def test_detect_linear_equation_matches_numpy(seed):
    rng = np.random.default_rng(100 + seed)
    e = random_affine(rng, 5)
    targets = VARS[:2]
    coeffs = detect_linear_equation(e, targets)
    env = env_of(rng)
    want = evaluate(e, env) + np.zeros(37, np.int64)
    if not coeffs:   # not linear in i, j: some atom mentions them
        assert any(linear_form(e).coeff_of(v) is None for v in targets)
        return
    for cf in coeffs[:-1]:
        assert not ({"i", "j"} & {v.name for v in collect_vars(cf)})
    got = evaluate(coeffs[-1], env) + sum(
        evaluate(cf, env) * env[v] for cf, v in zip(coeffs, targets))
    np.testing.assert_array_equal(got + np.zeros(37, np.int64), want)


def test_coeff_of_and_look_through():
    i, j = VARS[:2]
    form = linear_form(i * 4 + (j - 2) * 3 - i)
    assert form.const == -6 and form.coeff_of(i) == 3 and form.coeff_of(j) == 3
    assert form.coeff_of(VARS[2]) == 0
    assert linear_form(E.FloorDiv(i, tir.const(2)) + j).coeff_of(i) is None
    assert linear_form(i * j).coeff_of(i) is None
    vec = E.Ramp(i * 8, tir.const(1), 4) + E.Broadcast(j, 4)
    assert linear_form(vec).coeff_of(i) is None        # a Ramp is an atom by default
    assert linear_form(vec, look_through=True).coeff_of(i) == 8
    assert linear_form(E.Cast("int64", i * 2), look_through=True).coeff_of(i) == 2
    assert linear_form(tir.const(5)).to_expr("int32").value == 5
    assert linear_form(i + 3).to_expr("int32", with_const=False) is i
