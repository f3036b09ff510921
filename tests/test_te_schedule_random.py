"""Randomized TE schedules: random computes, random sequences of primitives, checked against
numpy. ``TVMLITE_RANDOM_CASES=N`` runs N cases (the suite runs a fast subset)."""
import os
import random

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te

N_CASES = int(os.environ.get("TVMLITE_RANDOM_CASES", "24"))
DTYPES = ["float32", "float64", "int32", "int8", "float16"]


def _workload(rng):
    kind = rng.choice(["chain", "matmul", "conv"])
    if kind == "chain":
        n, m = rng.randint(3, 40), rng.randint(3, 40)
        A = te.placeholder((n, m), name="A", dtype=rng.choice(DTYPES))
        P = te.compute((n, m), lambda i, j: A[i, j] * 2 + 1, name="P")
        C = te.compute((n, m), lambda i, j: P[i, j] * P[i, j] - A[i, j], name="C")

        def ref(a):
            return (a * 2 + 1) ** 2 - a

        return [A], C, [P], ref
    if kind == "matmul":
        n, m, l = (rng.randint(2, 40) for _ in range(3))
        dt = rng.choice(DTYPES[:4])  # numpy's float16 matmul accumulates more precisely
        A = te.placeholder((n, l), name="A", dtype=dt)
        B = te.placeholder((l, m), name="B", dtype=dt)
        k = te.reduce_axis((0, l), name="k")
        C = te.compute((n, m), lambda x, y: te.sum(A[x, k] * B[k, y], axis=k), name="C")
        return [A, B], C, [], lambda a, b: a @ b
    n, kw = rng.randint(4, 40), rng.randint(1, 4)
    A = te.placeholder((n + kw - 1,), name="A")
    W = te.placeholder((kw,), name="W")
    Pd = te.compute((n + kw - 1,), lambda i: A[i] + 0.5, name="Pd")
    r = te.reduce_axis((0, kw), name="r")
    C = te.compute((n,), lambda i: te.sum(Pd[i + r] * W[r], axis=r), name="C")

    def ref(a, w):
        return np.convolve(a + 0.5, w[::-1], mode="valid")

    return [A, W], C, [Pd], ref


def _schedule(rng, s, C, producers, inputs, log):
    st = s[C]
    early = []
    if producers and rng.random() < 0.3:
        # classic TE is declarative: attach first, then split/fuse/reorder the consumer
        for P in producers:
            iv = rng.choice(st.leaf_iter_vars)
            s[P].compute_at(st, iv)
            early.append(P)
            log.append(f"{P.op.name}.compute_at({iv.var.name}) (before the splits)")
    if rng.random() < 0.2:
        iv = rng.choice(st.leaf_iter_vars)  # annotated, then maybe split: ignored if so
        if iv.iter_type != 2:
            st.parallel(iv)
            log.append(f"parallel({iv.var.name}) (before the splits)")
    for _ in range(rng.randint(0, 4)):
        leaves = list(st.leaf_iter_vars)
        op = rng.choice(["split", "split", "reorder", "fuse", "tile"])
        if op == "split":
            iv = rng.choice(leaves)
            if rng.random() < 0.7:
                f = rng.randint(1, 9)
                st.split(iv, factor=f)
                log.append(f"split({iv.var.name}, factor={f})")
            else:
                p = rng.randint(1, 5)
                st.split(iv, nparts=p)
                log.append(f"split({iv.var.name}, nparts={p})")
        elif op == "reorder" and len(leaves) > 1:
            perm = leaves[:]
            rng.shuffle(perm)
            st.reorder(*perm)
            log.append("reorder(" + ", ".join(iv.var.name for iv in perm) + ")")
        elif op == "fuse" and len(leaves) > 1:
            i = rng.randrange(len(leaves) - 1)
            a, b = leaves[i], leaves[i + 1]
            if (a.iter_type == 2) == (b.iter_type == 2):
                st.fuse(a, b)
                log.append(f"fuse({a.var.name}, {b.var.name})")
        elif op == "tile" and len(C.op.axis) == 2 and all(
                any(x is a for x in leaves) for a in C.op.axis):
            fx, fy = rng.randint(1, 8), rng.randint(1, 8)
            st.tile(*C.op.axis, fx, fy)
            log.append(f"tile({fx}, {fy})")
    spatial = [iv for iv in st.leaf_iter_vars if iv.iter_type != 2]
    if spatial and rng.random() < 0.5:
        st.parallel(spatial[0])
        log.append(f"parallel({spatial[0].var.name})")
    if spatial and rng.random() < 0.5:
        st.vectorize(spatial[-1])
        log.append(f"vectorize({spatial[-1].var.name})")
    elif rng.random() < 0.2:
        iv = st.leaf_iter_vars[-1]  # maybe a reduction loop: stays serial
        st.vectorize(iv)
        log.append(f"vectorize({iv.var.name})")
    if rng.random() < 0.3:
        iv = rng.choice(st.leaf_iter_vars)
        st.unroll(iv)
        log.append(f"unroll({iv.var.name})")
    for P in producers:
        if any(P is e for e in early):
            continue
        r = rng.random()
        if r < 0.3:
            s[P].compute_inline()
            log.append(f"{P.op.name}.compute_inline()")
        elif r < 0.7:
            iv = rng.choice(st.leaf_iter_vars)
            s[P].compute_at(st, iv)
            log.append(f"{P.op.name}.compute_at({iv.var.name})")
    if rng.random() < 0.3:
        inp = rng.choice(inputs)
        if any(t is inp for t in st.op.input_tensors):
            c = s.cache_read(inp, "local", [C])
            iv = rng.choice(st.leaf_iter_vars)
            s[c].compute_at(st, iv)
            log.append(f"cache_read({inp.op.name}).compute_at({iv.var.name})")


@pytest.mark.parametrize("case", range(N_CASES))
def test_random_te_schedule(case):
    rng = random.Random(1000 + case)
    inputs, C, producers, ref = _workload(rng)
    s = te.create_schedule(C.op)
    log = []
    if rng.random() < 0.25 and C.op.reduce_axis:
        CC = s.cache_write(C, "local")
        log.append("cache_write(C)")
        if rng.random() < 0.5:
            xo = s[C].split(C.op.axis[0], factor=rng.randint(1, 8))[0]
            s[CC].compute_at(s[C], xo)
        else:  # attach at x, then split x: the cache follows to x.inner
            s[CC].compute_at(s[C], C.op.axis[0])
            s[C].split(C.op.axis[0], factor=rng.randint(1, 8))
        _schedule(rng, s, CC, [], inputs, log)
    else:
        _schedule(rng, s, C, producers, inputs, log)
    # every third case also proves the scheduled code never reads or writes out of bounds
    config = {"tir.instrument_bound_checkers": case % 3 == 0}
    with tvm.transform.PassContext(config=config):
        f = tvm.build(s, inputs + [C])
    np_rng = np.random.default_rng(case)
    ins = [(np_rng.integers(-5, 6, [int(d) for d in t.shape]) if "int" in t.dtype else
            np_rng.standard_normal([int(d) for d in t.shape])).astype(t.dtype) for t in inputs]
    out = tvm.nd.empty([int(d) for d in C.shape], C.dtype)
    f(*[tvm.nd.array(x) for x in ins], out)
    with np.errstate(over="ignore"):
        want = ref(*ins).astype(C.dtype)
    tol = 2e-2 if C.dtype == "float16" else 1e-4
    np.testing.assert_allclose(out.numpy(), want, rtol=tol, atol=tol,
                               err_msg=f"{C.dtype} schedule: " + "; ".join(log))
