"""Classic TE bound inference (``te.schedule.InferBound``): ranges of attached stages through
split and fuse relations, split tightening, thread relaxation by storage scope, and the
schedules behind those ranges computing what numpy computes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.tir.functor import substitute


def _run(s, args, shapes):
    f = tvm.build(s, args, "llvm")
    rng = np.random.default_rng(0)
    nds = [tvm.nd.array(rng.standard_normal(sh).astype("float32")) for sh in shapes]
    f(*nds)
    return [x.numpy() for x in nds]


def _value(e, vmap):
    out = tvm.arith.Analyzer().simplify(substitute(e, {k: tvm.tir.const(v, "int32")
                                                      for k, v in vmap.items()}))
    assert isinstance(out, tvm.tir.IntImm), out
    return out.value


@pytest.mark.parametrize("mode", ["factor", "nparts"])
def test_split_larger_than_extent_is_tightened(mode):
    m = 7
    x = te.placeholder((m,), name="x")
    ef = te.compute((m,), lambda i: x[i] * 2, name="ef")
    e = te.compute((m,), lambda i: ef[i] + 1, name="e")
    s = te.create_schedule(e.op)
    xo, xi = s[e].split(e.op.axis[0], **{mode: 32})
    s[ef].compute_at(s[e], xo)
    bounds = te.schedule.InferBound(s)
    tight, other = (xi, xo) if mode == "factor" else (xo, xi)
    assert bounds[tight].extent.value == m
    assert bounds[other].extent.value == 1
    a, b = _run(s, [x, e], [(m,), (m,)])
    np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


def test_fused_split_attach_region_matches_brute_force():
    m, l, f = 7, 5, 3
    a = te.placeholder((m, l), name="a")
    a1 = te.compute((m, l), lambda i, j: a[i, j] * 2, name="a1")
    a2 = te.compute((m, l), lambda i, j: a1[i, j] + 3, name="a2")
    s = te.create_schedule(a2.op)
    fused = s[a2].fuse(*a2.op.axis)
    xo, _ = s[a2].split(fused, f)
    s[a1].compute_at(s[a2], xo)
    bounds = te.schedule.InferBound(s)
    r0, r1 = bounds[a1.op.axis[0]], bounds[a1.op.axis[1]]
    for o in range((m * l + f - 1) // f):
        rows = {k // l for k in range(o * f, min(o * f + f, m * l))}
        lo = _value(r0.min, {xo.var: o})
        hi = lo + _value(r0.extent, {xo.var: o}) - 1
        if o * f + f <= m * l:  # a whole tile: exactly the rows it touches
            assert (lo, hi) == (min(rows), max(rows))
        else:  # the tail tile: at least those rows
            assert lo == min(rows) and hi >= max(rows)
    # a tile spans rows partly, so every column is computed
    assert r1.extent.value == l
    x, y = _run(s, [a, a2], [(m, l), (m, l)])
    np.testing.assert_allclose(y, x * 2 + 3, rtol=1e-6)


def test_fused_split_constant_point():
    # a tile of a fused 6-wide row that lies inside one row is a tight box
    a = te.placeholder((te.var("m"), 6), name="a")
    a1 = te.compute(a.shape, lambda i, j: a[i, j], name="a1")
    a2 = te.compute(a.shape, lambda i, j: a1[i, j] + 3, name="a2")
    s = te.create_schedule(a2.op)
    xo, _ = s[a2].split(s[a2].fuse(*a2.op.axis), 3)
    s[a1].compute_at(s[a2], xo)
    bounds = te.schedule.InferBound(s)
    got = [_value(bounds[a1.op.axis[k]].min if w == "min" else bounds[a1.op.axis[k]].extent,
                  {xo.var: 5}) for k in (0, 1) for w in ("min", "extent")]
    assert got == [2, 1, 3, 3]


def test_thread_relaxation_follows_storage_scope():
    m = te.var("m")
    a = te.placeholder((m,), name="a")
    a1 = te.compute((m,), lambda i: a[i], name="a1")
    a2 = te.compute((m,), lambda i: a1[i] + 2, name="a2")
    a3 = te.compute((m,), lambda i: a2[i] + 3, name="a3")
    s = te.create_schedule(a3.op)
    s[a2].set_scope("shared")
    s[a1].set_scope("local")
    tx = te.thread_axis("threadIdx.x")
    bx, xi = s[a3].split(a3.op.axis[0], factor=32)
    s[a3].bind(bx, te.thread_axis("blockIdx.x"))
    s[a3].bind(xi, tx)
    s[a2].compute_at(s[a3], xi)
    _, xi2 = s[a2].split(a2.op.axis[0], nparts=1)
    s[a2].bind(xi2, tx)
    s[a1].compute_at(s[a3], xi)
    bounds = te.schedule.InferBound(s)
    # shared memory is shared by the block's threads: it covers all 32 of them
    assert bounds[a2.op.axis[0]].extent.value == 32
    assert bounds[a1.op.axis[0]].extent.value == 1
    assert bounds[tx].extent.value == 32


def test_stencil_attached_at_inner_axis():
    n = 9
    a = te.placeholder((n + 2,), name="a")
    b = te.compute((n + 2,), lambda i: a[i] * 2, name="b")
    c = te.compute((n,), lambda i: b[i] + b[i + 1] + b[i + 2], name="c")
    s = te.create_schedule(c.op)
    s[b].compute_at(s[c], c.op.axis[0])
    assert te.schedule.InferBound(s)[b.op.axis[0]].extent.value == 3
    x, y = _run(s, [a, c], [(n + 2,), (n,)])
    bb = x * 2
    np.testing.assert_allclose(y, bb[:-2] + bb[1:-1] + bb[2:], rtol=1e-5)


def test_rfactor_nparts_has_exactly_nparts_parts():
    n = 13
    a = te.placeholder((n,), name="a")
    k = te.reduce_axis((0, n), name="k")
    b = te.compute((1,), lambda i: te.sum(a[k], axis=k), name="b")
    s = te.create_schedule(b.op)
    kf, _ = s[b].split(k, nparts=4)
    bf = s.rfactor(b, kf)
    bounds = te.schedule.InferBound(s)
    assert bf.shape[0].value == 4
    assert bounds[bf.op.axis[0]].extent.value == 4
    assert bounds[bf.op.axis[1]].extent.value == 1
    x, y = _run(s, [a, b], [(n,), (1,)])
    np.testing.assert_allclose(y, [x.sum()], rtol=1e-5)


def test_rfactor_keeps_untouched_reduce_axis():
    n = 11
    k1 = te.reduce_axis((0, n), name="k1")
    k2 = te.reduce_axis((0, n), name="k2")
    a = te.placeholder((5, n, n), name="a")
    b = te.compute((5,), lambda i: te.sum(a[i, k1, k2], axis=[k1, k2]), name="b")
    s = te.create_schedule(b.op)
    ko, ki = s[b].split(k1, factor=4)
    bf = s.rfactor(b, ki)
    red = bf.op.body[0].axis
    assert red[0] is k2
    assert red[1].var is ko.var
    x, y = _run(s, [a, b], [(5, n, n), (5,)])
    np.testing.assert_allclose(y, x.sum(axis=(1, 2)), rtol=1e-4)
