"""One fuzz case, run inside a child process: build the program unscheduled and scheduled,
run both on fenced outputs, compare with numpy and with each other.

A case is a dict ``{"spec", "api", "steps", "seed"}``; :func:`run_case` returns a result dict
whose ``status`` is one of ``built`` (correct), ``refused`` (a clear TVMError/ScheduleError at
build time), ``wrong``, ``baseline_wrong`` (the *unscheduled* build disagrees with numpy) or
``internal`` (any other exception, or a C compiler failure); ``steps_refused`` counts the
primitives refused on the way (skipped, the case goes on).
"""
from __future__ import annotations

import traceback
from typing import List

import numpy as np

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import CompileError, InternalError, TVMError
from tvmlite.tir.schedule import Schedule

from .programs import make_program, random_inputs
from .schedules import apply_te_step, apply_tir_step


def _warm_up() -> None:
    """Import what a build needs and ask the C compiler its ISA and version now: the fork
    server imports this module, so every case's child starts with all of it done (it saves
    ~0.3 s of subprocesses and imports per case)."""
    import numpy.random  # noqa: F401

    import tvmlite.driver.build_module  # noqa: F401
    import tvmlite.runtime.module  # noqa: F401
    import tvmlite.te.materialize  # noqa: F401
    from tvmlite.contrib.cc import compiler_identity
    from tvmlite.target.isa import isa_flags

    isa_flags()
    compiler_identity()


_warm_up()

FENCE = 64  # bytes of sentinel on each side of an output
SENTINEL = 0xA5


def is_refusal(e: BaseException) -> bool:
    """A clear refusal: a TVMError (ScheduleError included) that is not an internal or a C
    compiler error, with a message."""
    return (isinstance(e, TVMError) and not isinstance(e, (InternalError, CompileError))
            and bool(str(e).strip()))


class Fenced:
    """An output array inside a larger buffer: sentinel bytes around it, garbage inside
    (NaN for floats, random bits for integers), so out-of-bounds writes and missing
    initialisation show."""

    def __init__(self, shape, dtype: str, seed: int):
        self.dtype = np.dtype(dtype)
        self.nbytes = int(np.prod(shape, dtype=np.int64)) * self.dtype.itemsize
        self.raw = np.full(self.nbytes + 3 * FENCE, SENTINEL, np.uint8)
        start = FENCE + (-(self.raw.ctypes.data + FENCE)) % FENCE  # 64-byte aligned data
        self.start = start
        self.view = self.raw[start:start + self.nbytes].view(self.dtype).reshape(shape)
        if self.dtype.kind == "f":
            self.view[...] = np.nan
        else:
            bits = np.random.default_rng(seed).integers(0, 256, self.nbytes, dtype=np.uint8)
            self.raw[start:start + self.nbytes] = bits

    def nd(self):
        return tvm.nd.from_numpy_view(self.view)

    def fence_damage(self) -> str:
        front = self.raw[:self.start]
        back = self.raw[self.start + self.nbytes:]
        bad = []
        if (front != SENTINEL).any():
            bad.append(f"{int((front != SENTINEL).sum())} bytes before the output")
        if (back != SENTINEL).any():
            bad.append(f"{int((back != SENTINEL).sum())} bytes after the output")
        return " and ".join(bad)


def _run(f, prog, inputs: List[np.ndarray], seed: int):
    """Call ``f`` on copies of the inputs and a fenced output; (output, problem or "")."""
    copies = [x.copy() for x in inputs]
    out = Fenced(prog.shapes[-1], prog.output.dtype, seed)
    f(*[tvm.nd.array(x) for x in copies], out.nd())
    damage = out.fence_damage()
    if damage:
        return out.view.copy(), f"out-of-bounds write: {damage} changed"
    for i, (x, y) in enumerate(zip(inputs, copies)):
        if not np.array_equal(x, y, equal_nan=True):
            return out.view.copy(), f"input {i} was modified"
    return out.view.copy(), ""


def compare(got: np.ndarray, want: np.ndarray, dtype: str) -> str:
    """"" when equal (within a float tolerance), else a short description."""
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if np.dtype(dtype).kind == "f":
        tol = 1e-3 if dtype == "float32" else 1e-8
        ok = np.isclose(got, want, rtol=tol, atol=tol) | (np.isnan(want) & np.isnan(got))
    else:
        ok = got == want
    if ok.all():
        return ""
    bad = np.argwhere(~ok)
    idx = tuple(int(v) for v in bad[0])
    return (f"{len(bad)} of {ok.size} elements differ, first at {idx}: got {got[idx]!r}, "
            f"want {want[idx]!r}")


def build_unscheduled(prog):
    return tvm.build(te.create_schedule(prog.output.op), prog.args)


def schedule(prog, api: str, steps: List[dict]):
    """Apply ``steps``; (thing to build, applied primitives, refused primitives)."""
    applied, refused = [], []
    if api == "te":
        s = te.create_schedule(prog.output.op)
        for st in steps:
            try:
                t = apply_te_step(s, prog, st)
            except Exception as e:
                if not is_refusal(e):
                    raise
                refused.append(f"{st['op']}: {str(e).splitlines()[0][:200]}")
                continue
            if t:
                applied.append(t)
        return ("te", s), applied, refused
    sch = Schedule(te.create_prim_func(prog.args))
    for st in steps:
        try:
            t = apply_tir_step(sch, st)
        except Exception as e:
            if not is_refusal(e):
                raise
            refused.append(f"{st['op']}: {str(e).splitlines()[0][:200]}")
            continue
        if t:
            applied.append(t)
    return ("tir", sch), applied, refused


def _build(prog, thing):
    api, obj = thing
    if api == "te":
        return tvm.build(obj, prog.args)
    return tvm.build(obj.mod, target="llvm")


def run_case(case: dict) -> dict:
    """Run one case (in the current process); see the module docstring."""
    res = {"status": "internal", "applied": [], "refused": [], "message": ""}
    if case.get("selftest") == "segfault":  # the harness's own test of crash isolation
        import ctypes

        ctypes.string_at(0)
    try:
        prog = make_program(case["spec"])
        inputs = random_inputs(prog, case["seed"])
        with np.errstate(all="ignore"):
            want = np.asarray(prog.ref(*inputs)).astype(prog.output.dtype)
        base, problem = _run(build_unscheduled(prog), prog, inputs, case["seed"])
        problem = problem or compare(base, want, prog.output.dtype)
        if problem:
            res.update(status="baseline_wrong", message="unscheduled build: " + problem)
            res["message"] += _retry_o2(prog, inputs, want, case["seed"])
            return res
        stage = "schedule"
        thing, res["applied"], res["refused"] = schedule(prog, case["api"], case["steps"])
        stage = "build"
        try:
            f = _build(prog, thing)
        except Exception as e:
            if is_refusal(e):
                res.update(status="refused", message=f"build: {str(e).splitlines()[0][:300]}")
                return res
            raise
        stage = "run"
        got, problem = _run(f, prog, inputs, case["seed"])
        problem = problem or compare(got, want, prog.output.dtype) or compare(
            got, base, prog.output.dtype)
        if problem:
            res.update(status="wrong", message=problem)
            return res
        res["status"] = "built"
    except Exception as e:
        tb = traceback.format_exc().splitlines()
        where = next((ln.strip() for ln in reversed(tb) if ln.strip().startswith("File ")), "")
        res.update(status="internal",
                   message=f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
                           f" [at {where}]")
        res["stage"] = locals().get("stage", "program")
    return res


def _retry_o2(prog, inputs, want, seed) -> str:
    """The unscheduled build is wrong: is it the C compiler's -O3? Rebuild at -O2."""
    from tvmlite.codegen import build_c

    old = build_c.BASE_FLAGS
    try:
        build_c.BASE_FLAGS = tuple("-O2" if x == "-O3" else x for x in old)
        got, problem = _run(build_unscheduled(prog), prog, inputs, seed)
        if not (problem or compare(got, want, prog.output.dtype)):
            return " (right at -O2: a C compiler -O3 miscompile)"
        return " (wrong at -O2 too)"
    except Exception as e:  # noqa: BLE001 - a diagnosis only
        return f" (-O2 rebuild failed: {type(e).__name__})"
    finally:
        build_c.BASE_FLAGS = old
