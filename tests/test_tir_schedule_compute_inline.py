"""compute_inline / reverse_compute_inline: consumers whose load of the producer is an affine
bijection of their iterators, overcomputing producers, producer predicates, and the refusals
(opaque access, matched buffers, non-bijective loads, uncovered consumers). Each accepted
schedule is built and compared with the unscheduled function on random inputs."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


def _run(func, shapes, out_shape):
    rng = np.random.default_rng(7)
    ins = [rng.random(s, dtype=np.float32) for s in shapes]
    out = tvm.nd.array(np.full(out_shape, -7.0, "float32"))
    tvm.build(func, target="llvm")(*[tvm.nd.array(x) for x in ins], out)
    return out.numpy()


def _same(func, sch, shapes, out_shape):
    np.testing.assert_allclose(_run(sch.mod["main"], shapes, out_shape),
                               _run(func, shapes, out_shape), rtol=1e-6)


@T.prim_func
def reshape_load(A: T.Buffer((12, 10), "float32"), C: T.Buffer((5, 3, 8), "float32")):
    B = T.alloc_buffer((12, 10))
    for i, j in T.grid(12, 10):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j, k in T.grid(5, 3, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[((vi * 3 + vj) * 8 + vk) // 10,
                              ((vi * 3 + vj) * 8 + vk) % 10] + 1.0


@T.prim_func
def split_load(A: T.Buffer((21, 5), "float32"), C: T.Buffer((3, 7, 5), "float32")):
    B = T.alloc_buffer((21, 5))
    for i, j in T.grid(21, 5):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] - 0.5
    for i, j, k in T.grid(3, 7, 5):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[vi * 7 + vj, vk] * B[vi * 7 + vj, vk] + A[vi * 7 + vj, vk]


@T.prim_func
def overcomputed(A: T.Buffer((9, 11), "float32"), C: T.Buffer((7, 10), "float32")):
    B = T.alloc_buffer((9, 11))
    for i, j in T.grid(9, 11):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 3.0
    for i, j in T.grid(7, 10):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + 1.0


@T.prim_func
def tiled_load(A: T.Buffer((12, 12), "float32"), C: T.Buffer((11, 10), "float32")):
    B = T.alloc_buffer((3, 3, 4, 4))
    for i0, j0, i1, j1 in T.grid(3, 3, 4, 4):
        with T.block("B"):
            vi, vj, vm, vn = T.axis.remap("SSSS", [i0, j0, i1, j1])
            B[vi, vj, vm, vn] = A[vi * 4 + vm, vj * 4 + vn] * 2.0
    for i, j in T.grid(11, 10):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi // 4, vj // 4, vi % 4, vj % 4] + 1.0


@T.prim_func
def predicated_producer(A: T.Buffer((8, 6), "float32"), C: T.Buffer((7, 6), "float32")):
    B = T.alloc_buffer((7, 6))
    for i, j in T.grid(8, 6):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.where(i < 7)
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(7, 6):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + 1.0


@pytest.mark.parametrize("func, shapes, out", [
    (reshape_load, [(12, 10)], (5, 3, 8)),
    (split_load, [(21, 5)], (3, 7, 5)),
    (overcomputed, [(9, 11)], (7, 10)),
    (tiled_load, [(12, 12)], (11, 10)),
    (predicated_producer, [(8, 6)], (7, 6)),
])
def test_reverse_inline_affine_load_matches_unscheduled(func, shapes, out):
    sch = Schedule(func)
    sch.reverse_compute_inline(sch.get_block("C"))
    assert len(sch.mod["main"].body.block.alloc_buffers) == 0
    _same(func, sch, shapes, out)


def test_reverse_inline_reshape_then_split_again():
    sch = Schedule(reshape_load)
    sch.reverse_compute_inline(sch.get_block("C"))
    i, j = sch.get_loops(sch.get_block("B"))
    sch.split(i, [None, 5])
    sch.fuse(*sch.get_loops(sch.get_block("B"))[1:])
    _same(reshape_load, sch, [(12, 10)], (5, 3, 8))


def test_reverse_inline_overcomputed_adds_predicate():
    sch = Schedule(overcomputed)
    sch.reverse_compute_inline(sch.get_block("C"))
    realize = sch.get(sch.get_block("B"))
    assert "7" in str(sch.mod["main"].script()) and "T.where" in sch.mod["main"].script()
    assert realize.name_hint == "B"


@T.prim_func
def non_bijective(A: T.Buffer((16, 16), "float32"), C: T.Buffer((4, 4, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j, k in T.grid(4, 4, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[vi * 4 + vj, vi * 4 + vj]


@T.prim_func
def overlapping_load(A: T.Buffer((16, 16), "float32"), C: T.Buffer((4, 8, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j, k in T.grid(4, 8, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[vi * 4 + vj // 2, vk]


@T.prim_func
def wide_split(A: T.Buffer((4, 16), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((4, 16))
    for i, j in T.grid(4, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i in T.serial(32):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi // 8, vi % 8]


@T.prim_func
def not_covered(A: T.Buffer((8, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.if_then_else(vi >= 8, B[vi - 8, vj], T.float32(0))


@T.prim_func
def predicate_not_implied(A: T.Buffer((8, 6), "float32"), C: T.Buffer((8, 6), "float32")):
    B = T.alloc_buffer((8, 6))
    for i, j in T.grid(8, 6):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.where(i < 7)
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(8, 6):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + 1.0


@pytest.mark.parametrize("func, why", [
    (non_bijective, "bijective"),
    (overlapping_load, "affine"),
    (wide_split, "cannot reach"),
    (not_covered, "affine"),
    (predicate_not_implied, "cannot be implied"),
])
def test_reverse_inline_refusals(func, why):
    sch = Schedule(func)
    with pytest.raises(ScheduleError, match=why) as e:
        sch.reverse_compute_inline(sch.get_block("C"))
    assert "reverse_compute_inline" in str(e.value) and '"C"' in str(e.value)


@T.prim_func
def opaque_reader(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[0:8, 0:8])
            T.writes(C[0:8, 0:8])
            T.evaluate(B.access_ptr("r", extent=8))
            C[vi, vj] = B[vi, vj] + 1.0


@T.prim_func
def matched_reader(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            Bb = T.match_buffer(B[vi, vj], (1, 1))
            C[vi, vj] = Bb[0, 0] + 1.0


@pytest.mark.parametrize("func, why", [(opaque_reader, "opaque"), (matched_reader, "matched")])
def test_inline_refuses_opaque_or_matched_use(func, why):
    sch = Schedule(func)
    with pytest.raises(ScheduleError, match=why):
        sch.compute_inline(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="reverse_compute_inline"):
        sch.reverse_compute_inline(sch.get_block("C"))


def test_reverse_inline_predicate_spells_the_most_significant_piece_first():
    sch = Schedule(tiled_load)
    sch.reverse_compute_inline(sch.get_block("C"))
    found = []
    tvm.tir.stmt_functor.post_order_visit(
        sch.mod["main"].body, lambda x: found.append(x) if isinstance(x, tvm.tir.BlockRealize)
        and x.block.name_hint == "B" else None)
    assert str(found[0].predicate) == "i0 * 4 + i1 < 11 and j0 * 4 + j1 < 10"
    _same(tiled_load, sch, [(12, 12)], (11, 10))


@T.prim_func
def pointer_reader(T_in: T.Buffer((32,), "float32"), X: T.Buffer((9,), "float32"),
                   Y: T.Buffer((9,), "float32")):
    B = T.alloc_buffer((9,))
    for i in range(9):
        with T.block("B"):
            vi = T.axis.spatial(9, i)
            B[vi] = X[vi] * 2.0
    for i in range(9):
        with T.block("C"):
            vi = T.axis.spatial(9, i)
            T.reads(T_in[0:32], B[vi])
            T.writes(Y[vi])
            T.evaluate(T_in.access_ptr("r"))
            Y[vi] = B[vi] + 1.0


def test_compute_inline_keeps_the_read_of_a_buffer_used_through_its_pointer():
    """The consumer reaches ``T_in`` only through ``tvm_access_ptr``: its declared read stays
    (first, where the pointer is used), so dependence analysis still sees it."""
    sch = Schedule(pointer_reader)
    sch.compute_inline(sch.get_block("B"))
    reads = sch.get(sch.get_block("C")).reads
    assert [r.buffer.name for r in reads] == ["T_in", "X"]
    assert (int(reads[0].region[0].min), int(reads[0].region[0].extent)) == (0, 32)
    _same(pointer_reader, sch, [(32,), (9,)], (9,))


@T.prim_func
def opaque_after_chain(A: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):
    X = T.alloc_buffer((8,))
    B0 = T.alloc_buffer((8,))
    B = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("X"):
            vi = T.axis.remap("S", [i])
            X[vi] = A[vi] + 1.0
    for i in range(8):
        with T.block("B0"):
            vi = T.axis.remap("S", [i])
            B0[vi] = A[vi] * 2.0
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            T.reads(B0[vi], X[0:8])
            B[vi] = B0[vi] + T.call_extern("float32", "peek", X.access_ptr("r"))
    for i in range(8):
        with T.block("D"):
            vi = T.axis.remap("S", [i])
            D[vi] = B[vi]


def test_inline_refusals_see_uses_that_earlier_inlines_moved():
    # compute_inline keeps what it learnt of the function's opaque uses from one call to the
    # next: B0's inline keeps them all; B's moves the pointer use of X into D
    sch = Schedule(opaque_after_chain)
    sch.compute_inline(sch.get_block("B0"))
    with pytest.raises(ScheduleError, match='"X" cannot be inlined: it is passed to'):
        sch.compute_inline(sch.get_block("X"))
    sch.compute_inline(sch.get_block("B"))
    assert "peek" in str(sch.mod["main"].script()) and "B0" not in str(sch.mod["main"].script())
    with pytest.raises(ScheduleError, match='"X" cannot be inlined: it is passed to'):
        sch.compute_inline(sch.get_block("X"))


@T.prim_func
def scalar_pair(A: T.Buffer((), "float32"), C: T.Buffer((), "float32")):
    B = T.alloc_buffer(())
    with T.block("B"):
        vi = T.axis.spatial(1, 0)  # noqa: F841
        B[()] = A[()] * 2.0
    with T.block("C"):
        vi = T.axis.spatial(1, 0)  # noqa: F841
        C[()] = B[()] + 1.0


def test_inline_into_a_consumer_that_is_the_whole_remaining_body():
    # with B gone the root block's body is C's realize itself, with no loop around it
    sch = Schedule(scalar_pair)
    sch.compute_inline(sch.get_block("B"))
    assert "B[" not in sch.mod["main"].script()
    _same(scalar_pair, sch, [()], ())
