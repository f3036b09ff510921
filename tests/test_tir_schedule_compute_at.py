"""compute_at / reverse_compute_at: which consumer iterations go under the loop. A consumer
moved under its producer's loop may read only what the same iteration produced (a buffer the
loop alone uses may be allocated inside it); what cannot be solved that way is refused with a
ScheduleError. Results are compared with numpy and with the unscheduled build, from garbage
outputs, at odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError

GARBAGE = 12345.0


def _build_run(mod, ins, shape, dtype):
    out = tvm.nd.array(np.full(shape, GARBAGE, dtype))
    tvm.build(mod, target="llvm")(*[tvm.nd.array(x) for x in ins], out)
    return out.numpy()


def _conv_epilogue(n, m, r, pad, dtype):
    """Fuzz seed 7 case 6539's program: zero padding, an r x r conv, an elementwise epilogue."""
    A = te.placeholder((n, m), name="A", dtype=dtype)
    W = te.placeholder((r, r), name="W", dtype=dtype)
    zero = tvm.tir.const(0, dtype)
    Pd = te.compute((n + 2 * pad, m + 2 * pad), lambda i, j: te.if_then_else(
        te.all(i >= pad, i < n + pad, j >= pad, j < m + pad), A[i - pad, j - pad], zero),
        name="Pd")
    ry = te.reduce_axis((0, r), name="ry")
    rx = te.reduce_axis((0, r), name="rx")
    h, w = n + 2 * pad - r + 1, m + 2 * pad - r + 1
    C = te.compute((h, w), lambda i, j: te.sum(Pd[i + ry, j + rx] * W[ry, rx], axis=[ry, rx]),
                   name="C")
    D = te.compute((h, w), lambda i, j: te.max(C[i, j], tvm.tir.const(-3, dtype))
                   - tvm.tir.const(1, dtype), name="D")

    def ref(a, wt):
        x = np.pad(a, pad)
        out = np.zeros((h, w), dtype)
        for y in range(r):
            for xx in range(r):
                out = (out + x[y:y + h, xx:xx + w] * wt[y, xx]).astype(dtype)
        return (np.maximum(out, -3) - 1).astype(dtype)

    return [A, W, D], ref, (h, w)


def _inputs(args, dtype, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(-5, 6, tuple(int(x) for x in t.shape)).astype(dtype)
            for t in args[:-1]]


@pytest.mark.parametrize("n,m,dtype", [(7, 10, "int64"), (1, 1, "float32"), (5, 3, "int32")])
@pytest.mark.parametrize("unroll", [False, True])
def test_reverse_compute_at_reads_only_what_the_iteration_produced(n, m, dtype, unroll):
    """Fuzz seed 7 case 6539: the consumer read ``Pd[v_i + v_ry, ...]`` with a unit reduction
    axis ``v_ry``; the index was left unsolved, so every iteration of Pd's row loop recomputed
    all of C from rows not produced yet. Once the loop-local shared Pd was allocated inside
    the loop (and the loop partitioned, C's loop unrolled) the last recompute read garbage."""
    args, ref, shape = _conv_epilogue(n, m, 1, 1, dtype)
    func = te.create_prim_func(args)
    sch = Schedule(func)
    sch.set_scope(sch.get_block("Pd"), 0, "shared")
    row = sch.get_loops(sch.get_block("Pd"))[0]
    sch.reverse_compute_at(sch.get_block("C"), row, preserve_unit_loops=True)
    loops = sch.get_loops(sch.get_block("C"))
    # C's row iterator is solved to the producer's row: one row per iteration
    assert int(sch.get(loops[1]).extent) == 1
    sch.cache_write(sch.get_block("C"), 0, "local")
    if unroll:
        sch.unroll(sch.get_loops(sch.get_block("C"))[1])
    ins = _inputs(args, dtype, n * 100 + m)
    base = _build_run(tvm.IRModule({"main": func}), ins, shape, dtype)
    np.testing.assert_array_equal(base, ref(*ins))
    np.testing.assert_array_equal(_build_run(sch.mod, ins, shape, dtype), base)


def test_reverse_compute_at_with_a_window_over_the_loop_is_refused():
    """A 3x3 window reads three producer rows per output row: the rows of one iteration are
    not enough, so reverse_compute_at under the row loop is refused."""
    args, _, _ = _conv_epilogue(6, 5, 3, 1, "float32")
    sch = Schedule(te.create_prim_func(args))
    row = sch.get_loops(sch.get_block("Pd"))[0]
    with pytest.raises(ScheduleError, match=r'reverse_compute_at.*"C".*not produced'):
        sch.reverse_compute_at(sch.get_block("C"), row)


def test_reverse_compute_at_with_a_window_inside_the_loop_is_right():
    """Under a unit outer loop (a split by 1) the loop produces all of Pd per iteration: the
    3x3 window lies inside the region and the consumer moves there."""
    args, ref, shape = _conv_epilogue(6, 5, 3, 1, "float32")
    func = te.create_prim_func(args)
    sch = Schedule(func)
    i, j = sch.get_loops(sch.get_block("Pd"))
    io, _ = sch.split(i, [1, None])
    sch.reverse_compute_at(sch.get_block("C"), io)
    ins = _inputs(args, "float32", 3)
    base = _build_run(tvm.IRModule({"main": func}), ins, shape, "float32")
    np.testing.assert_allclose(base, ref(*ins), rtol=1e-6)
    np.testing.assert_allclose(_build_run(sch.mod, ins, shape, "float32"), base, rtol=1e-6)


@pytest.mark.parametrize("n", [1, 7])
def test_reverse_compute_at_reading_a_fixed_element_is_refused(n):
    """``C[i] = B[i] + B[0]`` under B's loop: B[0] is produced by the first iteration only."""
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n,), lambda i: B[i] + B[0], name="C")
    func = te.create_prim_func([A, C])
    sch = Schedule(func)
    loop = sch.get_loops(sch.get_block("B"))[0]
    if n == 1:  # a single iteration produces everything
        sch.reverse_compute_at(sch.get_block("C"), loop)
        a = np.random.default_rng(1).standard_normal(n).astype("float32")
        got = _build_run(sch.mod, [a], (n,), "float32")
        np.testing.assert_allclose(got, a * 2 + a[0] * 2, rtol=1e-6)
        return
    with pytest.raises(ScheduleError, match=r'reverse_compute_at.*"C".*index 0'):
        sch.reverse_compute_at(sch.get_block("C"), loop)


def _strided_producer(rows):
    A = te.placeholder((rows, 8), name="A")
    P = te.compute((rows, 8), lambda i, j: A[i, j] + 1.0, name="P")
    D = te.compute((rows, 8), lambda i, j: P[i, j] * 2.0 - 1.0, name="D")
    sch = Schedule(te.create_prim_func([A, D]))
    _, j = sch.get_loops(sch.get_block("P"))
    jo, ji = sch.split(j, [None, 4])
    sch.reorder(ji, jo)
    return sch, ji


@pytest.mark.parametrize("rows", [3, "n"])
def test_reverse_compute_at_under_a_strided_producer_loop_is_refused(rows):
    """After split + reorder the producer writes columns ``{j, j+4}`` per iteration; the
    consumer's hull ``[j, j+5)`` overlaps the next iteration's. With constant extents the
    enumeration refused it (fuzz seed 7 case 1583); with a symbolic row count the symbolic
    proof accepted the overlap and D was computed from columns not produced yet."""
    sch, ji = _strided_producer(te.var("n") if rows == "n" else rows)
    with pytest.raises(ScheduleError, match=r'reverse_compute_at.*"D".*exactly once'):
        sch.reverse_compute_at(sch.get_block("D"), ji)


@pytest.mark.parametrize("nn", [1, 5])
def test_reverse_compute_at_symbolic_tiles_are_right(nn):
    """Exact tiles under a symbolic outer loop are still proved and computed right."""
    n = te.var("n")
    A = te.placeholder((n, 12), name="A")
    P = te.compute((n, 12), lambda i, j: A[i, j] * 3.0, name="P")
    D = te.compute((n, 12), lambda i, j: P[i, j] - 1.0, name="D")
    sch = Schedule(te.create_prim_func([A, D]))
    _, j = sch.get_loops(sch.get_block("P"))
    jo, _ = sch.split(j, [None, 4])
    sch.reverse_compute_at(sch.get_block("D"), jo)
    a = np.random.default_rng(nn).standard_normal((nn, 12)).astype("float32")
    got = _build_run(sch.mod, [a], (nn, 12), "float32")
    np.testing.assert_allclose(got, a * 3 - 1, rtol=1e-6)


def test_reverse_compute_at_under_a_loop_the_consumer_ignores_is_refused():
    """Every iteration of ``k`` (symbolic, so the symbolic proof decides) maps the consumer to
    the same elements: each would be computed ``n`` times, which the constant-extent check
    refuses as well (a region relaxed through ``floormod`` may not depend on the loop while
    what one iteration writes does)."""
    sch = Schedule(_redundant_producer)
    k = sch.get_loops(sch.get_block("B"))[0]
    with pytest.raises(ScheduleError, match=r'reverse_compute_at.*"C".*"k".*exactly once'):
        sch.reverse_compute_at(sch.get_block("C"), k)


@T.prim_func
def _redundant_producer(a: T.handle, c: T.handle, n: T.int32):
    A = T.match_buffer(a, (6,), "float32")
    C = T.match_buffer(c, (6,), "float32")
    B = T.alloc_buffer((6,), "float32")
    for k in range(n):  # noqa: B007 - the loop the consumer ignores
        for j in range(6):
            with T.block("B"):
                vj = T.axis.spatial(6, j)
                B[vj] = A[vj] + 1.0
    for j in range(6):
        with T.block("C"):
            vj = T.axis.spatial(6, j)
            C[vj] = B[vj] * 2.0


@T.prim_func
def two_producers(A: T.Buffer((7, 5), "float32"), D: T.Buffer((7, 5), "float32")):
    B = T.alloc_buffer((7, 5))
    C = T.alloc_buffer((7, 5))
    E = T.alloc_buffer((7, 5))
    for i, j in T.grid(7, 5):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i in range(7):
        for j in range(5):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + 1.0
        for j in range(5):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = B[vi, vj] + C[vi, vj]
        for j in range(5):
            with T.block("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = D[vi, vj]


def _run_two_producers(func):
    a = np.random.default_rng(4).random((7, 5), dtype=np.float32)
    d = tvm.nd.array(np.full((7, 5), GARBAGE, "float32"))
    tvm.build(func, target="llvm")(tvm.nd.array(a), d)
    np.testing.assert_allclose(d.numpy(), a * 2 + a + 1, rtol=1e-6)


@pytest.mark.parametrize("index, pos", [(-1, 1), (-2, 0), (0, 0), (1, 1)])
def test_compute_at_index_picks_a_valid_position(index, pos):
    sch = Schedule(two_producers)
    i = sch.get_loops(sch.get_block("D"))[0]
    sch.compute_at(sch.get_block("B"), i, index=index)
    body = sch.get(i).body.seq
    assert body[pos].body.block.name_hint == "B"
    assert f"index={index}" in str(sch.trace) or index == -1
    _run_two_producers(sch.mod["main"])


@pytest.mark.parametrize("index", [2, 3, -3])
def test_compute_at_index_after_a_consumer_refused(index):
    sch = Schedule(two_producers)
    i = sch.get_loops(sch.get_block("D"))[0]
    before = sch.mod.script()
    with pytest.raises(ScheduleError, match=f'compute_at: block "B" at loop "i".*index={index}'):
        sch.compute_at(sch.get_block("B"), i, index=index)
    assert sch.mod.script() == before



@T.prim_func
def consumer_outside(A: T.Buffer((7, 5), "float32"), D: T.Buffer((7, 5), "float32")):
    B = T.alloc_buffer((7, 5))
    C = T.alloc_buffer((7, 5))
    for i in range(7):
        for j in range(5):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * 2.0
        for j in range(5):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + 1.0
    for i, j in T.grid(7, 5):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = B[vi, vj] + C[vi, vj]


@pytest.mark.parametrize("index", [-2, 2])
def test_reverse_compute_at_index(index):
    """D reads C, the loop's second child: it may go at position 2 only."""
    sch = Schedule(consumer_outside)
    d = sch.get_block("D")
    i = sch.get_loops(sch.get_block("B"))[0]
    with pytest.raises(ScheduleError, match=r"index=1 is not a valid insertion point.*\(positions "
                       r"2 to 2\)"):
        sch.reverse_compute_at(d, i, index=1)
    sch.reverse_compute_at(d, i, index=index)
    assert sch.get(i).body.seq[2].body.block.name_hint == "D"
    _run_two_producers(sch.mod["main"])


def _realize(mod, name):
    found = []
    tvm.tir.stmt_functor.post_order_visit(
        mod["main"].body, lambda x: found.append(x) if isinstance(x, tvm.tir.BlockRealize)
        and x.block.name_hint == name else None)
    (realize,) = found
    return realize


def _loop_extents(mod):
    out = []
    tvm.tir.stmt_functor.post_order_visit(
        mod["main"].body, lambda x: out.append((x.loop_var.name, int(x.extent)))
        if isinstance(x, tvm.tir.For) else None)
    return dict(out)


@T.prim_func
def blockized_producer(A: T.Buffer((24, 20), "float32"), C: T.Buffer((24, 20), "float32")):
    B = T.alloc_buffer((24, 20))
    for io, jo in T.grid(6, 5):
        with T.block("B_outer"):
            vio, vjo = T.axis.remap("SS", [io, jo])
            T.reads(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            T.writes(B[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            for ii, ji in T.grid(4, 4):
                with T.block("B_inner"):
                    vi = T.axis.spatial(24, vio * 4 + ii)
                    vj = T.axis.spatial(20, vjo * 4 + ji)
                    B[vi, vj] = A[vi, vj] * 2.0
    for i0, j0, i1, j1 in T.grid(3, 2, 8, 10):
        with T.block("C"):
            vi = T.axis.spatial(24, i0 * 8 + i1)
            vj = T.axis.spatial(20, j0 * 10 + j1)
            C[vi, vj] = B[vi, vj] + 1.0


def test_compute_at_solves_a_strided_tile_write():
    """A producer writing 4x4 tiles at ``vio * 4`` computes, per 8x10 consumer tile, only the
    tiles that meet it: 2 rows of tiles, and 3 columns (10 columns start mid-tile), clipped to
    the producer's domain by a predicate."""
    sch = Schedule(blockized_producer)
    _, j0, _, _ = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B_outer"), j0, preserve_unit_loops=True)
    ext = _loop_extents(sch.mod)
    assert (ext["ax0"], ext["ax1"]) == (2, 3)
    a = np.random.default_rng(3).random((24, 20), dtype=np.float32)
    np.testing.assert_allclose(_build_run(sch.mod, [a], (24, 20), "float32"), a * 2.0 + 1.0,
                               rtol=1e-6)


@T.prim_func
def guarded_consumer(A: T.Buffer((9, 1), "float32"), C: T.Buffer((9, 1), "float32")):
    B = T.alloc_buffer((9, 1))
    for i, j in T.grid(9, 1):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(9, 7):
        with T.block("C"):
            vi = T.axis.spatial(9, i)
            vj = T.axis.spatial(1, j)
            T.where(j < 1)
            C[vi, vj] = B[vi, vj] + 1.0


def test_compute_at_range_covering_the_domain_takes_the_domain():
    """The consumer's loop runs 7 times over an iterator of extent 1: the producer's loop gets
    its domain (extent 1, no predicate), as classic does, and unit loops kept by
    preserve_unit_loops stay in the bindings."""
    sch = Schedule(guarded_consumer)
    i, _ = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), i, preserve_unit_loops=True)
    realize = _realize(sch.mod, "B")
    assert [str(v) for v in realize.iter_values] == ["i + ax0", "ax1"]
    assert _loop_extents(sch.mod)["ax1"] == 1
    assert str(realize.predicate) in ("True", "1", "T.bool(True)")
    a = np.random.default_rng(4).random((9, 1), dtype=np.float32)
    np.testing.assert_allclose(_build_run(sch.mod, [a], (9, 1), "float32"), a * 2.0 + 1.0,
                               rtol=1e-6)


@T.prim_func
def reversed_write(X: T.Buffer((7, 5), "float32"), Z: T.Buffer((5, 7), "float32")):
    Y = T.alloc_buffer((7, 5))
    for i, j in T.grid(7, 5):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[6 - vi, 4 - vj] = X[vi, vj] + 1.0
    for i, j in T.grid(5, 7):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vj, vi] * 3.0


def test_compute_at_solves_a_reversed_write():
    sch = Schedule(reversed_write)
    i, _ = sch.get_loops(sch.get_block("Z"))
    sch.compute_at(sch.get_block("Y"), i)
    assert [str(v) for v in _realize(sch.mod, "Y").iter_values] == ["ax0", "4 - i"]
    x = np.random.default_rng(5).random((7, 5), dtype=np.float32)
    ref = (x[::-1, ::-1] + 1.0).T * 3.0
    np.testing.assert_allclose(_build_run(sch.mod, [x], (5, 7), "float32"), ref, rtol=1e-6)


@T.prim_func
def div_mod_reader(X: T.Buffer((6, 8), "float32"), Y: T.Buffer((48,), "float32")):
    tmp = T.alloc_buffer((6, 8))
    for i, j in T.grid(6, 8):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            tmp[vi, vj] = X[vi, vj] + 1.0
    for i in range(48):
        with T.block("B"):
            vi = T.axis.spatial(48, i)
            Y[vi] = tmp[vi // 8, vi % 8] * 2.0


def test_reverse_compute_at_solves_floordiv_reads():
    sch = Schedule(div_mod_reader)
    sch.reverse_compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("A"))[0])
    assert [str(v) for v in _realize(sch.mod, "B").iter_values] == ["i * 8 + ax0"]
    x = np.random.default_rng(6).random((6, 8), dtype=np.float32)
    np.testing.assert_allclose(_build_run(sch.mod, [x], (48,), "float32"),
                               ((x + 1.0) * 2.0).reshape(-1), rtol=1e-6)


@T.prim_func
def two_regions(X: T.Buffer((16,), "float32"), Z: T.Buffer((8,), "float32")):
    A = T.alloc_buffer((8,))
    B = T.alloc_buffer((16,))
    for i in range(8):
        with T.block("A"):
            vi = T.axis.spatial(8, i)
            A[vi] = X[vi] + 1.0
        for j in range(2):
            with T.block("B"):
                vi = T.axis.spatial(16, i * 2 + j)
                B[vi] = X[vi] * 2.0
    for i in range(8):
        with T.block("Z"):
            vi = T.axis.spatial(8, i)
            Z[vi] = A[vi] + B[vi]


def test_reverse_compute_at_reading_two_differently_produced_buffers_is_refused():
    """Per iteration i, A gets element i and B elements 2i and 2i+1: no one range of the
    consumer reads only what both produced in that iteration."""
    sch = Schedule(two_regions)
    with pytest.raises(ScheduleError, match="reverse_compute_at"):
        sch.reverse_compute_at(sch.get_block("Z"), sch.get_loops(sch.get_block("A"))[0])


@T.prim_func
def relayout(A: T.Buffer((3, 5, 16), "float32"), C: T.Buffer((6, 5, 8), "float32")):
    B = T.alloc_buffer((3, 5, 16))
    for i0, i1, i2 in T.grid(3, 5, 16):
        with T.block("B"):
            v0, v1, v2 = T.axis.remap("SSS", [i0, i1, i2])
            B[v0, v1, v2] = A[v0, v1, v2] + 1.0
    for j0, j1, j2 in T.grid(6, 5, 8):
        with T.block("C"):
            w0, w1, w2 = T.axis.remap("SSS", [j0, j1, j2])
            C[w0, w1, w2] = B[(w0 * 8 + w2) // 16, w1, (w0 * 8 + w2) % 16] * 2.0


def test_reverse_compute_at_solves_a_fused_index():
    """Per row of 16 produced, the consumer's ``(w0 * 8 + w2) // 16`` picks two values of
    ``w0`` (its other iterator w2 over its whole domain 0..7)."""
    sch = Schedule(relayout)
    i0 = sch.get_loops(sch.get_block("B"))[0]
    sch.reverse_compute_at(sch.get_block("C"), i0)
    assert str(_realize(sch.mod, "C").iter_values[0]) == "i0 * 2 + ax0"
    assert _loop_extents(sch.mod)["ax0"] == 2
    a = np.random.default_rng(8).random((3, 5, 16), dtype=np.float32)
    ref = ((a + 1.0) * 2.0).reshape(3, 5, 2, 8).transpose(0, 2, 1, 3).reshape(6, 5, 8)
    np.testing.assert_allclose(_build_run(sch.mod, [a], (6, 5, 8), "float32"), ref, rtol=1e-6)


def test_compute_at_solves_a_fused_index():
    """The other way round: per row ``j0`` of C, B computes the one row ``(j0 * 8) // 16``
    holds, all 16 of its columns (for a correct, if redundant, tile)."""
    sch = Schedule(relayout)
    j0 = sch.get_loops(sch.get_block("C"))[0]
    sch.compute_at(sch.get_block("B"), j0)
    a = np.random.default_rng(9).random((3, 5, 16), dtype=np.float32)
    ref = ((a + 1.0) * 2.0).reshape(3, 5, 2, 8).transpose(0, 2, 1, 3).reshape(6, 5, 8)
    np.testing.assert_allclose(_build_run(sch.mod, [a], (6, 5, 8), "float32"), ref, rtol=1e-6)
    assert str(_realize(sch.mod, "B").iter_values[0]) == "j0 // 2"
