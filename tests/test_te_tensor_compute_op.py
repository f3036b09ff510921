"""A tensor intrinsic called inside ``te.compute`` (classic TensorComputeOp): the call's
regions bind the intrinsic's buffers, the implementation runs in one block per call, and the
result equals numpy — also after split/tile, compute_at, cache_read and cache_write."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import TVMError


def _intrin_vadd(n):
    """z = x + 2 * y over n elements, implemented as a TIR loop."""
    x = te.placeholder((n,), name="x")
    y = te.placeholder((n,), name="y")
    z = te.compute(x.shape, lambda i: x[i] + y[i] * 2, name="z")

    def impl(ins, outs):
        ib = tvm.tir.ir_builder.create()
        a, b = ins
        c = outs[0]
        with ib.for_range(0, n, "t") as t:
            ib.emit(c.vstore(t, a.vload(t) + b.vload(t) * 2))
        return ib.get()

    return te.decl_tensor_intrin(z.op, impl, default_buffer_params={"offset_factor": 1})


def _intrin_gemv(m, n):
    """z[i] = sum_k w[i, k] * x[k]; body, reset and update as TIR loops."""
    w = te.placeholder((m, n), name="w")
    x = te.placeholder((n,), name="x")
    k = te.reduce_axis((0, n), name="k")
    z = te.compute((m,), lambda i: te.sum(w[i, k] * x[k], axis=k), name="z")
    wb = tvm.tir.decl_buffer(w.shape, w.dtype, name="W", offset_factor=1,
                             strides=[te.var("ldw"), 1])

    def impl(ins, outs):
        ww, xx = ins
        zz = outs[0]

        def reset():
            ib = tvm.tir.ir_builder.create()
            with ib.for_range(0, m, "r") as r:
                ib.emit(zz.vstore(r, tvm.tir.const(0, "float32")))
            return ib.get()

        def update():
            ib = tvm.tir.ir_builder.create()
            with ib.for_range(0, m, "r") as r:
                with ib.for_range(0, n, "c") as c:
                    ib.emit(zz.vstore(r, zz.vload(r) + ww.vload([r, c]) * xx.vload(c)))
            return ib.get()

        body = tvm.tir.stmt_seq(reset(), update())
        return body, reset(), update()

    return te.decl_tensor_intrin(z.op, impl, binds={w: wb},
                                 default_buffer_params={"offset_factor": 1})


def _run(s, args, shapes_in, seed=0):
    f = tvm.build(s, args)
    rng = np.random.default_rng(seed)
    ins = [rng.random(sh).astype("float32") for sh in shapes_in]
    out = tvm.nd.empty(tuple(int(d) for d in args[-1].shape), "float32")
    f(*[tvm.nd.array(a) for a in ins], out)
    return ins, out.numpy()


@pytest.mark.parametrize("schedule", ["none", "split", "cache"])
def test_vadd_call_matches_numpy(schedule):
    m, f = 11, 7
    vadd = _intrin_vadd(f)
    A = te.placeholder((m, f), name="A")
    B = te.placeholder((m, f), name="B")
    C = te.compute((m, f), lambda i: vadd(A[i, 0:f], B[i, 0:f]), name="C")
    assert isinstance(C.op, te.tensor.TensorComputeOp)
    assert len(C.op.axis) == 2 and C.op.schedulable_ndim == 1
    s = te.create_schedule(C.op)
    if schedule == "split":
        s[C].split(C.op.axis[0], factor=4)  # 11 = 4 + 4 + 3: a guarded tail
    elif schedule == "cache":
        s.cache_read(A, "local", [C])
        s.cache_read(B, "local", [C])
        s.cache_write(C, "local")
    (a, b), c = _run(s, [A, B, C], [(m, f), (m, f)])
    np.testing.assert_allclose(c, a + 2 * b, rtol=1e-6)


def test_vadd_call_with_producer_computed_at():
    m, f = 9, 5
    vadd = _intrin_vadd(f)
    A = te.placeholder((m, f), name="A")
    B = te.placeholder((m, f), name="B")
    Bi = te.compute((m, f), lambda i, j: B[i, j] + 5, name="Bi")
    C = te.compute((m, f), lambda i: vadd(A[i, 0:f], Bi[i, 0:f]), name="C")
    s = te.create_schedule(C.op)
    s[Bi].compute_at(s[C], C.op.axis[0])
    bounds = te.schedule.InferBound(s)
    assert bounds[Bi.op.axis[0]].extent.value == 1
    assert bounds[Bi.op.axis[1]].extent.value == f
    text = str(tvm.lower(s, [A, B, C], simple_mode=True))
    assert 'T.allocate([5], "float32"' in text  # one row of Bi per iteration of i
    (a, b), c = _run(s, [A, B, C], [(m, f), (m, f)])
    np.testing.assert_allclose(c, a + 2 * (b + 5), rtol=1e-6)


@pytest.mark.parametrize("tile", [False, True])
def test_gemv_call_with_outer_reduction(tile):
    n, m, f, r, ko = 5, 7, 3, 4, 3  # C[i, j, t] = sum_{k, c} A[i, k, t, c] * B[j, k, c]
    gemv = _intrin_gemv(f, r)
    A = te.placeholder((n, ko, f, r), name="A")
    B = te.placeholder((m, ko, r), name="B")
    k = te.reduce_axis((0, ko), name="k")
    C = te.compute((n, m, f), lambda i, j: gemv(A[i, k, 0:f, 0:r], B[j, k, 0:r],
                                                reduce_axis=k), name="C")
    assert [iv.var.name for iv in C.op.reduce_axis] == ["k"]
    s = te.create_schedule(C.op)
    if tile:
        ai, aj, _ = s[C].op.axis
        s[C].tile(ai, aj, 2, 3)
    (a, b), c = _run(s, [A, B, C], [(n, ko, f, r), (m, ko, r)])
    np.testing.assert_allclose(c, np.einsum("iktc,jkc->ijt", a, b), rtol=1e-5)


def test_scalar_inputs_interleaved_with_regions():
    n = te.size_var("n")
    x = te.placeholder((n,), name="x")
    v = te.size_var("v")
    w = te.size_var("w")
    z = te.compute((n,), lambda i: x[i] * v + w, name="z")

    def impl(ins, outs, sp):
        ib = tvm.tir.ir_builder.create()
        ib.emit(outs[0].vstore(0, ins[0].vload(0) * sp[0].astype("float32")
                               + sp[1].astype("float32")))
        return ib.get()

    intrin = te.decl_tensor_intrin(z.op, impl, scalar_params=[v, w],
                                   default_buffer_params={"offset_factor": 1})
    A = te.placeholder((6, 5), name="A")
    C = te.compute((6, 5), lambda i, j: intrin(i * i, A[i, j], i + j), name="C")
    s = te.create_schedule(C.op)
    (a,), c = _run(s, [A, C], [(6, 5)])
    i, j = np.meshgrid(np.arange(6), np.arange(5), indexing="ij")
    np.testing.assert_allclose(c, a * (i * i) + (i + j), rtol=1e-6)


def test_bound_of_a_region_read():
    a = te.placeholder((te.var("m1"), te.var("n1")), name="a")
    c = te.compute((1, a.shape[1]), lambda i, j: a[0, j] + a[1, j], name="c")
    intrin = te.decl_tensor_intrin(
        c.op, lambda ins, outs: tvm.tir.call_extern("int32", "f", outs[0].access_ptr("w"),
                                                    ins[0].access_ptr("r")),
        default_buffer_params={"offset_factor": 1})
    A = te.placeholder((21, 13), name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j], name="B")
    C = te.compute((9, 13), lambda i: intrin(B[i:9, 0:13]), name="C")
    s = te.create_schedule(C.op)
    bounds = te.schedule.InferBound(s)
    assert bounds[B.op.axis[0]].extent.value == 9  # rows [i, 9) for i in [0, 9)
    assert bounds[B.op.axis[1]].extent.value == 13


def test_bad_calls_raise():
    vadd = _intrin_vadd(4)
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(TVMError, match="takes 2 tensor region"):
        te.compute((3, 4), lambda i: vadd(A[i, 0:4]), name="C")
    with pytest.raises(TypeError, match="region"):
        te.compute((3, 4), lambda i, j: A[i, 0:4] + 1.0, name="C")
    B = te.placeholder((3, 4), name="B")
    C = te.compute((3, 4), lambda i: vadd(A[i, 0:4], B[i, 0:4]), name="C")
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[1], factor=2)
    with pytest.raises(TVMError, match="inside the tensor intrinsic"):
        tvm.lower(s, [A, B, C])
    k = te.reduce_axis((0, 3), name="k")
    with pytest.raises(TVMError, match="reset, update"):
        C2 = te.compute((3, 4), lambda i: vadd(A[k, 0:4], B[k, 0:4], reduce_axis=k), name="C2")
        tvm.lower(te.create_schedule(C2.op), [A, B, C2])
