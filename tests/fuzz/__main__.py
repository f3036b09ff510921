"""Differential schedule fuzzer: ``python -m tests.fuzz --cases 10000 --seed 1 --jobs 2``.

Prints counts (cases, built, refused, wrong, crashed, internal errors; overall and per
schedule API) and, for each distinct failure, its shrunk minimal repro; exits with status 1
when anything failed (every root cause found so far is fixed: none is excused as known).
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time

from .driver import (
    FAILURES,
    format_counts,
    make_cases,
    repro,
    run_isolated,
    shrink,
    signature,
    summarize,
)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--api", choices=["te", "tir", "both"], default="both")
    ap.add_argument("--shrink", type=int, default=60, help="shrink attempts per failure kind")
    ap.add_argument("--json", help="write every failing result to this file")
    args = ap.parse_args(argv)
    apis = ("te", "tir") if args.api == "both" else (args.api,)
    cases = make_cases(args.cases, args.seed, apis, args.start)
    t0 = time.time()
    done = [0]

    partial = []

    def progress(res):
        partial.append(res)
        done[0] += 1
        if res["status"] in FAILURES:
            print(f"[{done[0]}/{len(cases)}] case {res['case']['id']} {res['case']['api']}: "
                  f"{res['status']}: {res['message'][:160]}", flush=True)
        elif done[0] % 200 == 0:
            print(f"[{done[0]}/{len(cases)}] {time.time() - t0:.0f} s", flush=True)

    signal.signal(signal.SIGTERM, _interrupt)
    try:
        results = run_isolated(cases, args.jobs, on_result=progress)
    except KeyboardInterrupt:  # report what ran (in completion order), unshrunk
        results, args.shrink = partial, 0
        args.cases = len(partial)
        print(f"\ninterrupted: reporting the {len(partial)} finished cases")
    print(f"\nseed {args.seed}, cases {args.start}..{args.start + args.cases - 1}, "
          f"{time.time() - t0:.0f} s")
    print(format_counts(summarize(results)))
    groups = {}
    for r in results:
        if r["status"] in FAILURES:
            groups.setdefault(signature(r["case"], r), []).append(r)
    failing = []
    for sig, rs in groups.items():
        case, res = shrink(rs[0]["case"], rs[0], args.jobs, args.shrink) if args.shrink else (
            rs[0]["case"], rs[0])
        print(f"\n=== {len(rs)} x {sig[0]} ({sig[1]}, {sig[3]})"
              f"  cases {[x['case']['id'] for x in rs[:8]]}")
        print(repro(case, res))
        failing.append({"signature": list(sig), "count": len(rs),
                        "case": case, "result": {k: v for k, v in res.items() if k != "case"}})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(failing, f, indent=1, default=str)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
