"""Randomized TE schedules, in process, with ``tir.instrument_bound_checkers`` on every third
case (so the scheduled code also proves it never reads or writes out of bounds).

Programs and primitive sequences come from the schedule fuzzer (``tests/fuzz``, which runs
many more cases in child processes); a primitive or build refused with a clear TVMError is
fine, any other exception or a wrong result fails. ``TVMLITE_RANDOM_CASES=N`` runs N cases.
"""
import os
import random

import numpy as np
import pytest
from fuzz.case import compare, is_refusal
from fuzz.programs import make_program, random_inputs, random_spec
from fuzz.schedules import apply_te_step, random_steps

import tvmlite as tvm
from tvmlite import te

N_CASES = int(os.environ.get("TVMLITE_RANDOM_CASES", "24"))


@pytest.mark.parametrize("case", range(N_CASES))
def test_random_te_schedule(case):
    rng = random.Random(1000 + case)
    spec = random_spec(rng)
    prog = make_program(spec)
    s = te.create_schedule(prog.output.op)
    log = []
    for st in random_steps(rng, "te"):
        try:
            log.append(apply_te_step(s, prog, st))
        except tvm.TVMError as e:
            if not is_refusal(e):
                raise
    config = {"tir.instrument_bound_checkers": case % 3 == 0}
    try:
        with tvm.transform.PassContext(config=config):
            f = tvm.build(s, prog.args)
    except tvm.TVMError as e:
        if not is_refusal(e):
            raise
        return
    ins = random_inputs(prog, case)
    out = tvm.nd.array(np.zeros(prog.shapes[-1], prog.output.dtype))
    f(*[tvm.nd.array(x) for x in ins], out)
    with np.errstate(all="ignore"):
        want = np.asarray(prog.ref(*ins)).astype(prog.output.dtype)
    problem = compare(out.numpy(), want, prog.output.dtype)
    assert not problem, f"{spec}: " + "; ".join(x for x in log if x) + f": {problem}"
