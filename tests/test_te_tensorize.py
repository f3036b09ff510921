"""TE tensorize: te.decl_tensor_intrin + s[T].tensorize, lowered by the engine's tensorize,
with an extern C micro-kernel linked through the import_c pragma."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.tir.functor import post_order_visit

KERNEL = r"""
int gemv_update(float *cc, float *aa, float *bb, int m, int l, int stride) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < l; ++j) cc[i] += aa[j] * bb[i * stride + j];
  return 0;
}
int gemv_reset(float *cc, int m) { for (int i = 0; i < m; ++i) cc[i] = 0.0f; return 0; }
"""
N, M, L = 64, 32, 48


def _gemv_intrin(m, l, with_reset):
    a = te.placeholder((l,), name="a")
    b = te.placeholder((m, l), name="b")
    k = te.reduce_axis((0, l), name="k")
    c = te.compute((m,), lambda i: te.sum(a[k] * b[i, k], axis=k), name="c")
    Ab = tvm.tir.decl_buffer(a.shape, a.dtype, name="A", offset_factor=1, strides=[1])
    Bb = tvm.tir.decl_buffer(b.shape, b.dtype, name="B", offset_factor=1,
                             strides=[te.var("s1"), 1])
    Cb = tvm.tir.decl_buffer(c.shape, c.dtype, name="C", offset_factor=1, strides=[1])

    def intrin_func(ins, outs):
        aa, bb = ins
        cc = outs[0]

        def update():
            ib = tvm.tir.ir_builder.create()
            ib.emit(tvm.tir.call_extern("int32", "gemv_update", cc.access_ptr("w"),
                                        aa.access_ptr("r"), bb.access_ptr("r"), m, l,
                                        bb.strides[0]))
            return ib.get()

        def reset():
            ib = tvm.tir.ir_builder.create()
            ib.emit(tvm.tir.call_extern("int32", "gemv_reset", cc.access_ptr("w"), m))
            return ib.get()

        def body():  # computes the tile from scratch
            ib = tvm.tir.ir_builder.create()
            ib.emit(reset())
            ib.emit(update())
            return ib.get()
        return (body(), reset(), update()) if with_reset else update()
    return te.decl_tensor_intrin(c.op, intrin_func, binds={a: Ab, b: Bb, c: Cb})


def _gemv():
    A = te.placeholder((N, L), name="A")
    B = te.placeholder((M, L), name="B")
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    return A, B, C


def _check(s, args, fill=5.0):
    A, B, C = args
    f = tvm.build(s, [A, B, C], target="llvm", name="gemv")
    rng = np.random.default_rng(0)
    a = rng.random((N, L)).astype("float32")
    b = rng.random((M, L)).astype("float32")
    c = tvm.nd.array(np.full((N, M), fill, "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b.T, rtol=1e-4)


def _externs(mod):
    out = []
    post_order_visit(mod["main"].body, lambda x: out.append(x.args[0].value) if isinstance(
        x, tvm.tir.Call) and x.op == "call_extern" else None)
    return out


def test_tensorize_whole_reduction_uses_body():
    A, B, C = _gemv()
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=16)
    s[C].reorder(x, yo, yi, z)
    s[C].tensorize(yi, _gemv_intrin(16, L, with_reset=True))
    s[C].pragma(x, "import_c", KERNEL)
    mod = tvm.lower(s, [A, B, C])
    assert _externs(mod) == ["gemv_reset", "gemv_update"]
    text = mod.script()
    # the tile's offsets and B's row stride are passed to the kernel
    assert 'T.type_annotation("float32"), C.data, i * 32 + j_outer * 16, 16, 2)' in text
    assert ", 16, 48, 48)" in text
    _check(s, (A, B, C))


def test_tensorize_update_only_intrinsic():
    # the classic tutorial's first intrinsic: no reset (the output starts from zeros)
    A, B, C = _gemv()
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=16)
    s[C].reorder(x, yo, yi, z)
    s[C].tensorize(yi, _gemv_intrin(16, L, with_reset=False))
    s[C].pragma(x, "import_c", KERNEL)
    _check(s, (A, B, C), fill=0.0)


def test_tensorize_split_reduction_uses_reset_and_update():
    A, B, C = _gemv()
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=16)
    zo, zi = s[C].split(z, factor=16)
    s[C].reorder(x, yo, zo, yi, zi)
    s[C].tensorize(yi, _gemv_intrin(16, 16, with_reset=True))
    s[C].pragma(yo, "import_c", KERNEL)
    mod = tvm.lower(s, [A, B, C])
    assert _externs(mod) == ["gemv_reset", "gemv_update"]
    assert "for k_outer in range(3)" in mod.script()
    _check(s, (A, B, C))
    # an update-only intrinsic cannot serve a reduction split around it
    s2 = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s2[C].split(y, factor=16)
    zo, zi = s2[C].split(z, factor=16)
    s2[C].reorder(x, yo, zo, yi, zi)
    s2[C].tensorize(yi, _gemv_intrin(16, 16, with_reset=False))
    with pytest.raises(tvm.tir.ScheduleError, match="reduction continues outside"):
        tvm.lower(s2, [A, B, C])


def test_tensorize_mismatch_is_a_schedule_error():
    A, B, C = _gemv()
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=8)
    s[C].reorder(x, yo, yi, z)
    s[C].tensorize(yi, _gemv_intrin(16, L, with_reset=True))
    with pytest.raises(tvm.tir.ScheduleError, match="extent"):
        tvm.lower(s, [A, B, C])
    with pytest.raises(tvm.error.TVMError, match="ComputeOp"):
        te.decl_tensor_intrin(A.op, lambda ins, outs: None)


def test_missing_kernel_source_fails_at_link_time():
    A, B, C = _gemv()
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=16)
    s[C].reorder(x, yo, yi, z)
    s[C].tensorize(yi, _gemv_intrin(16, L, with_reset=True))
    s[C].pragma(x, "import_c", "int gemv_reset(float *cc, int m) { return 0; }\n")
    with pytest.raises(tvm.TVMError):
        f = tvm.build(s, [A, B, C], target="llvm", name="gemv_missing")
        f(tvm.nd.empty((N, L)), tvm.nd.empty((M, L)), tvm.nd.empty((N, M)))


def test_ir_builder():
    ib = tvm.tir.ir_builder.create()
    n = te.var("n")
    buf = tvm.tir.decl_buffer((n,), "float32", name="X")
    x = ib.buffer_ptr(buf)
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(i % 2 == 0):
            x[i] = x[i] * 2.0
        with ib.else_scope():
            x[i] = 0.0
    tmp = ib.allocate("float32", (4,), name="tmp")
    tmp[0] = x[0]
    stmt = ib.get()
    assert isinstance(stmt, tvm.tir.SeqStmt) or isinstance(stmt, tvm.tir.For)
    func = tvm.tir.PrimFunc((buf.data,), stmt, None, {buf.data: buf})
    text = func.script()
    # buffer_ptr gives a flat view sharing X's data
    assert "for i in range(n)" in text and "X_1[i] = X_1[i] * T.float32(2)" in text
    assert "tmp_1[0] = X_1[0]" in text
    assert "else:" in text
    with pytest.raises(tvm.error.TVMError, match="else_scope"):
        with ib.else_scope():
            pass
