"""The differential schedule fuzzer (``tests/fuzz``), a bounded slice in CI: random programs
x random sequences of 1-8 primitives through ``te.create_schedule`` and ``tir.Schedule``,
each build compared with numpy and with the unscheduled build, on fenced outputs, each case
in its own child process.

Thousands of cases: ``python -m tests.fuzz --cases 10000 --seed 1 --jobs 2``.
``TVMLITE_FUZZ_CASES=N`` changes the slice size here.
"""
import os

import numpy as np
import pytest
from fuzz.case import Fenced, compare
from fuzz.driver import (
    FAILURES,
    format_counts,
    make_cases,
    repro,
    run_isolated,
    shrink,
    summarize,
)

N_CASES = int(os.environ.get("TVMLITE_FUZZ_CASES", "120"))
SEED = 12


def test_fence_catches_out_of_bounds_writes_and_missing_init():
    out = Fenced((3, 5), "float32", seed=0)
    assert out.fence_damage() == ""
    assert np.isnan(out.view).all()  # never written: differs from any expected value
    assert "1 of 15" in compare(np.where(np.arange(15).reshape(3, 5) == 7, np.nan, 1.0),
                                np.ones((3, 5)), "float32")
    out.raw[out.start + out.nbytes] ^= 1  # one byte past the end
    assert "after the output" in out.fence_damage()
    out.raw[out.start - 1] ^= 1
    assert "before the output" in out.fence_damage()
    ints = Fenced((4,), "int32", seed=1)
    assert len(set(ints.view.tolist())) > 1  # random bits, not a plausible zero init


def test_crash_is_isolated_and_reported():
    case = dict(make_cases(1, SEED)[0], selftest="segfault")
    ok = make_cases(2, SEED)[1]
    res = run_isolated([case, ok], jobs=2)
    assert res[0]["status"] == "crashed" and "SIGSEGV" in res[0]["message"]
    assert res[1]["status"] in ("built", "refused")  # the run went on


def test_shrinker_reaches_the_minimal_case():
    case = dict(make_cases(1, SEED)[0], selftest="segfault")  # fails whatever the program
    case["steps"] = case["steps"][:3]
    res = run_isolated([case])[0]
    small, small_res = shrink(case, res, jobs=2, budget=200)
    assert small_res["status"] == "crashed"
    assert small["steps"] == [] and small["spec"]["n"] == small["spec"]["m"] == 1
    assert not small["spec"]["prologue"] and not small["spec"]["sym"]


@pytest.mark.slow
def test_fuzz_schedules_slice():
    """A fixed-seed slice; fails on any wrong result, crash or internal error."""
    results = run_isolated(make_cases(N_CASES, SEED), jobs=2)
    per = summarize(results)
    print(format_counts(per))
    assert per["all"]["built"] > N_CASES // 3  # the slice really builds schedules
    assert per["te"]["steps_applied"] > N_CASES and per["tir"]["steps_applied"] > N_CASES // 2
    bad = [r for r in results if r["status"] in FAILURES]
    assert not bad, "\n\n".join(repro(r["case"], r) for r in bad)
