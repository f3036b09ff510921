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
