"""Run many fuzz cases in child processes, shrink each failure, classify and report.

Each case runs in its own child process forked from a clean fork server (which imported
tvmlite but never ran a kernel), so a SIGSEGV, SIGILL, abort from heap corruption or a hang
is reported with its case and never kills the run.

Why an own generator and shrinker rather than ``hypothesis``: a case is a small JSON-able
dict (program spec + integer-coded steps) that crosses process boundaries and prints as its
own repro; runs are reproducible from ``--seed`` alone and split across ``--jobs`` workers
without hypothesis's database or deadlines; and the failures we care about (crashes in a
child) are outside what hypothesis can shrink in-process. The shrinker is greedy: delete
steps, then simplify the program spec field by field, keeping the same failure class.
"""
from __future__ import annotations

import multiprocessing as mp
import random
import time
from collections import Counter, defaultdict
from multiprocessing.connection import wait
from typing import Dict, Iterable, List, Optional

from .programs import random_spec
from .schedules import random_steps

STATUSES = ["built", "refused", "wrong", "baseline_wrong", "crashed", "internal"]
FAILURES = ("wrong", "baseline_wrong", "crashed", "internal")
CASE_TIMEOUT = 120.0


def make_cases(n: int, seed: int, apis=("te", "tir"), start: int = 0) -> List[dict]:
    """Cases ``start .. start+n-1`` of run ``seed``: each program is shared by one TE and one
    TIR case (its unscheduled build then comes from the build cache)."""
    out = []
    for c in range(start, start + n):
        api = apis[c % len(apis)]
        spec = random_spec(random.Random(f"{seed}:program:{c // len(apis)}"))
        steps = random_steps(random.Random(f"{seed}:steps:{c}"), api)
        out.append({"id": c, "spec": spec, "api": api, "steps": steps, "seed": c})
    return out


def _child(case: dict, conn) -> None:
    from .case import run_case

    conn.send(run_case(case))
    conn.close()


_CTX = None


def _context():
    global _CTX
    if _CTX is None:
        _CTX = mp.get_context("forkserver")
        _CTX.set_forkserver_preload(["numpy", "tvmlite", __package__ + ".case"])
    return _CTX


def run_isolated(cases: Iterable[dict], jobs: int = 2, timeout: float = CASE_TIMEOUT,
                 on_result=None) -> List[dict]:
    """Run each case in its own child process, ``jobs`` at a time; results in case order.
    A child killed by a signal, or silent, or past ``timeout`` is a ``crashed`` result."""
    ctx = _context()
    pending = list(cases)[::-1]
    results: Dict[int, dict] = {}
    running = {}  # sentinel -> (process, conn, case, started)
    order = []
    while pending or running:
        while pending and len(running) < jobs:
            case = pending.pop()
            order.append(case)
            rd, wr = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_child, args=(case, wr), daemon=True)
            p.start()
            wr.close()
            running[p.sentinel] = (p, rd, case, time.monotonic())
        ready = wait(list(running) + [r[1] for r in running.values()], timeout=1.0)
        now = time.monotonic()
        for key in list(running):
            p, rd, case, t0 = running[key]
            res: Optional[dict] = None
            if rd in ready or key in ready:
                try:
                    if rd.poll():
                        res = rd.recv()
                except (EOFError, OSError):
                    res = None
                if res is None:
                    p.join(1.0)
                    if p.exitcode is None:
                        continue
                    res = {"status": "crashed", "applied": [], "refused": [],
                           "message": _exit_text(p.exitcode)}
            elif now - t0 > timeout:
                p.kill()
                res = {"status": "crashed", "applied": [], "refused": [],
                       "message": f"timeout: no result after {timeout:.0f} s (hang?)"}
            else:
                continue
            p.join(5.0)
            rd.close()
            del running[key]
            res["case"] = case
            results[case["id"]] = res
            if on_result:
                on_result(res)
    return [results[c["id"]] for c in order]


def _exit_text(code: int) -> str:
    import signal

    if code < 0:
        try:
            return f"child killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"child killed by signal {-code}"
    return f"child exited with status {code} without a result"


# ------------------------------------------------------------------------------ shrinking
def _spec_candidates(spec: dict):
    simpler = {"sym": False, "prologue": False, "epilogue": False, "init": None, "where": False,
               "two_axes": False, "dtype": "float32", "bcast": "none", "depth": 1,
               "reducer": "sum", "pad": 1, "r": 1, "padval": 0}
    for k, v in simpler.items():
        if k in spec and spec[k] != v:
            yield dict(spec, **{k: v})
    for k in ("n", "m", "k"):
        x = spec[k]
        for y in sorted({1, 2, x // 2, x - 1}):
            if 1 <= y < x:
                yield dict(spec, **{k: y})


def _same_failure(a: dict, b: dict) -> bool:
    if a["status"] != b["status"]:
        return False
    if a["status"] == "internal":  # the same exception type
        return a["message"].split(":")[0] == b["message"].split(":")[0]
    return True


def shrink(case: dict, result: dict, jobs: int = 2, budget: int = 60) -> tuple:
    """Greedy shrink of a failing ``case``; returns (smallest case, its result)."""
    best, best_res, tries = case, result, 0
    progress = True
    while progress and tries < budget:
        progress = False
        cands = [dict(best, steps=best["steps"][:i] + best["steps"][i + 1:])
                 for i in range(len(best["steps"]) - 1, -1, -1)]
        cands += [dict(best, spec=s) for s in _spec_candidates(best["spec"])]
        for i in range(0, len(cands), jobs):
            batch = [dict(c, id=10**9 + tries + j) for j, c in enumerate(cands[i:i + jobs])]
            tries += len(batch)
            found = None
            for c, r in zip(batch, run_isolated(batch, jobs)):
                if _same_failure(result, r):
                    found = (c, r)
                    break
            if found:
                best, best_res = found
                progress = True
                break
            if tries >= budget:
                break
    return best, best_res


# ----------------------------------------------------------------------- reporting
def repro(case: dict, res: dict) -> str:
    """The minimal case as text: program spec and the primitives applied."""
    lines = [f"program {case['spec']}", f"api {case['api']}, input seed {case['seed']}"]
    lines += ["  " + a for a in res.get("applied", [])]
    if res.get("refused"):
        lines.append(f"  ({len(res['refused'])} steps refused on the way)")
    lines.append(f"-> {res['status']}: {res.get('message', '')}")
    return "\n".join(lines)


def summarize(results: List[dict]) -> dict:
    """Counts overall and per API."""
    per = defaultdict(Counter)
    for r in results:
        for key in ("all", r["case"]["api"]):
            per[key]["cases"] += 1
            per[key][r["status"]] += 1
            per[key]["steps_applied"] += len(r.get("applied", []))
            per[key]["steps_refused"] += len(r.get("refused", []))
    return per


def format_counts(per: dict) -> str:
    cols = ["cases"] + STATUSES + ["steps_applied", "steps_refused"]
    head = f"{'api':<5}" + "".join(f"{c:>15}" for c in cols)
    rows = [head] + [f"{k:<5}" + "".join(f"{per[k][c]:>15}" for c in cols)
                     for k in ("all", "te", "tir") if k in per]
    return "\n".join(rows)


def signature(case: dict, res: dict) -> tuple:
    """Groups failures: status, API, exception type / first words, primitive names."""
    msg = res.get("message", "")
    head = msg.split(":")[0] if res["status"] in ("internal", "crashed") else ""
    ops = tuple(sorted({a.split("(")[0].split(".")[-1] for a in res.get("applied", [])}))
    return (res["status"], case["api"], head, case["spec"]["kind"], ops)
