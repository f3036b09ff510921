"""Randomized schedules: random primitive sequences on random small computes (elementwise
chains, matmul, a conv-like stencil with a reduction), checked against numpy with the block
interpreter (which also checks every access is in bounds, every iterator in its domain and
no uninitialised value is read).

A primitive may refuse with ScheduleError; any other exception, or a wrong result, fails.
The suite runs a fast subset; ``TVMLITE_SCHEDULE_FUZZ=<cases>`` runs more.
"""
import os
import random

import numpy as np

import tvmlite
from tvmlite import te
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError


def _chain(rng):
    n, m = rng.randint(1, 9), rng.randint(1, 9)
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + 1.0, name="C")
    D = te.compute((n, m), lambda i, j: C[i, j] * B[i, j], name="D")
    return [A, D], lambda a: (a * 2 + 1) * (a * 2)


def _matmul(rng):
    n, m, k = rng.randint(1, 8), rng.randint(1, 8), rng.randint(1, 8)
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    D = te.compute((n, m), lambda i, j: C[i, j] + 1.0, name="D")
    return [A, B, D], lambda a, b: a @ b + 1


def _conv(rng):
    n, w = rng.randint(2, 9), rng.randint(1, 4)
    A = te.placeholder((n + w - 1,), name="A")
    W = te.placeholder((w,), name="W")
    P = te.compute((n + w - 1,), lambda i: A[i] + 0.5, name="P")
    r = te.reduce_axis((0, w), name="r")
    C = te.compute((n,), lambda i: te.sum(P[i + r] * W[r], axis=r), name="C")
    return [A, W, C], lambda a, ww: np.convolve(a + 0.5, ww[::-1], mode="valid")


def _blocks(s):
    return [b.name for b in s.get_child_blocks(s.get_block("root"))] if _has_root(s) else []


def _has_root(s):
    try:
        s.get_block("root")
        return True
    except ScheduleError:
        return False


def _step(s, rng):
    names = _blocks(s)
    if not names:
        return None
    b = s.get_block(rng.choice(names))
    loops = s.get_loops(b)
    op = rng.choice(["split", "split", "fuse", "reorder", "compute_at", "compute_at",
                     "reverse_compute_at", "compute_inline", "reverse_compute_inline",
                     "cache_read", "cache_write", "decompose_reduction", "rfactor", "kind"])
    if op in ("split", "fuse", "reorder", "decompose_reduction", "rfactor", "kind") \
            and not loops:
        return None
    if op == "split":
        f = rng.randint(1, 5)
        factors = rng.choice([[None, f], [f, None], [2, None, f]])
        s.split(rng.choice(loops), factors)
    elif op == "fuse":
        k = rng.randrange(len(loops))
        s.fuse(*loops[k:k + rng.randint(1, 2)])
    elif op == "reorder":
        sub = rng.sample(loops, min(len(loops), rng.randint(2, 3)))
        s.reorder(*sub)
    elif op in ("compute_at", "reverse_compute_at"):
        other = s.get_block(rng.choice(names))
        ol = s.get_loops(other)
        if not ol:
            return None
        getattr(s, op)(b, rng.choice(ol), preserve_unit_loops=rng.random() < 0.5)
    elif op in ("compute_inline", "reverse_compute_inline"):
        getattr(s, op)(b)
    elif op == "cache_read":
        reads = s.get(b).reads
        if not reads:
            return None
        s.cache_read(b, rng.randrange(len(reads)), rng.choice(["shared", "local"]))
    elif op == "cache_write":
        s.cache_write(b, 0, rng.choice(["shared", "local"]))
    elif op == "decompose_reduction":
        s.decompose_reduction(b, rng.choice(loops))
    elif op == "rfactor":
        s.rfactor(rng.choice(loops), rng.randint(0, 1))
    else:
        getattr(s, rng.choice(["parallel", "vectorize", "unroll"]))(rng.choice(loops))
    return op


def run_case(seed: int, steps: int = 6, build: bool = False):
    """Apply up to ``steps`` random primitives; returns the ones that succeeded. With
    ``build`` the scheduled module is also compiled (lowering + C backend) and checked."""
    rng = random.Random(seed)
    args, ref = rng.choice([_chain, _matmul, _conv])(rng)
    s = Schedule(te.create_prim_func(args))
    done = []
    for _ in range(steps):
        try:
            op = _step(s, rng)
        except ScheduleError:
            continue
        if op:
            done.append(op)
    np_rng = np.random.default_rng(seed)
    ins = [np_rng.random([int(d) for d in t.shape], dtype=np.float32) for t in args[:-1]]
    out = np.zeros([int(d) for d in args[-1].shape], "float32")
    try:
        interpret(s.mod["main"], *ins, out)
        np.testing.assert_allclose(out, ref(*ins), rtol=1e-4, atol=1e-4)
        if build:
            rt = tvmlite.build(s.mod, target="llvm")
            got = tvmlite.nd.array(np.zeros_like(out))
            rt(*[tvmlite.nd.array(x) for x in ins], got)
            np.testing.assert_allclose(got.numpy(), ref(*ins), rtol=1e-4, atol=1e-4)
    except Exception as e:
        raise AssertionError(f"seed {seed}, primitives {done}:\n{s.trace}\n"
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
