"""tir.Schedule cache_read / cache_write: classic TVM's placement of the copy (under the
lowest loop the writer shares with the first consumer), buffer names as indices, opaque
data-pointer uses, and the fall-back placement where classic's would change results."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.ir import assert_structural_equal
from tvmlite.script import tir as T
from tvmlite.tir import ScheduleError


def _run(func, *shapes, seed=0):
    """Outputs of ``func`` on random inputs: every parameter gets a random array."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype("float32") for s in shapes]
    nds = [tvm.nd.array(a) for a in arrays]
    tvm.build(func, target="llvm")(*nds)
    return [x.numpy() for x in nds]


@T.prim_func
def tiled_two_consumers(X: T.Buffer((35,), "float32"), Y: T.Buffer((35,), "float32"),
                        Z: T.Buffer((35,), "float32")):
    A = T.alloc_buffer((35,))
    for i in range(5):
        for j in range(7):
            with T.block("A"):
                vi = T.axis.spatial(35, i * 7 + j)
                A[vi] = X[vi] * T.float32(3)
        for j in range(7):
            with T.block("B"):
                vi = T.axis.spatial(35, i * 7 + j)
                Y[vi] = A[vi] + T.float32(1)
    for i in range(35):
        with T.block("C"):
            vi = T.axis.spatial(35, i)
            Z[vi] = A[vi] * A[vi]


def _expect_two_consumers(out):
    x, y, z = out
    np.testing.assert_allclose(y, x * 3 + 1, rtol=1e-6)
    np.testing.assert_allclose(z, (x * 3) ** 2, rtol=1e-5)


def _copy_loop(sch, name):
    """The loop variables above block ``name``, outermost first."""
    return [sch.get(lp).loop_var.name for lp in sch.get_loops(sch.get_block(name))]


def test_cache_read_copies_each_tile_under_the_shared_loop():
    ref = _run(tiled_two_consumers, 35, 35, 35, seed=1)
    _expect_two_consumers(ref)
    sch = tvm.tir.Schedule(tiled_two_consumers)
    blk = sch.cache_read(sch.get_block("B"), 0, "global")
    # under loop i, just before B, copying the 7 elements one i-iteration writes
    assert _copy_loop(sch, sch.get(blk).name_hint) == ["i", "ax0"]
    assert sch.get(sch.get_loops(blk)[-1]).extent.value == 7
    out = _run(sch.mod["main"], 35, 35, 35, seed=1)
    for a, b in zip(ref, out):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_cache_read_only_named_consumer_copies_after_the_loop():
    sch = tvm.tir.Schedule(tiled_two_consumers)
    blk = sch.cache_read(sch.get_block("B"), 0, "global", consumer_blocks=[sch.get_block("C")])
    assert _copy_loop(sch, sch.get(blk).name_hint) == ["ax0"]
    assert [r.buffer.name for r in sch.get(sch.get_block("B")).reads] == ["A"]
    assert [r.buffer.name for r in sch.get(sch.get_block("C")).reads] == ["A_global"]
    _expect_two_consumers(_run(sch.mod["main"], 35, 35, 35, seed=2))


def test_cache_write_copies_each_tile_before_the_first_reader():
    sch = tvm.tir.Schedule(tiled_two_consumers)
    blk = sch.cache_write(sch.get_block("A"), 0, "local")
    assert _copy_loop(sch, sch.get(blk).name_hint) == ["i", "ax0"]
    _expect_two_consumers(_run(sch.mod["main"], 35, 35, 35, seed=3))
    sch = tvm.tir.Schedule(tiled_two_consumers)
    blk = sch.cache_write(sch.get_block("A"), 0, "local", consumer_blocks=[sch.get_block("B")])
    # B reads the cache inside the loop; the copy-out waits for C, after the loop
    assert _copy_loop(sch, sch.get(blk).name_hint) == ["ax0"]
    assert [r.buffer.name for r in sch.get(sch.get_block("B")).reads] == ["A_local"]
    _expect_two_consumers(_run(sch.mod["main"], 35, 35, 35, seed=4))


def test_cache_read_and_write_take_buffer_names():
    by_index = tvm.tir.Schedule(tiled_two_consumers)
    by_index.cache_read(by_index.get_block("C"), 0, "global")
    by_index.cache_write(by_index.get_block("B"), 0, "local")
    by_name = tvm.tir.Schedule(tiled_two_consumers)
    by_name.cache_read("C", "A", "global")
    by_name.cache_write("B", by_name.get(by_name.get_block("B")).writes[0].buffer, "local")
    assert_structural_equal(by_index.mod["main"], by_name.mod["main"])
    with pytest.raises(ScheduleError, match="reads no buffer 'nope'"):
        by_name.cache_read("C", "nope", "global")
    _expect_two_consumers(_run(by_name.mod["main"], 35, 35, 35, seed=5))


@T.prim_func
def partial_overwrite(X: T.Buffer((40,), "float32"), Y: T.Buffer((40,), "float32")):
    for i in range(24):
        with T.block("W"):
            vi = T.axis.spatial(40, i)
            X[vi] = X[vi + 16] + T.float32(1)
    for i in range(40):
        with T.block("R"):
            vi = T.axis.spatial(40, i)
            Y[vi] = X[vi] * T.float32(2)


def test_cache_read_covers_what_the_writer_does_not_write():
    # classic copies only the 24 elements W writes; R also reads X[24:40]
    x = np.random.default_rng(6).standard_normal(40).astype("float32")
    want = x.copy()
    want[:24] = x[16:40] + 1
    sch = tvm.tir.Schedule(partial_overwrite)
    blk = sch.cache_read(sch.get_block("R"), 0, "global")
    assert sch.get(sch.get_loops(blk)[0]).extent.value == 40
    xs, ys = tvm.nd.array(x), tvm.nd.array(np.zeros(40, "float32"))
    tvm.build(sch.mod["main"], target="llvm")(xs, ys)
    np.testing.assert_allclose(ys.numpy(), want * 2, rtol=1e-6)


@T.prim_func
def in_place(D: T.Buffer((19,), "int32")):
    tmp = T.alloc_buffer((19,), "int32")
    for i in range(19):
        with T.block("copy_in"):
            vi = T.axis.spatial(19, i)
            tmp[vi] = D[vi]
    for i in range(19):
        with T.block("work"):
            vi = T.axis.spatial(19, i)
            tmp[vi] = tmp[vi] * 3 + 1
    for i in range(19):
        with T.block("copy_out"):
            vi = T.axis.spatial(19, i)
            D[vi] = tmp[vi]


def test_cache_read_of_a_buffer_written_later_copies_first():
    sch = tvm.tir.Schedule(in_place)
    blk = sch.cache_read(sch.get_block("copy_in"), 0, "local",
                         [sch.get_block("copy_in")])
    body = sch.mod["main"].body.block.body
    assert body.seq[0].body.block.name_hint == sch.get(blk).name_hint
    d = np.arange(19, dtype="int32") - 7
    dn = tvm.nd.array(d)
    tvm.build(sch.mod["main"], target="llvm")(dn)
    np.testing.assert_array_equal(dn.numpy(), d * 3 + 1)


@T.prim_func
def two_writers(X: T.Buffer((9,), "float32"), Y: T.Buffer((9,), "float32")):
    A = T.alloc_buffer((9,))
    for i in range(9):
        with T.block("A0"):
            vi = T.axis.spatial(9, i)
            A[vi] = X[vi]
    for i in range(9):
        with T.block("A1"):
            vi = T.axis.spatial(9, i)
            A[vi] = A[vi] + T.float32(1)
    for i in range(9):
        with T.block("B"):
            vi = T.axis.spatial(9, i)
            Y[vi] = A[vi]


def test_cache_read_refuses_a_buffer_with_two_writers():
    sch = tvm.tir.Schedule(two_writers)
    with pytest.raises(ScheduleError, match=r"cache_read: block \"B\": \"A\" has 2 writers"):
        sch.cache_read(sch.get_block("B"), 0, "global")


@T.prim_func
def opaque_reader(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        with T.block("opaque"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi * 4:vi * 4 + 4])
            T.writes(B[vi * 4:vi * 4 + 4])
            T.evaluate(T.call_extern("consume", A.data, B.data, vi, dtype="int32"))


def test_cache_read_rewrites_the_data_pointer_of_opaque_accesses():
    sch = tvm.tir.Schedule(opaque_reader)
    sch.cache_read(sch.get_block("opaque"), 0, "global")
    call = sch.get(sch.get_block("opaque")).body.value
    assert [a.name for a in call.args[1:3]] == ["A_global", "B"]


@T.prim_func
def nested_scope(X: T.Buffer((35,), "float32"), Y: T.Buffer((35,), "float32"),
                 Z: T.Buffer((35,), "float32")):
    A = T.alloc_buffer((35,))
    for i0 in range(5):
        with T.block("scope"):
            i = T.axis.spatial(5, i0)
            for x in range(7):
                with T.block("A"):
                    vi = T.axis.spatial(35, i * 7 + x)
                    A[vi] = X[vi] * T.float32(3)
            for x in range(7):
                with T.block("B"):
                    vi = T.axis.spatial(35, i * 7 + x)
                    Y[vi] = A[vi] + T.float32(1)
    for i in range(35):
        with T.block("C"):
            vi = T.axis.spatial(35, i)
            Z[vi] = A[vi] * A[vi]


@T.prim_func
def nested_scope_reads_first(X: T.Buffer((35,), "float32"), Y: T.Buffer((35,), "float32")):
    A = T.alloc_buffer((35,))
    for i0 in range(5):
        with T.block("scope"):
            i = T.axis.spatial(5, i0)
            for x in range(7):
                with T.block("B"):
                    vi = T.axis.spatial(35, i * 7 + x)
                    Y[vi] = A[vi] + T.float32(1)
            for x in range(7):
                with T.block("A"):
                    vi = T.axis.spatial(35, i * 7 + x)
                    A[vi] = X[vi] * T.float32(3)


def test_cache_write_of_a_scope_block_that_reads_only_its_own_writes():
    sch = tvm.tir.Schedule(nested_scope)
    sch.cache_write(sch.get_block("scope"), "A", "global")
    assert [r.buffer.name for r in sch.get(sch.get_block("B")).reads] == ["A_global"]
    _expect_two_consumers(_run(sch.mod["main"], 35, 35, 35, seed=7))
    # here the scope reads A before writing it: its values come from before the block
    sch = tvm.tir.Schedule(nested_scope_reads_first)
    with pytest.raises(ScheduleError, match="without an init"):
        sch.cache_write(sch.get_block("scope"), "A", "global")


@T.prim_func
def row_update(D: T.Buffer((6, 11), "float32"), E: T.Buffer((6, 11), "float32")):
    for i in range(6):
        with T.block("row"):
            vi = T.axis.spatial(6, i)
            for j in range(11):
                D[vi, j] = D[vi, j] * T.float32(2) + E[vi, j]
    for i, j in T.grid(6, 11):
        with T.block("E"):
            vi, vj = T.axis.remap("SS", [i, j])
            E[vi, vj] = D[vi, vj]


def test_cache_inplace_copies_in_and_out_around_the_block():
    d = np.random.default_rng(8).standard_normal((6, 11)).astype("float32")
    e = np.random.default_rng(9).standard_normal((6, 11)).astype("float32")
    mask = tvm.tir.schedule.ScheduleDebugMask.VERIFY_SREF_TREE
    sch = tvm.tir.Schedule(row_update, debug_mask=mask)
    copy_in, copy_out = sch.cache_inplace(sch.get_block("row"), "D", "local")
    # both under loop i, each copying the row the block touches
    for blk in (copy_in, copy_out):
        assert _copy_loop(sch, sch.get(blk).name_hint) == ["i", "ax0", "ax1"]
        assert [sch.get(lp).extent.value for lp in sch.get_loops(blk)[1:]] == [1, 11]
    assert [r.buffer.name for r in sch.get(sch.get_block("row")).writes] == ["D_local"]
    dn, en = tvm.nd.array(d), tvm.nd.array(e)
    tvm.build(sch.mod["main"], target="llvm")(dn, en)
    np.testing.assert_allclose(dn.numpy(), d * 2 + e, rtol=1e-6)
    np.testing.assert_allclose(en.numpy(), d * 2 + e, rtol=1e-6)
    with pytest.raises(ScheduleError, match="does not write it"):
        sch.cache_inplace(sch.get_block("E"), 0, "local")


@T.prim_func
def carried(X: T.Buffer((17,), "float32"), Y: T.Buffer((17,), "float32"),
            Z: T.Buffer((17,), "float32")):
    A = T.alloc_buffer((17,))
    for i in range(17):
        with T.block("W"):
            vi = T.axis.spatial(17, i)
            A[vi] = X[vi] * T.float32(2)
        with T.block("R"):
            vi = T.axis.spatial(17, i)
            Y[vi] = A[T.max(vi - 1, 0)] + A[vi]
    for i in range(17):
        with T.block("C"):
            vi = T.axis.spatial(17, i)
            Z[vi] = A[vi]


@pytest.mark.parametrize("prim", ["cache_read", "cache_write"])
def test_cache_of_a_value_carried_across_iterations_is_refused_or_right(prim):
    x = np.random.default_rng(10).standard_normal(17).astype("float32")
    a = x * 2
    want_y = a[np.maximum(np.arange(17) - 1, 0)] + a
    sch = tvm.tir.Schedule(carried)
    try:
        if prim == "cache_read":
            sch.cache_read(sch.get_block("R"), "A", "local")
        else:
            sch.cache_write(sch.get_block("W"), 0, "local")
    except ScheduleError as e:
        assert prim in str(e)
        return
    ys, zs = tvm.nd.array(np.zeros(17, "float32")), tvm.nd.array(np.zeros(17, "float32"))
    tvm.build(sch.mod["main"], target="llvm")(tvm.nd.array(x), ys, zs)
    np.testing.assert_allclose(ys.numpy(), want_y, rtol=1e-6)
    np.testing.assert_allclose(zs.numpy(), a, rtol=1e-6)
