"""Expected-IR tests of every tir.Schedule primitive, blockize and tensorize included:
TVMScript before, the primitive, TVMScript after, compared with ``assert_structural_equal``."""
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule


@T.prim_func
def elementwise(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    B = T.alloc_buffer((10, 7))
    for i, j in T.grid(10, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def rowsum(A: T.Buffer((7, 13), "float32"), B: T.Buffer((7,), "float32")):
    for i, k in T.grid(7, 13):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def split_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    for i_0, i_1, j in T.grid(3, 4, 7):
        with T.block("B"):
            vi = T.axis.spatial(10, i_0 * 4 + i_1)
            vj = T.axis.spatial(7, j)
            T.where(i_0 * 4 + i_1 < 10)
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def fuse_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    for i_j_fused in range(70):
        with T.block("B"):
            vi = T.axis.spatial(10, i_j_fused // 7)
            vj = T.axis.spatial(7, i_j_fused % 7)
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def reorder_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    for j, i in T.grid(7, 10):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def parallel_vectorize_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    for i in T.parallel(10):
        for j in T.vectorized(7):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def unroll_bind_annotate_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    for i in T.unroll(10):
        for j in T.thread_binding(7, thread="threadIdx.x"):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                T.block_attr({"k": 1})
                B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def compute_at_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    for i_0 in range(3):
        for ax0, ax1 in T.grid(4, 7):
            with T.block("B"):
                vi = T.axis.spatial(10, i_0 * 4 + ax0)
                vj = T.axis.spatial(7, ax1)
                T.where(i_0 * 4 + ax0 < 10)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i_1, j in T.grid(4, 7):
            with T.block("C"):
                vi = T.axis.spatial(10, i_0 * 4 + i_1)
                vj = T.axis.spatial(7, j)
                T.where(i_0 * 4 + i_1 < 10)
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def reverse_compute_at_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    for i_0 in range(3):
        for i_1, j in T.grid(4, 7):
            with T.block("B"):
                vi = T.axis.spatial(10, i_0 * 4 + i_1)
                vj = T.axis.spatial(7, j)
                T.where(i_0 * 4 + i_1 < 10)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for ax0, ax1 in T.grid(4, 7):
            with T.block("C"):
                vi = T.axis.spatial(10, i_0 * 4 + ax0)
                vj = T.axis.spatial(7, ax1)
                T.where(i_0 * 4 + ax0 < 10)
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def compute_inline_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)


@T.prim_func
def reverse_compute_inline_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    for i, j in T.grid(10, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)


@T.prim_func
def cache_read_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    A_shared = T.alloc_buffer((10, 7), scope="shared")
    for ax0, ax1 in T.grid(10, 7):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v0, v1])
            T.writes(A_shared[v0, v1])
            A_shared[v0, v1] = A[v0, v1]
    for i, j in T.grid(10, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A_shared[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A_shared[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def cache_write_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    C_local = T.alloc_buffer((10, 7), scope="local")
    for i, j in T.grid(10, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C_local[vi, vj])
            C_local[vi, vj] = B[vi, vj] + T.float32(1)
    for ax0, ax1 in T.grid(10, 7):
        with T.block("C_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(C_local[v0, v1])
            T.writes(C[v0, v1])
            C[v0, v1] = C_local[v0, v1]


@T.prim_func
def set_scope_storage_align_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7), scope="shared")
    for i, j in T.grid(10, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            T.block_attr({"buffer_dim_align": [[0, 0, 16, 8]]})
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def decompose_reduction_after(A: T.Buffer((7, 13), "float32"), B: T.Buffer((7,), "float32")):
    # with T.block("root"):
    for i in range(7):
        with T.block("B_init"):
            vi = T.axis.remap("S", [i])
            T.reads()
            T.writes(B[vi])
            B[vi] = T.float32(0)
        for k in range(13):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(B[vi], A[vi, vk])
                T.writes(B[vi])
                B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def rfactor_after(A: T.Buffer((7, 13), "float32"), B: T.Buffer((7,), "float32")):
    # with T.block("root"):
    B_rf = T.alloc_buffer((4, 7))
    for i, k_0, k_1 in T.grid(7, 4, 4):
        with T.block("B_rf"):
            vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
            T.where(k_0 * 4 + k_1 < 13)
            T.reads(A[vi, vk_0 * 4 + vk_1])
            T.writes(B_rf[vk_1, vi])
            with T.init():
                B_rf[vk_1, vi] = T.float32(0)
            B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 4 + vk_1]
    for i, k_1 in T.grid(7, 4):
        with T.block("B"):
            vk_1, vi = T.axis.remap("RS", [k_1, i])
            T.reads(B_rf[vk_1, vi])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + B_rf[vk_1, vi]


@T.prim_func
def blockize_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    for i_0 in range(5):
        with T.block("B_o"):
            vi_o = T.axis.spatial(5, i_0)
            _vj_o = T.axis.spatial(1, 0)  # TVM keeps a unit outer iterator for an inner one
            T.reads(A[vi_o * 2:vi_o * 2 + 2, 0:7])
            T.writes(B[vi_o * 2:vi_o * 2 + 2, 0:7])
            for i_1, j in T.grid(2, 7):
                with T.block("B"):
                    vi_i, vj_i = T.axis.remap("SS", [i_1, j])
                    T.reads(A[vi_o * 2 + vi_i, vj_i])
                    T.writes(B[vi_o * 2 + vi_i, vj_i])
                    B[vi_o * 2 + vi_i, vj_i] = A[vi_o * 2 + vi_i, vj_i] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def blockize_reduction_after(A: T.Buffer((7, 13), "float32"), B: T.Buffer((7,), "float32")):
    # with T.block("root"):
    for i in range(7):
        with T.block("B_o"):
            vi = T.axis.spatial(7, i)  # no inner part: moves out as it is
            _vk_o = T.axis.reduce(1, 0)
            T.reads(A[vi, 0:13])
            T.writes(B[vi])
            with T.init():
                with T.block("B_init"):
                    T.reads()
                    T.writes(B[vi])
                    B[vi] = T.float32(0)
            for k in range(13):
                with T.block("B"):
                    vk_i = T.axis.remap("R", [k])
                    T.reads(B[vi], A[vi, vk_i])
                    T.writes(B[vi])
                    B[vi] = B[vi] + A[vi, vk_i]


@T.prim_func
def double_desc(a: T.handle, b: T.handle) -> None:
    A = T.match_buffer(a, (2, 7), "float32", offset_factor=1)
    B = T.match_buffer(b, (2, 7), "float32", offset_factor=1)
    for i, j in T.grid(2, 7):
        with T.block("double"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def double_impl(a: T.handle, b: T.handle) -> None:
    A = T.match_buffer(a, (2, 7), "float32", offset_factor=1)
    B = T.match_buffer(b, (2, 7), "float32", offset_factor=1)
    T.evaluate(T.call_extern("int32", "double14", B.data, B.elem_offset, A.data, A.elem_offset))


@T.prim_func
def tensorize_after(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((10, 7))
    for i_0 in range(5):
        with T.block("B_o"):
            vi_o = T.axis.spatial(5, i_0)
            _vj_o = T.axis.spatial(1, 0)  # TVM keeps a unit outer iterator for an inner one
            T.reads(A[vi_o * 2:vi_o * 2 + 2, 0:7])
            T.writes(B[vi_o * 2:vi_o * 2 + 2, 0:7])
            # classic TVM's form: the implementation's buffers view the matched tiles
            A_elem_offset = T.int32()
            B_elem_offset = T.int32()
            A_1 = T.match_buffer(A[vi_o * 2:vi_o * 2 + 2, 0:7], (2, 7),
                                 elem_offset=A_elem_offset, offset_factor=1)
            B_1 = T.match_buffer(B[vi_o * 2:vi_o * 2 + 2, 0:7], (2, 7),
                                 elem_offset=B_elem_offset, offset_factor=1)
            T.call_extern("int32", "double14", B_1.data, B_elem_offset, A_1.data, A_elem_offset)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def _check(sch, expected):
    got = sch.mod["main"]
    expected = expected.with_attr("global_symbol", got.attrs.get("global_symbol"))
    tvm.ir.assert_structural_equal(got, expected)


def _loops(s, name):
    return s.get_loops(s.get_block(name))


def test_split():
    s = Schedule(elementwise)
    i, j = _loops(s, "B")
    i0, i1 = s.split(i, [None, 4])
    assert [s.get(x).loop_var.name for x in (i0, i1)] == ["i_0", "i_1"]
    _check(s, split_after)


def test_fuse():
    s = Schedule(elementwise)
    f = s.fuse(*_loops(s, "B"))
    assert s.get(f).loop_var.name == "i_j_fused"
    _check(s, fuse_after)


def test_reorder():
    s = Schedule(elementwise)
    i, j = _loops(s, "B")
    s.reorder(j, i)
    _check(s, reorder_after)


def test_parallel_vectorize():
    s = Schedule(elementwise)
    i, j = _loops(s, "B")
    s.parallel(i)
    s.vectorize(j)
    _check(s, parallel_vectorize_after)


def test_unroll_bind_annotate():
    s = Schedule(elementwise)
    i, j = _loops(s, "B")
    s.unroll(i)
    s.bind(j, "threadIdx.x")
    s.annotate(s.get_block("B"), "k", 1)
    _check(s, unroll_bind_annotate_after)
    s.unannotate(s.get_block("B"), "k")
    assert not s.get(s.get_block("B")).annotations


def test_compute_at():
    s = Schedule(elementwise)
    i, j = _loops(s, "C")
    i0, i1 = s.split(i, [None, 4])
    loops = s.compute_at_loops(s.get_block("B"), i0)
    assert [s.get(x).loop_var.name for x in loops] == ["ax0", "ax1"]
    _check(s, compute_at_after)


def test_reverse_compute_at():
    s = Schedule(elementwise)
    i, j = _loops(s, "B")
    i0, i1 = s.split(i, [None, 4])
    s.reverse_compute_at(s.get_block("C"), i0)
    _check(s, reverse_compute_at_after)


def test_compute_inline():
    s = Schedule(elementwise)
    s.compute_inline(s.get_block("B"))
    _check(s, compute_inline_after)


def test_reverse_compute_inline():
    s = Schedule(elementwise)
    s.reverse_compute_inline(s.get_block("C"))
    _check(s, reverse_compute_inline_after)


def test_cache_read():
    s = Schedule(elementwise)
    cb = s.cache_read(s.get_block("B"), 0, "shared")
    assert cb.name == "A_shared"
    _check(s, cache_read_after)


def test_cache_write():
    s = Schedule(elementwise)
    cb = s.cache_write(s.get_block("C"), 0, "local")
    assert cb.name == "C_local"
    _check(s, cache_write_after)


def test_set_scope_storage_align():
    s = Schedule(elementwise)
    s.set_scope(s.get_block("B"), 0, "shared")
    s.storage_align(s.get_block("B"), 0, 0, 16, 8)
    _check(s, set_scope_storage_align_after)


def test_decompose_reduction():
    s = Schedule(rowsum)
    i, k = _loops(s, "B")
    init = s.decompose_reduction(s.get_block("B"), k)
    assert init.name == "B_init"
    _check(s, decompose_reduction_after)


def test_rfactor():
    s = Schedule(rowsum)
    i, k = _loops(s, "B")
    k0, k1 = s.split(k, [None, 4])
    rf = s.rfactor(k1, 0)
    assert rf.name == "B_rf"
    _check(s, rfactor_after)


def test_handles_and_queries():
    s = Schedule(elementwise)
    b, c = s.get_block("B"), s.get_block("C")
    assert s.get_consumers(b) == [c] and s.get_producers(c) == [b]
    assert s.get_child_blocks(s.get_block("root")) == [b, c]
    i, j = _loops(s, "B")
    i0, i1 = s.split(i, [2, 5])
    with pytest.raises(tvm.tir.schedule.ScheduleError, match='loop "i"'):
        s.get(i)  # a split loop's handle is gone, as in TVM
    s2 = s.copy()
    s2.fuse(i0, i1)
    assert s.get(i0).extent.value == 2  # the copy is independent
    assert "sch.split" in str(s.trace) and "factors=[2, 5]" in str(s.trace)


def test_trace_replays():
    s = Schedule(elementwise)
    i, j = _loops(s, "C")
    i0, i1 = s.split(i, [None, 3])
    s.compute_at(s.get_block("B"), i0)
    s.parallel(i0)
    replay = Schedule(elementwise)
    exec("\n".join(s.trace.as_python()), {"sch": replay})
    tvm.ir.assert_structural_equal(replay.mod["main"], s.mod["main"])


def test_blockize():
    s = Schedule(elementwise)
    i, j = _loops(s, "B")
    i0, i1 = s.split(i, [5, 2])
    outer = s.blockize(i1)
    assert outer.name == "B_o"
    _check(s, blockize_after)
    s = Schedule(rowsum)
    i, k = _loops(s, "B")
    s.blockize(k)
    _check(s, blockize_reduction_after)


def test_tensorize():
    tvm.tir.TensorIntrin.register("test_double14", double_desc, double_impl, override=True)
    s = Schedule(elementwise)
    i, j = _loops(s, "B")
    i0, i1 = s.split(i, [5, 2])
    s.tensorize(i1, "test_double14")
    _check(s, tensorize_after)
