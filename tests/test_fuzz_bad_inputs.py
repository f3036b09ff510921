"""A bad-input fuzzer: misuse tvmlite the way a new user would and check that every case gives
a clear error (a TVMError, ValueError or TypeError at the API boundary, with a message), is
accepted and computes the right thing, and never crashes the process.

Families: constructors with wrong types/values (placeholders, constants, computes, reduce
axes, vars, NDArrays, targets, split factors), call-time arguments (shapes, dtypes, ndim,
devices, None, strides, count), TVMScript mutations (literals, dtypes, names, lines), loaded
files (truncated, zero-filled, random bytes, flipped bytes) and the AutoTVM API and log lines.

Every case runs in a worker process; a worker that dies takes the blame for its case (the
signal is reported) and is replaced. CI runs a bounded slice; for thousands of cases::

    PYTHONPATH=$PWD python tests/test_fuzz_bad_inputs.py --cases 3000 --seed 1 --workers 2

prints the count of each outcome per family (and the first cases of each bad outcome).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback

FAMILIES = ("constructor", "call_args", "tvmscript", "loaded_file", "autotvm")
# MemoryError: numpy's "Unable to allocate 1.00 TiB for an array with shape (...)"
CLEAR_TYPES = ("TVMError", "ValueError", "TypeError", "MemoryError")
CI_CASES = int(os.environ.get("TVMLITE_FUZZ_CASES", "500"))
CI_SEED = int(os.environ.get("TVMLITE_FUZZ_SEED", "20261124"))

BAD_VALUES = [None, -1, 0, 1, 3, 2**31, 2**63, 2**64, -2**40, 1.5, float("nan"), float("inf"),
              "3", "x", "", [], [3], (2, -1), (0,), True, {}, b"\x00", (1 << 20, 1 << 20)]
BAD_DTYPES = ["float32", "int8", "uint8", "uint64", "handle", "float", "int", "int33", "floatx",
              "", None, 3, "bool", "float16", "int64x4", "custom[x]", "float32x0", "void"]
BAD_NAMES = ["A", "A", "int", "for", "1x", "a b", "", "tvml_x", "__tvmlite_metadata",
             "x" * 300, "ä", "A;B", "printf", "main", None, 7]


# ============================================================================ case bodies
def _pick(rng, pool):
    return pool[rng.randrange(len(pool))]


def case_constructor(rng: random.Random, ctx: dict):
    import numpy as np

    import tvmlite as tvm
    from tvmlite import te, tir

    kind = rng.randrange(9)
    if kind == 0:
        shape = _pick(rng, BAD_VALUES + [(4, 5), (3,)])
        te.placeholder(shape, dtype=_pick(rng, BAD_DTYPES), name=_pick(rng, BAD_NAMES))
    elif kind == 1:
        tir.const(_pick(rng, BAD_VALUES), _pick(rng, BAD_DTYPES))
    elif kind == 2:
        A = te.placeholder((7,), name="A")
        shape = _pick(rng, BAD_VALUES + [(7,)])
        fn = _pick(rng, [lambda i: A[i] * 2.0, lambda i: A[i, i], lambda i: A, lambda i: None,
                         lambda i, j: A[i], lambda i: "x", lambda i: A[i + 100],
                         lambda i: A[i] // 0.0])
        B = te.compute(shape, fn, name=_pick(rng, BAD_NAMES))
        f = tvm.build(te.create_schedule(B.op), [A, B])
        a = tvm.nd.array(np.random.rand(7).astype("float32"))
        f(a, tvm.nd.empty(B.shape and [int(x) for x in B.shape], B.dtype))
    elif kind == 3:
        te.reduce_axis(_pick(rng, BAD_VALUES + [(0, 4), (4, 0), (0, -1)]),
                       name=_pick(rng, BAD_NAMES))
    elif kind == 4:
        te.var(_pick(rng, BAD_NAMES), dtype=_pick(rng, BAD_DTYPES))
    elif kind == 5:
        obj = _pick(rng, BAD_VALUES + [np.zeros((2, 3), "complex64"), np.array(["a"]),
                                       np.zeros((2, 3), "float32")[:, ::2]])
        tvm.nd.array(obj)
        tvm.nd.empty(_pick(rng, BAD_VALUES + [(2, 3)]), _pick(rng, BAD_DTYPES))
    elif kind == 6:
        tvm.target.Target(_pick(rng, ["llvm -mcpu=nonsense", "cuda -arch=x", "", "llvm -x",
                                      "no_such", None, 3, "c -keys=", "llvm -mcpu="]))
    elif kind == 7:
        A = te.placeholder((10,), name="A")
        B = te.compute((10,), lambda i: A[i] + 1.0, name="B")
        s = te.create_schedule(B.op)
        kw = _pick(rng, ["factor", "nparts"])
        s[B].split(B.op.axis[0], **{kw: _pick(rng, BAD_VALUES)})
        f = tvm.build(s, [A, B])
        a = np.random.rand(10).astype("float32")
        b = tvm.nd.empty((10,))
        f(tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a + 1)
    else:
        A = te.placeholder((6,), name=_pick(rng, BAD_NAMES[:10]))
        B = te.placeholder((6,), name=_pick(rng, BAD_NAMES[:10]))
        C = te.compute((6,), lambda i: A[i] - B[i], name=_pick(rng, BAD_NAMES[:10]))
        f = tvm.build(te.create_schedule(C.op), [A, B, C], name=_pick(rng, BAD_NAMES))
        a, b = np.random.rand(6).astype("float32"), np.random.rand(6).astype("float32")
        c = tvm.nd.empty((6,))
        f(tvm.nd.array(a), tvm.nd.array(b), c)
        np.testing.assert_allclose(c.numpy(), a - b, rtol=1e-6)


def _kernel(ctx):
    import tvmlite as tvm
    from tvmlite import te

    if "kernel" not in ctx:
        n = te.var("n")
        A = te.placeholder((n, 5), name="A")
        B = te.compute((n, 5), lambda i, j: A[i, j] * 2.0, name="B")
        ctx["kernel"] = tvm.build(te.create_schedule(B.op), [A, B])
    return ctx["kernel"]


def case_call_args(rng: random.Random, ctx: dict):
    import numpy as np

    import tvmlite as tvm

    f = _kernel(ctx)
    n = rng.randrange(1, 6)
    a_np = np.random.rand(n, 5).astype("float32")

    def good():
        return tvm.nd.array(a_np), tvm.nd.empty((n, 5))

    a, b = good()
    kind = rng.randrange(10)
    if kind == 0:
        b = tvm.nd.empty(_pick(rng, [(n, 4), (n + 1, 5), (5, n), (n,), (n, 5, 1), ()]))
    elif kind == 1:
        b = tvm.nd.empty((n, 5), _pick(rng, ["float64", "int32", "float16", "uint8"]))
    elif kind == 2:
        a = _pick(rng, [None, a_np, a_np.tolist(), 3, "A", object()])
    elif kind == 3:
        args = [a, b, a][: rng.randrange(4)]
        f(*args)
        return
    elif kind == 4:
        big = tvm.nd.array(np.random.rand(n, 10).astype("float32"))
        a = big._create_view((n, 5)) if hasattr(big, "_create_view") else \
            tvm.nd.array(np.random.rand(n, 10).astype("float32")[:, ::2])
    elif kind == 5:
        b = tvm.nd.empty((n, 5), device=_pick(rng, [tvm.cuda(0), tvm.cpu(1)]))
    elif kind == 6:
        a = tvm.nd.array(np.random.rand(n, 5).astype("float32"))
        b = a  # in-place: allowed, B = 2 * A
        f(a, b)
        np.testing.assert_allclose(b.numpy(), np.asarray(a.numpy()), rtol=0)
        return
    elif kind == 7:
        f(a=a, b=b)
        return
    elif kind == 8:
        f.time_evaluator(_pick(rng, [f.entry_name, "nope", 3, None]), tvm.cpu(),
                         number=_pick(rng, [1, 0, -1, "2"]))(a, b)
        return
    else:
        a = tvm.nd.array(np.random.rand(n, 5).astype("float32"))
        b = tvm.nd.empty((n, 5))
    f(a, b)
    np.testing.assert_allclose(b.numpy(), 2 * a.numpy(), rtol=1e-6)


SCRIPTS = ['''
@T.prim_func
def f(A: T.Buffer((8, 6), "float32"), B: T.Buffer((8, 6), "float32")):
    for i, j in T.grid(8, 6):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
''', '''
@T.prim_func
def f(A: T.Buffer((16,), "int32"), B: T.Buffer((4,), "int32")):
    for i, k in T.grid(4, 4):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = 0
            B[vi] = B[vi] + A[vi * 4 + vk] // 2
''', '''
@T.prim_func
def f(A: T.Buffer((10,), "float32"), B: T.Buffer((12,), "float32")):
    for i in range(12):
        B[i] = T.if_then_else(1 <= i and i < 11, A[i - 1], T.float32(0))
''']


def _mutate_script(rng, text: str) -> str:
    import re

    lines = text.strip("\n").split("\n")
    for _ in range(rng.randrange(1, 3)):
        kind = rng.randrange(6)
        k = rng.randrange(1, len(lines))
        if kind == 0:
            nums = list(re.finditer(r"(?<![\w.])\d+(?![\w.])", lines[k]))
            if nums:
                m = _pick(rng, nums)
                new = str(_pick(rng, [0, -1, 1, 2**31, 2**31 + 7, 10**12, 100, 7, 2**63]))
                lines[k] = lines[k][:m.start()] + new + lines[k][m.end():]
        elif kind == 1:
            lines[k] = re.sub(r'"(float32|int32)"', '"%s"' % _pick(
                rng, ["handle", "int8", "uint8", "float64", "bool", "int33", "x"]), lines[k])
        elif kind == 2:
            lines[k] = lines[k].replace(_pick(rng, ["A", "B", "vi", "i"]),
                                        _pick(rng, ["A", "B", "vi", "i", "zz"]))
        elif kind == 3:
            del lines[k]
        elif kind == 4:
            lines.insert(k, lines[k])
        else:
            lines[k] = lines[k].replace("SS", _pick(rng, ["SR", "RS", "S", "SSS", "XX"])) \
                .replace("SR", _pick(rng, ["SS", "RR", "R"]))
    return "\n".join(lines) + "\n"


def case_tvmscript(rng: random.Random, ctx: dict):
    import numpy as np

    import tvmlite as tvm
    from tvmlite.script import from_source

    text = _mutate_script(rng, _pick(rng, SCRIPTS))
    func = from_source(text)
    m = tvm.build(func)
    args = []
    for p in func.params:
        buf = func.buffer_map.get(p)
        if buf is None:
            args.append(1)
            continue
        shape = [int(x) for x in buf.shape]
        if any(x > 1 << 16 for x in shape):
            return  # built; too big to run here
        args.append(tvm.nd.array((np.random.rand(*shape) * 10).astype(buf.dtype)))
    m(*args)


def _exported(ctx):
    import tvmlite as tvm
    from tvmlite import te

    if "exported" not in ctx:
        A = te.placeholder((9,), name="A")
        B = te.compute((9,), lambda i: A[i] * 2.0 + 1.0, name="B")
        f = tvm.build(te.create_schedule(B.op), [A, B])
        d = tempfile.mkdtemp(prefix="tvmlite-fuzz-")
        out = {}
        for ext in ("so", "tar", "o"):
            out[ext] = os.path.join(d, f"k.{ext}")
            f.save(out[ext]) if ext == "o" else f.export_library(out[ext])
        ctx["exported"] = (d, {k: open(p, "rb").read() for k, p in out.items()})
    return ctx["exported"]


def case_loaded_file(rng: random.Random, ctx: dict):
    import numpy as np

    import tvmlite as tvm

    d, files = _exported(ctx)
    ext = _pick(rng, ["so", "so", "tar", "o"])
    src = bytearray(files[ext])
    kind = rng.randrange(4)
    cut = rng.randrange(len(src))
    if kind == 0:
        data = bytes(src[:cut])
    elif kind == 1:
        data = bytes(src[:cut]) + b"\0" * (len(src) - cut)
    elif kind == 2:
        data = bytes(src[:cut]) + rng.randbytes(len(src) - cut)
    else:
        for _ in range(rng.randrange(1, 8)):
            src[rng.randrange(len(src))] = rng.randrange(256)
        data = bytes(src)
    p = os.path.join(d, f"bad{os.getpid()}.{ext}")
    with open(p, "wb") as fh:
        fh.write(data)
    m = tvm.runtime.load_module(p)
    a, b = np.arange(9, dtype="float32"), tvm.nd.empty((9,))
    m(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2 + 1)  # what loads must be the same kernel


GOOD_RECORD = {
    "input": ["llvm -keys=cpu", "fuzz/add", [16], {}],
    "config": {"index": 0, "code_hash": None, "entity": [["tile", "sp", [-1, 4]]]},
    "result": [[0.001], 0, 0.5, 1700000000.0], "version": 0.2, "tvm_version": "0.8.0"}


def _paths(x, p=()):
    yield p
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _paths(v, p + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _paths(v, p + (i,))


def case_autotvm(rng: random.Random, ctx: dict):
    import copy

    from tvmlite import autotvm
    from tvmlite.autotvm import record

    kind = rng.randrange(5)
    if kind == 4:
        if "task" not in ctx:
            _register_template()
            ctx["task"] = autotvm.task.create("fuzz/add", args=(16,), target="llvm")
        v = _pick(rng, BAD_VALUES)
        what = rng.randrange(5)
        if what == 0:
            getattr(autotvm.tuner, _pick(rng, ["RandomTuner", "GridSearchTuner", "GATuner",
                                               "XGBTuner"]))(v)
        elif what == 1:
            autotvm.task.create(_pick(rng, ["fuzz/add", "no/such", v]),
                                args=_pick(rng, [(16,), (v,), v]), target="llvm")
        elif what == 2:
            record.decode(v)
        elif what == 3:
            autotvm.apply_history_best(v)
        else:
            list(record.load_from_file(v))
        return
    if kind <= 1:
        d = copy.deepcopy(GOOD_RECORD)
        paths = list(_paths(d))[1:]
        for _ in range(rng.randrange(1, 3)):
            path = _pick(rng, paths)
            node = d
            try:
                for k in path[:-1]:
                    node = node[k]
                node[path[-1]] = _pick(rng, [v for v in BAD_VALUES if not isinstance(v, bytes)])
            except (KeyError, IndexError, TypeError):
                pass
        line = json.dumps(d)
        if rng.random() < 0.3:
            line = line[:rng.randrange(len(line))]
        if kind == 0:
            record.decode(line)
        else:
            fd, p = tempfile.mkstemp(suffix=".log")
            with os.fdopen(fd, "w") as fh:
                fh.write(json.dumps(GOOD_RECORD) + "\n" + line + "\n")
            try:
                recs = list(record.load_from_file(p, skip_invalid=True))
                assert len(recs) >= 1
                autotvm.apply_history_best(p)
            finally:
                os.unlink(p)
    elif kind == 2:
        ctor = _pick(rng, ["LocalRunner", "LocalBuilder", "measure_option"])
        arg = {"LocalRunner": ["timeout", "number", "repeat", "min_repeat_ms",
                               "cooldown_interval"],
               "LocalBuilder": ["timeout", "n_parallel", "build_func"],
               "measure_option": ["builder", "runner", "other"]}[ctor]
        getattr(autotvm, ctor)(**{_pick(rng, arg): _pick(rng, BAD_VALUES)})
    else:
        if "task" not in ctx:
            _register_template()
            ctx["task"] = autotvm.task.create("fuzz/add", args=(16,), target="llvm")
        tuner = autotvm.tuner.RandomTuner(ctx["task"])
        bad = {"n_trial": _pick(rng, [-1, "3", 2.5, None, True, [1]]),
               "early_stopping": _pick(rng, ["x", -2, 1.5]),
               "measure_option": _pick(rng, [None, {}, "local", 3]),
               "callbacks": _pick(rng, [print, ["x"], 3, "cb"])}
        kw = {"n_trial": 1, "measure_option": autotvm.measure_option(), "callbacks": ()}
        key = _pick(rng, sorted(bad))
        kw[key] = bad[key]
        tuner.tune(**kw)


def _register_template():
    from tvmlite import autotvm, te

    @autotvm.template("fuzz/add")
    def add(n):
        A = te.placeholder((n,), name="A")
        B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
        s = te.create_schedule(B.op)
        cfg = autotvm.get_config()
        cfg.define_split("tile", B.op.axis[0], num_outputs=2)
        cfg["tile"].apply(s, B, B.op.axis[0])
        return s, [A, B]


CASES = {"constructor": case_constructor, "call_args": case_call_args,
         "tvmscript": case_tvmscript, "loaded_file": case_loaded_file, "autotvm": case_autotvm}


# ============================================================================ classification
def classify(exc: BaseException | None) -> str:
    """'accepted', 'clear' or 'unclear' for what a case raised."""
    if exc is None:
        return "accepted"
    names = {c.__name__ for c in type(exc).__mro__}
    msg = str(exc)
    if isinstance(exc, AssertionError):
        return "wrong"          # accepted, but computed something else
    if not names & set(CLEAR_TYPES) or not msg.strip():
        return "unclear"
    if "Compiler output" in msg or "Traceback" in msg:
        return "unclear"        # raw C compiler output for a user's mistake
    return "clear"


def _worker() -> None:
    """Read ``family seed`` lines, run each case, write one JSON line per case."""
    import warnings

    warnings.simplefilter("ignore")
    import logging

    logging.getLogger("autotvm").setLevel(logging.ERROR)
    ctx: dict = {}
    out = sys.stdout
    sys.stdout = open(os.devnull, "w")  # cases must not corrupt the protocol
    for line in sys.stdin:
        fam, seed = line.split()
        rng = random.Random(f"{fam}:{seed}")
        exc = None
        try:
            CASES[fam](rng, ctx)
        except BaseException as e:  # noqa: BLE001  (classified, not swallowed)
            exc = e
        kind = classify(exc)
        detail = "" if exc is None else f"{type(exc).__name__}: {str(exc)[:300]}"
        if kind in ("unclear", "wrong"):
            detail += " @ " + "".join(traceback.format_tb(exc.__traceback__)[-2:])[-400:]
        out.write(json.dumps({"family": fam, "seed": int(seed), "kind": kind,
                              "detail": detail}) + "\n")
        out.flush()


class _Worker:
    def __init__(self):
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1)

    def run(self, fam: str, seed: int, timeout: float) -> dict:
        self.proc.stdin.write(f"{fam} {seed}\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if line:
            return json.loads(line)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            return {"family": fam, "seed": seed, "kind": "timeout", "detail": f"> {timeout} s"}
        rc = self.proc.wait()
        sig = f"signal {signal.Signals(-rc).name}" if rc < 0 else f"exit {rc}"
        return {"family": fam, "seed": seed, "kind": "crash", "detail": sig}

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


def run_fuzz(n_cases: int, seed: int, n_workers: int = 1, timeout: float = 120.0,
             families=FAMILIES) -> dict:
    """Run ``n_cases`` cases (families in turn) in ``n_workers`` worker processes."""
    import concurrent.futures as cf

    plan = [(families[i % len(families)], seed * 1_000_003 + i) for i in range(n_cases)]
    chunks = [plan[k::n_workers] for k in range(n_workers)]

    def drive(chunk):
        w, results = _Worker(), []
        for fam, s in chunk:
            r = w.run(fam, s, timeout)
            results.append(r)
            if r["kind"] in ("crash", "timeout"):
                w = _Worker()
        w.close()
        return results

    with cf.ThreadPoolExecutor(n_workers) as ex:
        results = [r for rs in ex.map(drive, chunks) for r in rs]
    counts = collections.defaultdict(collections.Counter)
    for r in results:
        counts[r["family"]][r["kind"]] += 1
    bad = [r for r in results if r["kind"] not in ("accepted", "clear")]
    return {"counts": {k: dict(v) for k, v in counts.items()}, "bad": bad, "n": len(results)}


def test_bad_inputs_fuzz_ci_slice():
    t = time.time()
    res = run_fuzz(CI_CASES, CI_SEED, n_workers=2)
    assert res["n"] == CI_CASES
    msg = json.dumps(res["counts"]) + "\n" + "\n".join(
        f"{r['family']} seed={r['seed']} {r['kind']}: {r['detail']}" for r in res["bad"][:10])
    assert not res["bad"], msg
    assert time.time() - t < 300


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--family", action="append", choices=FAMILIES)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        _worker()
        return 0
    t = time.time()
    res = run_fuzz(args.cases, args.seed, args.workers, families=tuple(args.family or FAMILIES))
    total = collections.Counter()
    for fam, c in sorted(res["counts"].items()):
        total.update(c)
        print(f"{fam:12s} {dict(sorted(c.items()))}")
    print(f"{'all':12s} {dict(sorted(total.items()))}  ({res['n']} cases, seed {args.seed}, "
          f"{time.time() - t:.0f} s)")
    for r in res["bad"][:40]:
        print(f"  {r['family']} seed={r['seed']} {r['kind']}: {r['detail'][:500]}")
    return 1 if res["bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
