"""Random programs for the schedule fuzzer, described by plain data (a ``spec`` dict) so a case
can be sent to a child process, printed as a repro and shrunk field by field.

``random_spec(rng)`` draws a spec; ``make_program(spec)`` builds the TE tensors and the numpy
reference. Kinds: elementwise chains with broadcasts (random expressions from
``tests.fuzz.exprs``), padding through ``if_then_else``, sum/max/min reductions with ``init=``
and ``where=``, matmul and 2-d conv index patterns. ``sym`` makes the first extent a variable
``n`` bound at call time.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Dict, List

import numpy as np

import tvmlite as tvm
from tvmlite import te

from .exprs import guarded_loader, random_expr

KINDS = ["ewise", "pad", "reduce", "matmul", "conv"]
DTYPES = ["float32", "float32", "float64", "int32", "int64", "int8"]


@dataclass
class Program:
    """A built random program: its arguments (inputs then the output), the intermediate
    tensors, the values of its symbolic extents and the numpy reference."""

    inputs: List[te.Tensor]
    output: te.Tensor
    stages: List[te.Tensor]
    sym: Dict[str, int]
    ref: Callable
    shapes: List[tuple] = field(default_factory=list)  # concrete input shapes, then output's

    @property
    def args(self) -> list:
        return self.inputs + [self.output]


def random_spec(rng: random.Random) -> dict:
    """A random program spec."""
    kind = rng.choice(KINDS)
    dtype = rng.choice(DTYPES)
    if kind in ("matmul", "conv") and dtype == "int8":
        dtype = "int32"
    spec = {"kind": kind, "dtype": dtype, "sym": rng.random() < 0.2,
            "n": rng.randint(1, 13), "m": rng.randint(1, 11), "k": rng.randint(1, 9),
            "prologue": rng.random() < 0.4, "epilogue": rng.random() < 0.4}
    if kind == "ewise":
        spec.update(expr_seed=rng.randrange(1 << 30), depth=rng.randint(1, 3),
                    bcast=rng.choice(["none", "row", "col"]))
    elif kind == "pad":
        spec.update(pad=rng.randint(1, 3), padval=rng.choice([0, 1, -2]))
    elif kind == "reduce":
        spec.update(reducer=rng.choice(["sum", "sum", "max", "min"]),
                    init=rng.choice([None, None, 2, -1]), where=rng.random() < 0.3,
                    two_axes=rng.random() < 0.3)
    elif kind == "conv":
        spec.update(r=rng.randint(1, 3), pad=rng.randint(0, 1))
    return spec


def _ints(dtype: str) -> bool:
    return "int" in dtype


def make_program(spec: dict) -> Program:
    """Build the TE program and its numpy reference from ``spec``."""
    return _BUILDERS[spec["kind"]](spec)


def _extent(spec, name="n"):
    if spec["sym"] and name == "n":
        return te.var("n")
    return spec[name]


def _sym(spec) -> Dict[str, int]:
    return {"n": spec["n"]} if spec["sym"] else {}


def _pro(spec, A):
    """An optional elementwise producer of ``A`` (a stage to inline or attach)."""
    if not spec["prologue"]:
        return A, [], lambda a: a
    dt = A.dtype
    P = te.compute(A.shape, lambda *i: A(*i) * tvm.tir.const(2, dt) + tvm.tir.const(1, dt),
                   name="P")
    return P, [P], lambda a: (a * 2 + 1).astype(dt)


def _epi(spec, C, stages):
    if not spec["epilogue"]:
        return C, lambda c: c
    stages.append(C)
    dt = C.dtype
    D = te.compute(C.shape, lambda *i: te.max(C(*i), tvm.tir.const(-3, dt)) - tvm.tir.const(1, dt),
                   name="D")
    return D, lambda c: (np.maximum(c, -3) - 1).astype(dt)


def _ewise(spec):
    n, m, dt = _extent(spec), spec["m"], spec["dtype"]
    A = te.placeholder((n, m), name="A", dtype=dt)
    bshape = {"none": (n, m), "row": (m,), "col": (n, 1)}[spec["bcast"]]
    B = te.placeholder(bshape, name="B", dtype=dt)
    P, stages, fp = _pro(spec, A)
    rng = random.Random(spec["expr_seed"])

    def load_b(i, j):
        return {"none": lambda: B[i, j], "row": lambda: B[j], "col": lambda: B[i, 0]}[
            spec["bcast"]]()

    holder = {}

    def body(i, j):
        e, f = random_expr(rng, guarded_loader(P, (i,), j, m, dt), lambda: load_b(i, j), j, m,
                           dt, spec["depth"])
        holder["f"] = f
        return e

    C = te.compute((n, m), body, name="C")
    D, fd = _epi(spec, C, stages)
    nn = spec["n"]

    def ref(a, b):
        bb = np.broadcast_to(b, (nn, m))
        with np.errstate(all="ignore"):
            got = holder["f"](fp(a), bb, np.arange(m)[None, :])
        return fd(np.broadcast_to(got, (nn, m)).astype(dt))

    return Program([A, B], D, stages, _sym(spec), ref,
                   [(nn, m), tuple(nn if x is n else x for x in bshape), (nn, m)])


def _pad(spec):
    n, m, p, dt = _extent(spec), spec["m"], spec["pad"], spec["dtype"]
    A = te.placeholder((n, m), name="A", dtype=dt)
    P, stages, fp = _pro(spec, A)
    pv = tvm.tir.const(spec["padval"], dt)
    C = te.compute((n, m + 2 * p), lambda i, j: te.if_then_else(
        te.all(j >= p, j < m + p), P[i, j - p], pv), name="Pad")
    D, fd = _epi(spec, C, stages)

    def ref(a):
        return fd(np.pad(fp(a), ((0, 0), (p, p)), constant_values=spec["padval"]).astype(dt))

    nn = spec["n"]
    return Program([A], D, stages, _sym(spec), ref, [(nn, m), (nn, m + 2 * p)])


def _reduce(spec):
    n, m, dt = _extent(spec), spec["m"], spec["dtype"]
    A = te.placeholder((n, m, spec["k"]), name="A", dtype=dt)
    P, stages, fp = _pro(spec, A)
    k = te.reduce_axis((0, spec["k"]), name="k")
    axes = [k]
    if spec["two_axes"]:
        axes = [te.reduce_axis((0, m), name="j"), k]
    red = {"sum": te.sum, "max": te.max, "min": te.min}[spec["reducer"]]
    kw = {}
    if spec["init"] is not None:
        kw["init"] = tvm.tir.const(spec["init"], dt)
    wk = spec["k"] // 2
    if spec["where"]:
        kw["where"] = k >= wk
    if spec["two_axes"]:
        C = te.compute((n,), lambda i: red(P[i, axes[0], k], axis=axes, **kw), name="C")
    else:
        C = te.compute((n, m), lambda i, j: red(P[i, j, k], axis=k, **kw), name="C")
    D, fd = _epi(spec, C, stages)

    def ref(a):
        x = fp(a)
        if spec["where"]:
            x = x[:, :, wk:]
        ax = (1, 2) if spec["two_axes"] else 2
        if spec["reducer"] == "sum":
            r = np.sum(x, axis=ax, dtype=dt)
            if spec["init"] is not None:
                r = (r + np.array(spec["init"], dt)).astype(dt)
        else:
            f = np.max if spec["reducer"] == "max" else np.min
            shp = (x.shape[0],) if spec["two_axes"] else x.shape[:2]
            ident = _ident(spec["reducer"], dt) if spec["init"] is None else spec["init"]
            r = np.full(shp, ident, dt)
            if x.size:
                r = (np.maximum if spec["reducer"] == "max" else np.minimum)(r, f(x, axis=ax))
        return fd(r.astype(dt))

    nn = spec["n"]
    oshape = (nn,) if spec["two_axes"] else (nn, m)
    return Program([A], D, stages, _sym(spec), ref, [(nn, m, spec["k"]), oshape])


def _ident(reducer, dt):
    if _ints(dt):
        info = np.iinfo(dt)
        return info.min if reducer == "max" else info.max
    return -np.inf if reducer == "max" else np.inf


def _matmul(spec):
    n, m, l, dt = _extent(spec), spec["m"], spec["k"], spec["dtype"]
    A = te.placeholder((n, l), name="A", dtype=dt)
    B = te.placeholder((l, m), name="B", dtype=dt)
    P, stages, fp = _pro(spec, A)
    k = te.reduce_axis((0, l), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(P[i, k] * B[k, j], axis=k), name="C")
    D, fd = _epi(spec, C, stages)

    def ref(a, b):
        return fd((fp(a) @ b).astype(dt))

    nn = spec["n"]
    return Program([A, B], D, stages, _sym(spec), ref, [(nn, l), (l, m), (nn, m)])


def _conv(spec):
    n, m, r, p, dt = _extent(spec), spec["m"], spec["r"], spec["pad"], spec["dtype"]
    h, w = spec["n"] + 2 * p - r + 1, m + 2 * p - r + 1
    if h < 1 or w < 1:
        spec = dict(spec, pad=1, r=1)
        return _conv(spec)
    A = te.placeholder((n, m), name="A", dtype=dt)
    W = te.placeholder((r, r), name="W", dtype=dt)
    P, stages, fp = _pro(spec, A)
    zero = tvm.tir.const(0, dt)
    Pd = te.compute((n + 2 * p, m + 2 * p), lambda i, j: te.if_then_else(
        te.all(i >= p, i < n + p, j >= p, j < m + p), P[i - p, j - p], zero), name="Pd")
    stages.append(Pd)
    ry = te.reduce_axis((0, r), name="ry")
    rx = te.reduce_axis((0, r), name="rx")
    C = te.compute((n + 2 * p - r + 1, w), lambda i, j: te.sum(
        Pd[i + ry, j + rx] * W[ry, rx], axis=[ry, rx]), name="C")
    D, fd = _epi(spec, C, stages)

    def ref(a, wt):
        x = np.pad(fp(a), p)
        out = np.zeros((h, w), dt)
        for y in range(r):
            for xx in range(r):
                out = (out + x[y:y + h, xx:xx + w] * wt[y, xx]).astype(dt)
        return fd(out)

    return Program([A, W], D, stages, _sym(spec), ref, [(spec["n"], m), (r, r), (h, w)])


_BUILDERS = {"ewise": _ewise, "pad": _pad, "reduce": _reduce, "matmul": _matmul,
             "conv": _conv}


def random_inputs(prog: Program, seed: int) -> List[np.ndarray]:
    """Small random inputs (integers stay small so sums of products never overflow)."""
    rng = np.random.default_rng(seed)
    out = []
    for t, shape in zip(prog.inputs, prog.shapes):
        if _ints(t.dtype):
            out.append(rng.integers(-5, 6, shape).astype(t.dtype))
        else:
            out.append(rng.standard_normal(shape).astype(t.dtype))
    return out
