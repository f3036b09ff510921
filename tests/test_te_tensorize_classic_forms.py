"""Classic forms of TE tensorize: an intrinsic whose description names a loop of the stage
(a guard ``xo * n + i < m`` for a non-divisible tail), an intrinsic with a body and an update
but no reset under a reduction split around it, a tensorize annotation on a tensor intrinsic
call's stage (no effect), and the ``test.op`` hooks that expose the tensorized region."""
import numpy as np

import tvmlite as tvm
from tvmlite import te
from tvmlite.tir import BufferLoad, BufferStore


def _run(s, args, shapes, fill=7.0, seed=0):
    f = tvm.build(s, args, target="llvm")
    rng = np.random.default_rng(seed)
    ins = [rng.standard_normal(sh).astype("float32") for sh in shapes[:-1]]
    out = tvm.nd.array(np.full(shapes[-1], fill, "float32"))
    f(*[tvm.nd.array(a) for a in ins], out)
    return ins, out.numpy()


def _guarded_vadd(xo, m, n):
    """z[i] = x[i] + y[i] where xo * n + i < m, else 0: the description names ``xo``."""
    x = te.placeholder((n,), name="vx")
    y = te.placeholder((n,), name="vy")
    z = te.compute((n,), lambda i: tvm.tir.Select(xo * n + i < m, x[i] + y[i],
                                                    tvm.tir.const(0, "float32")), name="vz")

    def impl(ins, outs):
        xx, yy = ins
        zz = outs[0]
        ib = tvm.tir.ir_builder.create()
        with ib.for_range(0, n, name="t") as t:
            val = tvm.tir.if_then_else(xo * n + t < m, BufferLoad(xx, [t]) + BufferLoad(yy, [t]),
                                       tvm.tir.const(0, "float32"))
            ib.emit(BufferStore(zz, val, [t]))
        return ib.get()

    return te.decl_tensor_intrin(z.op, impl, default_buffer_params={"offset_factor": 1})


def _add(m):
    x = te.placeholder((m,), name="x")
    y = te.placeholder((m,), name="y")
    return x, y, te.compute((m,), lambda i: x[i] + y[i], name="z")


def test_intrinsic_guard_names_the_stage_loop_over_a_non_divisible_tail():
    for m, factor in ((37, 8), (29, 4), (33, 16)):
        x, y, z = _add(m)
        s = te.create_schedule(z.op)
        s[z].split(z.op.axis[0], factor=factor)
        zc = s.cache_write(z, "global")  # the cache is laid out on the split: a guarded body
        xo, xi = zc.op.axis
        s[zc].tensorize(xi, _guarded_vadd(xo, m, factor))
        text = tvm.lower(s, [x, y, z]).script()
        if m % factor:  # the implementation's guard reads the stage's loop
            assert f"i_outer_c * {factor} + t < {m}" in text, text
        (a, b), out = _run(s, [x, y, z], [(m,), (m,), (m,)])
        np.testing.assert_allclose(out, a + b, rtol=1e-6)


def _gemv_body_update(m, l):
    """A GEMV intrinsic with a body (computes the tile) and an update (accumulates) but no
    reset, its weight buffer strided."""
    w = te.placeholder((m, l), name="w")
    v = te.placeholder((l,), name="v")
    k = te.reduce_axis((0, l), name="k")
    z = te.compute((m,), lambda i: te.sum(w[i, k] * v[k], axis=k), name="z")
    wb = tvm.tir.decl_buffer(w.shape, w.dtype, name="W", offset_factor=1,
                             strides=[te.var("ldw"), 1])

    def impl(ins, outs):
        ww, vv = ins
        zz = outs[0]

        def nest(reset):
            ib = tvm.tir.ir_builder.create()
            with ib.for_range(0, m, name="r") as r:
                if reset:
                    ib.emit(BufferStore(zz, tvm.tir.const(0, "float32"), [r]))
                with ib.for_range(0, l, name="c") as c:
                    ib.emit(BufferStore(zz, BufferLoad(zz, [r]) + BufferLoad(ww, [r, c])
                                        * BufferLoad(vv, [c]), [r]))
            return ib.get()

        return nest(True), None, nest(False)

    return te.decl_tensor_intrin(z.op, impl, binds={w: wb},
                                 default_buffer_params={"offset_factor": 1})


def _matvec(n, m, l):
    A = te.placeholder((n, l), name="A")
    B = te.placeholder((m, l), name="B")
    k = te.reduce_axis((0, l), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(B[j, k] * A[i, k], axis=k), name="C")
    return A, B, C


def test_body_without_reset_starts_a_reduction_split_around_it():
    n, m, l = 5, 24, 48
    for two_outer in (False, True):
        A, B, C = _matvec(n, m, l)
        s = te.create_schedule(C.op)
        x, y = C.op.axis
        (rk,) = C.op.reduce_axis
        yo, yi = s[C].split(y, factor=8)
        ro, ri = s[C].split(rk, factor=8)
        if two_outer:
            roo, roi = s[C].split(ro, factor=2)
            s[C].reorder(yo, roo, roi, yi, ri)
        else:
            s[C].reorder(yo, ro, yi, ri)
        s[C].tensorize(yi, _gemv_body_update(8, 8))
        # C starts as garbage: the body, run at the reduction's first step, must reset it
        (a, b), out = _run(s, [A, B, C], [(n, l), (m, l), (n, m)], fill=123.0)
        np.testing.assert_allclose(out, a @ b.T, rtol=1e-4, atol=1e-4)


def test_tensorize_on_a_tensor_intrinsic_call_stage_has_no_effect():
    n, factor = 7, 4

    def vadd_intrin():
        x = te.placeholder((factor,), name="vx")
        y = te.placeholder((factor,), name="vy")
        z = te.compute((factor,), lambda i: x[i] + y[i], name="vz")

        def impl(ins, outs):
            ib = tvm.tir.ir_builder.create()
            with ib.for_range(0, factor, name="t") as t:
                ib.emit(BufferStore(outs[0], BufferLoad(ins[0], [t]) + BufferLoad(ins[1], [t]),
                                    [t]))
            return ib.get()

        return te.decl_tensor_intrin(z.op, impl, default_buffer_params={"offset_factor": 1})

    vadd = vadd_intrin()
    A = te.placeholder((n, factor), name="A")
    B = te.placeholder((n, factor), name="B")
    C = te.compute((n, factor), lambda i: vadd(A[i, 0:factor], B[i, 0:factor]), name="C")
    s = te.create_schedule(C.op)
    s[C].tensorize(C.op.axis[0], vadd_intrin())  # classic ignores this
    stmt = te.schedule.ScheduleOps(s.normalize(), te.schedule.InferBound(s))
    assert isinstance(stmt.body, tvm.tir.For)
    assert stmt.body.loop_var.name == C.op.axis[0].var.name
    (a, b), out = _run(s, [A, B, C], [(n, factor)] * 3)
    np.testing.assert_allclose(out, a + b, rtol=1e-6)


def test_tensorize_region_hooks():
    n, m, l = 3, 32, 64
    A, B, C = _matvec(n, m, l)
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (rk,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=16)
    ro, ri = s[C].split(rk, factor=8)
    s[C].reorder(yo, ro, yi, ri)
    gemv = _gemv_body_update(16, 8)
    s[C].tensorize(yi, gemv)
    s = s.normalize()
    dom = te.schedule.InferBound(s)
    out_dom, in_dom = tvm.get_global_func("test.op.InferTensorizeRegion")(s[C], dom)
    seq = tvm.ir.structural_equal
    assert seq(out_dom[x].min, x.var) and seq(out_dom[x].extent, 1)
    assert seq(out_dom[y].min, yo.var * 16) and seq(out_dom[y].extent, 16)
    assert seq(out_dom[rk].min, ro.var * 8) and seq(out_dom[rk].extent, 8)
    assert [int(r.extent) for r in in_dom[B]] == [16, 8]
    assert [int(r.extent) for r in in_dom[A]] == [1, 8]
    assert seq(in_dom.items()[0][1][1].min, ro.var * 8)
    body = tvm.get_global_func("test.op.MatchTensorizeBody")(s[C], out_dom, in_dom, gemv)
    ana = tvm.arith.Analyzer()
    assert seq(ana.simplify(body[0]), ana.simplify(gemv.op.body[0]))
    # a stage whose body differs from the intrinsic's does not match
    D = te.compute((n, m), lambda i, j: te.sum(B[j, rk] + A[i, rk], axis=rk), name="D")
    s2 = te.create_schedule(D.op)
    dy0, dy1 = s2[D].split(D.op.axis[1], factor=16)
    s2[D].tensorize(dy1, gemv)
    s2 = s2.normalize()
    out2, in2 = tvm.get_global_func("test.op.InferTensorizeRegion")(
        s2[D], te.schedule.InferBound(s2))
    body2 = tvm.get_global_func("test.op.MatchTensorizeBody")(s2[D], out2, in2, gemv)
    assert not seq(ana.simplify(body2[0]), ana.simplify(gemv.op.body[0]))
