"""Classic TE schedules: the Stage model and every primitive, each checked against numpy (the
unscheduled function's result) at odd sizes and non-divisible factors."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import TVMError


def matmul(n, m, l, name="C"):
    A = te.placeholder((n, l), name="A")
    B = te.placeholder((l, m), name="B")
    k = te.reduce_axis((0, l), name="k")
    C = te.compute((n, m), lambda x, y: te.sum(A[x, k] * B[k, y], axis=k), name=name)
    return A, B, C


def run(s, args, shapes_in, out_shapes, seed=0):
    rng = np.random.default_rng(seed)
    f = tvm.build(s, list(args))
    ins = [rng.standard_normal(sh).astype("float32") for sh in shapes_in]
    outs = [tvm.nd.empty(sh, "float32") for sh in out_shapes]
    f(*[tvm.nd.array(x) for x in ins], *outs)
    return ins, [o.numpy() for o in outs]


def check_matmul(s, A, B, C, n, m, l):
    (a, b), (c,) = run(s, [A, B, C], [(n, l), (l, m)], [(n, m)])
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------- Stage model
def test_stage_model_and_relations():
    A, B, C = matmul(8, 8, 8)
    s = te.create_schedule(C.op)
    st = s[C]
    assert st.op is C.op and st.origin_op is C.op and s[C.op] is st
    assert [s_.op.name for s_ in s.stages] == ["A", "B", "C"]
    assert s.outputs == [C.op] and s.normalize() is s
    x, y = C.op.axis
    (k,) = C.op.reduce_axis
    assert st.leaf_iter_vars == [x, y, k]
    xo, xi = st.split(x, factor=3)
    assert [iv.var.name for iv in st.leaf_iter_vars] == ["x.outer", "x.inner", "y", "k"]
    assert len(st.all_iter_vars) == 5 and type(st.relations[0]).__name__ == "Split"
    f = st.fuse(xi, y)
    assert f.var.name == "x.inner.y.fused"
    st.parallel(xo)
    st.unroll(xo)  # the last annotation wins
    assert st.iter_var_attrs[xo].iter_type == tvm.tir.expr.IterVarType.Unrolled
    with pytest.raises(tvm.TVMError, match="split"):
        st.split(x, factor=2)  # already split
    with pytest.raises(tvm.TVMError, match="consecutive"):
        st.fuse(xo, k)


def test_split_factor_and_nparts_non_divisible():
    for kw in ({"factor": 7}, {"nparts": 3}, {"factor": 1}, {"factor": 64}):
        A, B, C = matmul(23, 19, 11)
        s = te.create_schedule(C.op)
        xo, xi = s[C].split(C.op.axis[0], **kw)
        ko, ki = s[C].split(C.op.reduce_axis[0], factor=4)
        check_matmul(s, A, B, C, 23, 19, 11)


def test_tile_fuse_reorder_spatial_and_reduction():
    A, B, C = matmul(33, 17, 13)
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(*C.op.axis, 8, 5)
    ko, ki = s[C].split(C.op.reduce_axis[0], factor=4)
    s[C].reorder(xo, yo, ko, xi, ki, yi)
    s[C].fuse(xo, yo)
    check_matmul(s, A, B, C, 33, 17, 13)


def test_reorder_reduction_outside_spatial_initialises_once():
    A, B, C = matmul(9, 7, 5)
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (k,) = C.op.reduce_axis
    s[C].reorder(k, x, y)
    text = str(tvm.lower(s, [A, B, C]))
    assert "x_init" in text and "y_init" in text
    check_matmul(s, A, B, C, 9, 7, 5)


def test_parallel_vectorize_unroll_and_pragmas():
    A, B, C = matmul(20, 24, 9)
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(*C.op.axis, 4, 8)
    s[C].parallel(xo)
    s[C].vectorize(yi)
    s[C].unroll(xi)
    s[C].pragma(yo, "auto_unroll_max_step", 16)
    s[C].pragma(yo, "unroll_explicit", True)
    s[C].pragma(yo, "my_hint", 3)
    text = str(tvm.lower(s, [A, B, C]))
    assert "T.parallel" in text
    check_matmul(s, A, B, C, 20, 24, 9)


def test_compute_at_follows_later_splits_and_fuses():
    n = 37
    A = te.placeholder((n, n), name="A")
    P = te.compute((n, n), lambda i, j: A[i, j] * 2, name="P")
    C = te.compute((n, n), lambda i, j: P[i, j] + 1, name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    s[P].compute_at(s[C], i)  # attach first ...
    io, ii = s[C].split(i, factor=8)  # ... then split: P follows to the inner loop
    s[C].fuse(io, ii)
    (a,), (c,) = run(s, [A, C], [(n, n)], [(n, n)])
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_compute_inline_root_and_auto_inline():
    n = 29
    A = te.placeholder((n,), name="A")
    P = te.compute((n,), lambda i: A[i] * 2, name="P")
    Q = te.compute((n,), lambda i: P[i] + 3, name="Q")
    C = te.compute((n,), lambda i: Q[i] * Q[i], name="C")
    s = te.create_schedule(C.op)
    s[P].compute_inline()
    s[Q].compute_at(s[C], C.op.axis[0])
    s[Q].compute_root()
    (a,), (c,) = run(s, [A, C], [(n,)], [(n,)])
    np.testing.assert_allclose(c, (a * 2 + 3) ** 2, rtol=1e-5)
    s = te.create_schedule(C.op)
    te.schedule.AutoInlineInjective(s)
    assert "P" not in str(tvm.lower(s, [A, C])).split("def main")[1].split(":")[0]
    (a,), (c,) = run(s, [A, C], [(n,)], [(n,)])
    np.testing.assert_allclose(c, (a * 2 + 3) ** 2, rtol=1e-5)


def test_cache_read_several_readers_and_scopes():
    n = 21
    A = te.placeholder((n,), name="A")
    B1 = te.compute((n,), lambda i: A[i] + 1, name="B1")
    B2 = te.compute((n,), lambda i: A[i] * 2, name="B2")
    C = te.compute((n,), lambda i: B1[i] + B2[i], name="C")
    s = te.create_schedule(C.op)
    AL = s.cache_read(A, "local", [B1, B2])
    assert AL.op.name == "A.local"
    AG = s.cache_read(AL, "global", [B1])
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B1].compute_at(s[C], io)
    s[AG].compute_at(s[B1], B1.op.axis[0])
    (a,), (c,) = run(s, [A, C], [(n,)], [(n,)])
    np.testing.assert_allclose(c, (a + 1) + a * 2, rtol=1e-6)


def test_cache_write_copy_stage_keeps_user_iter_vars():
    A, B, C = matmul(40, 36, 10)
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    assert s[C].op is not C.op and s[C].origin_op is C.op
    assert list(s[C].op.axis) == list(C.op.axis)
    assert [iv.var.name for iv in CC.op.axis] == ["x.c", "y.c"]
    xo, yo, xi, yi = s[C].tile(*C.op.axis, 16, 16)
    s[CC].compute_at(s[C], yo)
    xc, yc = s[CC].op.axis
    ko, ki = s[CC].split(CC.op.reduce_axis[0], factor=3)
    s[CC].reorder(ko, xc, ki, yc)
    s[CC].vectorize(yc)
    check_matmul(s, A, B, C, 40, 36, 10)


def test_set_scope_storage_align_bind_recorded():
    n = 16
    A = te.placeholder((n, n), name="A")
    P = te.compute((n, n), lambda i, j: A[i, j] + 1, name="P")
    C = te.compute((n, n), lambda i, j: P[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    s[P].set_scope("global")
    s[P].storage_align(P.op.axis[0], 8, 1)
    (a,), (c,) = run(s, [A, C], [(n, n)], [(n, n)])
    np.testing.assert_allclose(c, (a + 1) * 2, rtol=1e-6)
    bx, tx = s[C].split(C.op.axis[0], factor=4)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    assert 'T.thread_binding(4, thread="blockIdx.x")' in str(tvm.lower(s, [A, C]))
    with pytest.raises(tvm.TVMError, match="bx|threadIdx|blockIdx|x_outer"):
        tvm.build(s, [A, C], target="llvm")


def test_infer_bound_reports_tile_extents():
    A, B, C = matmul(64, 64, 64)
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    xo, yo, xi, yi = s[C].tile(*C.op.axis, 32, 16)
    s[CC].compute_at(s[C], yo)
    bounds = te.schedule.InferBound(s)
    xc, yc = CC.op.axis
    assert int(bounds[xc].extent) == 32 and int(bounds[yc].extent) == 16
    assert int(bounds[xo].extent) == 2 and int(bounds[yi].extent) == 16


def test_multiple_outputs_schedule():
    n = 10
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    C = te.compute((n,), lambda i: A[i] * 3, name="C")
    s = te.create_schedule([B.op, C.op])
    s[B].parallel(B.op.axis[0])
    (a,), (b, c) = run(s, [A, B, C], [(n,)], [(n,), (n,)])
    np.testing.assert_allclose(b, a + 1)
    np.testing.assert_allclose(c, a * 3)


def test_errors_name_the_primitive():
    A, B, C = matmul(4, 4, 4)
    s = te.create_schedule(C.op)
    with pytest.raises(tvm.TVMError, match="split"):
        s[C].split(C.op.axis[0])
    with pytest.raises(tvm.TVMError, match="compute_at"):
        s[A].compute_at(s[C], C.op.axis[0])
    s[C].compute_at(s[C], C.op.axis[0])  # as classic TE: refused when lowering
    with pytest.raises(tvm.TVMError, match="compute_at: cannot attach stage C to itself"):
        tvm.lower(s, [A, B, C])
    s[C].compute_root()
    with pytest.raises(tvm.TVMError, match="Cannot find Stage"):
        s[te.placeholder((2,), name="Z")]
    with pytest.raises(tvm.TVMError, match="fuse"):
        s[C].fuse(C.op.axis[0], C.op.reduce_axis[0])


def test_storage_align_pads_the_row_stride():
    n = 16
    A = te.placeholder((n, n), name="A")
    P = te.compute((n, n), lambda i, j: A[i, j] + 1, name="P")
    C = te.compute((n, n), lambda i, j: P[j, i] * 2, name="C")
    s = te.create_schedule(C.op)
    s[P].storage_align(P.op.axis[0], 8, 1)
    text = str(tvm.lower(s, [A, C]))
    assert "T.allocate([271]" in text  # 15 rows of stride 17 plus one of 16
    (a,), (c,) = run(s, [A, C], [(n, n)], [(n, n)])
    np.testing.assert_allclose(c, (a.T + 1) * 2, rtol=1e-6)


def test_storage_align_of_a_per_tile_cache_keeps_it_per_tile():
    n = 19
    A = te.placeholder((n, n), name="A")
    C = te.compute((n, n), lambda i, j: A[j, i] * 2, name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "local", [C])
    io, jo, ii, ji = s[C].tile(*C.op.axis, 8, 8)
    s[C].parallel(io)
    s[AA].compute_at(s[C], jo)
    s[AA].storage_align(AA.op.axis[0], 8, 1)
    text = str(tvm.lower(s, [A, C]))
    # an 8x8 tile with row stride 9, allocated inside the tile loop (not 19 rows of 25)
    assert 'T.allocate([71], "float32", "local")' in text and "ax0 * 9 + ax1" in text, text
    assert text.index("for j_outer") < text.index("T.allocate")
    (a,), (c,) = run(s, [A, C], [(n, n)], [(n, n)])
    np.testing.assert_allclose(c, a.T * 2, rtol=1e-6)


def test_multi_output_stage_scope_covers_every_output():
    n = 13
    A = te.placeholder((n,), name="A")
    B0, B1 = te.compute((n,), lambda i: (A[i] + 1, A[i] * 2), name="B")
    s = te.create_schedule(B0.op)
    assert s[B0] is s[B1]
    BL = s.cache_write([B0, B1], "local")
    io, ii = s[B0].split(B0.op.axis[0], factor=4)
    s[BL[0]].compute_at(s[B0], io)
    text = str(tvm.lower(s, [A, B0, B1]))
    assert text.count('"float32", "local")') == 2, text
    (a,), (b0, b1) = run(s, [A, B0, B1], [(n,)], [(n,), (n,)])
    np.testing.assert_allclose(b0, a + 1, rtol=1e-6)
    np.testing.assert_allclose(b1, a * 2, rtol=1e-6)


def test_vectorize_reduction_axis_is_refused_at_the_call():
    A, B, C = matmul(7, 9, 5)
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (k,) = C.op.reduce_axis
    s[C].reorder(x, k, y)
    with pytest.raises(TVMError, match="reduction axis"):
        s[C].vectorize(k)  # classic TE: "Cannot vectorize on CommReduce"
    ko, ki = s[C].split(k, factor=2)  # the parts of a reduction axis are reduction axes too
    with pytest.raises(RuntimeError, match="reduction axis"):
        s[C].vectorize(ki)
    s[C].vectorize(y)  # the refused calls left the schedule as it was
    assert ki not in s[C].iter_var_attrs
    check_matmul(s, A, B, C, 7, 9, 5)


def test_annotation_on_an_iter_var_split_later_is_ignored():
    A, B, C = matmul(13, 6, 5)
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    s[C].parallel(x)  # x is no loop any more after the split: classic TE ignores this
    s[C].pragma(y, "my_hint", 1)
    xo, xi = s[C].split(x, factor=4)
    yo, yi = s[C].split(y, factor=4)
    text = str(tvm.lower(s, [A, B, C]))
    assert "T.parallel" not in text and "my_hint" not in text
    check_matmul(s, A, B, C, 13, 6, 5)


def test_auto_inline_injective_keeps_scheduled_stages():
    n = 11
    A = te.placeholder((n,), name="A")
    P = te.compute((n,), lambda i: A[i] + 1, name="P")
    Q = te.compute((n,), lambda i: P[i] * 2, name="Q")
    C = te.compute((n,), lambda i: Q[i] - 3, name="C")
    s = te.create_schedule(C.op)
    s[P].split(P.op.axis[0], factor=4)
    te.schedule.AutoInlineInjective(s)
    assert s[P].attach_type == 1 and s[Q].attach_type == 2  # root, inline
    text = str(tvm.lower(s, [A, C]))
    assert "i_outer" in text
    (a,), (c,) = run(s, [A, C], [(n,)], [(n,)])
    np.testing.assert_allclose(c, (a + 1) * 2 - 3, rtol=1e-6)


@pytest.mark.parametrize("tag", ["vthread", "cthread"])
def test_virtual_threads_run_serially_on_cpu(tag):
    A, B, C = matmul(12, 10, 7)
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], nparts=3)
    s[C].bind(xo, te.thread_axis(tag))
    assert "thread_binding" not in str(tvm.lower(s, [A, B, C]))  # a serial loop after lowering
    check_matmul(s, A, B, C, 12, 10, 7)
