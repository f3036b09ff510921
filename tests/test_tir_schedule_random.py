"""Randomized TensorIR schedules checked with the block interpreter, which also checks that
every access is in bounds, every iterator in its domain and no uninitialised value is read.

Programs and primitive sequences come from the schedule fuzzer (``tests/fuzz``: its
``random_spec`` programs at float32 with constant extents, its ``tir.Schedule`` steps); the
fuzzer itself compares compiled builds, this file adds the interpreter as a second oracle.
A primitive may refuse with ScheduleError (the step is skipped); any other exception, or a
wrong result, fails. The suite runs a fast subset; ``TVMLITE_SCHEDULE_FUZZ=<cases>`` runs more.
"""
import os
import random

import numpy as np
from fuzz.case import is_refusal
from fuzz.programs import make_program, random_inputs, random_spec
from fuzz.schedules import apply_tir_step, random_steps

import tvmlite
from tvmlite import te
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule


def run_case(seed: int, steps: int = 6, build: bool = False):
    """Apply up to ``steps`` random primitives; returns the ones that succeeded. With
    ``build`` the scheduled module is also compiled (lowering + C backend) and checked."""
    rng = random.Random(seed)
    spec = dict(random_spec(rng), dtype="float32", sym=False)
    prog = make_program(spec)
    s = Schedule(te.create_prim_func(prog.args))
    done = []
    for st in random_steps(rng, "tir")[:steps]:
        try:
            if apply_tir_step(s, st):
                done.append(st["op"])
        except tvmlite.TVMError as e:
            if not is_refusal(e):
                raise
    ins = random_inputs(prog, seed)
    want = prog.ref(*ins)
    out = np.full(prog.shapes[-1], np.nan, "float32")
    try:
        interpret(s.mod["main"], *ins, out)
        np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)
        if build:
            rt = tvmlite.build(s.mod, target="llvm")
            got = tvmlite.nd.array(np.full_like(out, np.nan))
            rt(*[tvmlite.nd.array(x) for x in ins], got)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)
    except Exception as e:
        raise AssertionError(f"seed {seed}, program {spec}, primitives {done}:\n{s.trace}\n"
                             f"{s.mod['main'].script()}") from e
    return done


def test_random_schedules_fast_subset():
    applied = 0
    for seed in range(60):
        applied += len(run_case(seed))
    assert applied > 100  # the cases really schedule something


def test_random_schedules_long():
    """Longer schedules; ``TVMLITE_SCHEDULE_FUZZ=<cases>`` runs many (20 by default)."""
    n = int(os.environ.get("TVMLITE_SCHEDULE_FUZZ", "20"))
    counts = {}
    for seed in range(1000, 1000 + n):
        for op in run_case(seed, steps=8, build=True):
            counts[op] = counts.get(op, 0) + 1
    print(f"{n} random schedules correct; primitives applied: {counts}")
