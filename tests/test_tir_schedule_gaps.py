"""tir.Schedule: blockize's preserve_unit_iters (and tensorize with unit-loop intrinsics),
cache_write's consumer_blocks, and program order in get_producers / get_consumers."""
import numpy as np
import pytest
from programs import matmul, matmul_desc

import tvmlite as tvm
from tvmlite.ir import assert_structural_equal
from tvmlite.script import tir as T
from tvmlite.tir import ScheduleError, TensorIntrin


# --------------------------------------------------------------------------- blockize
@T.prim_func
def mm_unit(A: T.Buffer[(7, 9), "float32"], B: T.Buffer[(9, 5), "float32"],
            C: T.Buffer[(7, 5), "float32"]):
    for i_0, j_0, k_0, i_1, j_1, k_1 in T.grid(7, 5, 3, 1, 1, 3):
        with T.block("C"):
            vi = T.axis.spatial(7, i_0 + i_1)
            vj = T.axis.spatial(5, j_0 + j_1)
            vk = T.axis.reduce(9, k_0 * 3 + k_1)
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


# TVM's rule: an iterator whose inner part is a unit loop moves to the outer block as it is
@T.prim_func
def mm_unit_blockized(A: T.Buffer[(7, 9), "float32"], B: T.Buffer[(9, 5), "float32"],
                      C: T.Buffer[(7, 5), "float32"]):
    T.func_attr({"global_symbol": "mm_unit"})
    for i_0, j_0, k_0 in T.grid(7, 5, 3):
        with T.block("C_o"):
            vi = T.axis.spatial(7, i_0)
            vj = T.axis.spatial(5, j_0)
            vk_o = T.axis.reduce(3, k_0)
            T.reads(A[vi, vk_o * 3:vk_o * 3 + 3], B[vk_o * 3:vk_o * 3 + 3, vj])
            T.writes(C[vi, vj])
            with T.init():
                with T.block("C_init"):
                    T.reads()
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.float32(0)
            for _i_1, _j_1, k_1 in T.grid(1, 1, 3):
                with T.block("C"):
                    vk_i = T.axis.reduce(3, k_1)
                    T.reads(C[vi, vj], A[vi, vk_o * 3 + vk_i], B[vk_o * 3 + vk_i, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = C[vi, vj] + A[vi, vk_o * 3 + vk_i] * B[vk_o * 3 + vk_i, vj]


@T.prim_func
def mm_unit_blockized_folded(A: T.Buffer[(7, 9), "float32"], B: T.Buffer[(9, 5), "float32"],
                             C: T.Buffer[(7, 5), "float32"]):
    T.func_attr({"global_symbol": "mm_unit"})
    for i_0, j_0, k_0 in T.grid(7, 5, 3):
        with T.block("C_o"):
            vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
            T.reads(A[vi_o, vk_o * 3:vk_o * 3 + 3], B[vk_o * 3:vk_o * 3 + 3, vj_o])
            T.writes(C[vi_o, vj_o])
            with T.init():
                with T.block("C_init"):
                    T.reads()
                    T.writes(C[vi_o, vj_o])
                    C[vi_o, vj_o] = T.float32(0)
            for _i_1, _j_1, k_1 in T.grid(1, 1, 3):
                with T.block("C"):
                    vk_i = T.axis.reduce(3, k_1)
                    T.reads(C[vi_o, vj_o], A[vi_o, vk_o * 3 + vk_i], B[vk_o * 3 + vk_i, vj_o])
                    T.writes(C[vi_o, vj_o])
                    C[vi_o, vj_o] = (C[vi_o, vj_o]
                                     + A[vi_o, vk_o * 3 + vk_i] * B[vk_o * 3 + vk_i, vj_o])


def _run_mm(mod, name):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((7, 9)).astype("float32")
    b = rng.standard_normal((9, 5)).astype("float32")
    c = tvm.nd.array(np.full((7, 5), 5, "float32"))  # garbage: the init must run
    tvm.build(mod, target="llvm")[name](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)


def test_blockize_preserves_unit_iters():
    sch = tvm.tir.Schedule(mm_unit)
    sch.blockize(sch.get_loops(sch.get_block("C"))[3])
    assert_structural_equal(sch.mod["main"], mm_unit_blockized)
    _run_mm(sch.mod, "mm_unit")
    assert "preserve_unit_iters=True" in sch.trace.as_python()[-1]


def test_blockize_folds_unit_iters_when_not_preserved():
    sch = tvm.tir.Schedule(mm_unit)
    sch.blockize(sch.get_loops(sch.get_block("C"))[3], preserve_unit_iters=False)
    assert_structural_equal(sch.mod["main"], mm_unit_blockized_folded)
    _run_mm(sch.mod, "mm_unit")


def _outer_values(sch):
    found = []
    tvm.tir.post_order_visit(sch.mod["main"].body, lambda n: found.append(n.iter_values) if (
        isinstance(n, tvm.tir.BlockRealize) and n.block.name_hint == "B_o") else None)
    return found[0]


def test_blockize_unit_iters_follow_tvm_rule():
    @T.prim_func
    def row(A: T.Buffer[(1, 9), "float32"], B: T.Buffer[(1, 9), "float32"]):
        for i, j in T.grid(1, 9):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)

    kept = tvm.tir.Schedule(row)
    kept.blockize(kept.get_loops(kept.get_block("B"))[1])
    # TVM's rule: vi (no inner part) moves out as it is; vj (no outer part) leaves a unit
    # outer iterator bound to 0; unit iterators are bound to 0 when not preserved
    kept_o = kept.get(kept.get_block("B_o"))
    assert [iv.var.name for iv in kept_o.iter_vars] == ["vi", "vj_o"]
    assert [str(v) for v in _outer_values(kept)] == ["i", "0"]
    folded = tvm.tir.Schedule(row)
    folded.blockize(folded.get_loops(folded.get_block("B"))[1], preserve_unit_iters=False)
    assert [str(v) for v in _outer_values(folded)] == ["0", "0"]
    for sch in (kept, folded):
        a = np.random.default_rng(3).standard_normal((1, 9)).astype("float32")
        b = tvm.nd.array(np.zeros((1, 9), "float32"))
        tvm.build(sch.mod, target="llvm")["row"](tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a + 1, rtol=1e-6)


# --------------------------------------------------------------------------- tensorize
dot113_desc = matmul_desc(1, 1, 3)


@T.prim_func
def dot113_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    sa = T.int32()
    sb = T.int32()
    sc = T.int32()
    A = T.match_buffer(a, (1, 3), "float32", offset_factor=1, strides=[sa, 1])
    B = T.match_buffer(b, (3, 1), "float32", offset_factor=1, strides=[sb, 1])
    C = T.match_buffer(c, (1, 1), "float32", offset_factor=1, strides=[sc, 1])
    with T.block("root"):
        T.reads(C[0:1, 0:1], A[0:1, 0:3], B[0:3, 0:1])
        T.writes(C[0:1, 0:1])
        # unrolled by hand, so the tensorized IR is recognisably the implementation
        C[0, 0] = C[0, 0] + A[0, 0] * B[0, 0] + A[0, 1] * B[1, 0] + A[0, 2] * B[2, 0]


TensorIntrin.register("test_dot_1x1x3", dot113_desc, dot113_impl, override=True)


mm_odd = matmul(7, 9, 5, "mm_odd")


@T.prim_func
def mm_odd_tensorized(A: T.Buffer[(7, 9), "float32"], B: T.Buffer[(9, 5), "float32"],
                      C: T.Buffer[(7, 5), "float32"]):
    T.func_attr({"global_symbol": "mm_unit"})
    for i_0, j_0, k_0 in T.grid(7, 5, 3):
        with T.block("C_o"):
            vi = T.axis.spatial(7, i_0)
            vj = T.axis.spatial(5, j_0)
            vk_o = T.axis.reduce(3, k_0)
            T.reads(A[vi, vk_o * 3:vk_o * 3 + 3], B[vk_o * 3:vk_o * 3 + 3, vj])
            T.writes(C[vi, vj])
            with T.init():
                with T.block("C_init"):
                    T.reads()
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.float32(0)
            # classic TVM's form: the implementation on T.match_buffer views of the tiles
            sa = T.int32()
            sb = T.int32()
            sc = T.int32()
            A_1 = T.match_buffer(A[vi, vk_o * 3:vk_o * 3 + 3], (1, 3), strides=(sa, 1),
                                 offset_factor=1)
            B_1 = T.match_buffer(B[vk_o * 3:vk_o * 3 + 3, vj], (3, 1), strides=(sb, 1),
                                 offset_factor=1)
            C_1 = T.match_buffer(C[vi, vj], (1, 1), strides=(sc, 1), offset_factor=1)
            C_1[0, 0] = (C_1[0, 0] + A_1[0, 0] * B_1[0, 0] + A_1[0, 1] * B_1[1, 0]
                         + A_1[0, 2] * B_1[2, 0])


def test_tensorize_unit_loop_intrinsic_expected_ir():
    sch = tvm.tir.Schedule(mm_unit)
    sch.tensorize(sch.get_loops(sch.get_block("C"))[3], "test_dot_1x1x3")
    assert_structural_equal(sch.mod["main"], mm_odd_tensorized)
    _run_mm(sch.mod, "mm_unit")


@pytest.mark.parametrize("preserve", [True, False])
def test_tensorize_unit_loop_intrinsic_after_split(preserve):
    sch = tvm.tir.Schedule(mm_odd)
    i, j, k = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 1])
    j0, j1 = sch.split(j, [None, 1])
    k0, k1 = sch.split(k, [None, 3])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    sch.tensorize(i1, "test_dot_1x1x3", preserve_unit_iters=preserve)
    assert 'T.block("C")' not in sch.mod.script()
    _run_mm(sch.mod, "mm_odd")


def test_tensorize_unit_loop_intrinsic_rejects_wrong_kinds():
    @T.prim_func
    def outer_product(A: T.Buffer[(7, 1), "float32"], B: T.Buffer[(1, 9), "float32"],
                      C: T.Buffer[(7, 9), "float32"]):
        for i, j, k in T.grid(7, 9, 1):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    sch = tvm.tir.Schedule(outer_product)
    i, j, k = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 1])
    j0, j1 = sch.split(j, [None, 3])
    sch.reorder(i0, j0, i1, k, j1)  # 1 x 1 x 3 loops, but the 3 is spatial here
    with pytest.raises(ScheduleError, match="iterator kinds"):
        sch.tensorize(i1, "test_dot_1x1x3")


# --------------------------------------------------------------------------- cache_write
@T.prim_func
def two_consumers(A: T.Buffer[(5, 7), "float32"], C: T.Buffer[(5, 7), "float32"],
                  D: T.Buffer[(5, 7), "float32"]):
    B = T.alloc_buffer((5, 7), "float32")
    for i, j in T.grid(5, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(5, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
    for i, j in T.grid(5, 7):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = B[vi, vj] * B[vi, vj]


@T.prim_func
def two_consumers_cached(A: T.Buffer[(5, 7), "float32"], C: T.Buffer[(5, 7), "float32"],
                         D: T.Buffer[(5, 7), "float32"]):
    T.func_attr({"global_symbol": "two_consumers"})
    B = T.alloc_buffer((5, 7))
    B_local = T.alloc_buffer((5, 7), scope="local")
    for i, j in T.grid(5, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B_local[vi, vj])
            B_local[vi, vj] = A[vi, vj] * T.float32(2)
    # classic placement: the copy-out goes just before B's first reader of B (D)
    for i, j in T.grid(5, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B_local[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B_local[vi, vj] + T.float32(1)
    for ax0, ax1 in T.grid(5, 7):
        with T.block("B_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(B_local[v0, v1])
            T.writes(B[v0, v1])
            B[v0, v1] = B_local[v0, v1]
    for i, j in T.grid(5, 7):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(D[vi, vj])
            D[vi, vj] = B[vi, vj] * B[vi, vj]


def _run_two(mod):
    a = np.random.default_rng(11).standard_normal((5, 7)).astype("float32")
    c = tvm.nd.array(np.zeros((5, 7), "float32"))
    d = tvm.nd.array(np.zeros((5, 7), "float32"))
    tvm.build(mod, target="llvm")["two_consumers"](tvm.nd.array(a), c, d)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(d.numpy(), (a * 2) ** 2, rtol=1e-6)


def test_cache_write_consumer_blocks_expected_ir_and_result():
    sch = tvm.tir.Schedule(two_consumers)
    sch.cache_write(sch.get_block("B"), 0, "local", consumer_blocks=[sch.get_block("C")])
    assert_structural_equal(sch.mod["main"], two_consumers_cached)
    _run_two(sch.mod)
    # the trace replays to the same module
    replay = tvm.tir.Schedule(two_consumers)
    exec("\n".join(sch.trace.as_python()), {"sch": replay, "T": T})
    assert_structural_equal(replay.mod["main"], sch.mod["main"])


def test_cache_write_without_consumer_blocks_keeps_consumers_on_original():
    sch = tvm.tir.Schedule(two_consumers)
    sch.cache_write(sch.get_block("B"), 0, "local")
    for name in ("C", "D"):
        assert [r.buffer.name for r in sch.get(sch.get_block(name)).reads] == ["B"]
    sch2 = tvm.tir.Schedule(two_consumers)
    sch2.cache_write(sch2.get_block("B"), 0, "local",
                     consumer_blocks=[sch2.get_block("C"), sch2.get_block("D")])
    for name in ("C", "D"):
        assert [r.buffer.name for r in sch2.get(sch2.get_block(name)).reads] == ["B_local"]
    _run_two(sch.mod)
    _run_two(sch2.mod)


def test_cache_write_consumer_blocks_errors():
    sch = tvm.tir.Schedule(two_consumers)
    before = sch.mod
    with pytest.raises(ScheduleError, match="not a consumer"):
        sch.cache_write(sch.get_block("C"), 0, "local", consumer_blocks=[sch.get_block("D")])
    with pytest.raises(ScheduleError, match="not a consumer"):
        sch.cache_write(sch.get_block("B"), 0, "local", consumer_blocks=[sch.get_block("B")])
    with pytest.raises(TypeError, match="consumer_blocks"):
        sch.cache_write(sch.get_block("B"), 0, "local", consumer_blocks=sch.get_block("C"))
    assert sch.mod is before


# --------------------------------------------------------------------------- producers
@T.prim_func
def rewritten(A: T.Buffer[(6,), "float32"], Y: T.Buffer[(6,), "float32"],
              Z: T.Buffer[(6,), "float32"]):
    X = T.alloc_buffer((6,), "float32")
    for i in range(6):
        with T.block("first"):
            vi = T.axis.spatial(6, i)
            X[vi] = A[vi] + T.float32(1)
    for i in range(6):
        with T.block("use"):
            vi = T.axis.spatial(6, i)
            Y[vi] = X[vi] * T.float32(3)
    for i in range(6):
        with T.block("second"):
            vi = T.axis.spatial(6, i)
            X[vi] = A[vi] - T.float32(1)
    for i in range(6):
        with T.block("late"):
            vi = T.axis.spatial(6, i)
            Z[vi] = X[vi] + Y[vi]


def test_producers_and_consumers_follow_program_order():
    sch = tvm.tir.Schedule(rewritten)

    def names(rvs):
        return [rv.name for rv in rvs]

    assert names(sch.get_producers(sch.get_block("use"))) == ["first"]
    assert names(sch.get_producers(sch.get_block("late"))) == ["first", "use", "second"]
    assert names(sch.get_producers(sch.get_block("first"))) == []
    assert names(sch.get_consumers(sch.get_block("first"))) == ["use", "late"]
    assert names(sch.get_consumers(sch.get_block("second"))) == ["late"]
    assert names(sch.get_consumers(sch.get_block("use"))) == ["late"]
    assert names(sch.get_consumers(sch.get_block("late"))) == []
    # the function is unchanged and computes what numpy does
    a = np.random.default_rng(5).standard_normal(6).astype("float32")
    y = tvm.nd.array(np.zeros(6, "float32"))
    z = tvm.nd.array(np.zeros(6, "float32"))
    tvm.build(sch.mod, target="llvm")["rewritten"](tvm.nd.array(a), y, z)
    np.testing.assert_allclose(y.numpy(), (a + 1) * 3, rtol=1e-6)
    np.testing.assert_allclose(z.numpy(), (a - 1) + (a + 1) * 3, rtol=1e-6)
