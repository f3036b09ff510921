"""tir.schedule.transform.tile_with_tensor_intrin and analysis.get_tensorize_loop_mapping: the
block's loops tiled for a dot-product intrinsic (padded when asked), tensorized, built and
compared with numpy."""
import numpy as np

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir import Schedule, TensorIntrin
from tvmlite.tir.schedule.analysis import get_tensorize_loop_mapping
from tvmlite.tir.schedule.transform import tile_with_tensor_intrin
from tvmlite.tir.tensor_intrin.x86 import VNNI_DOT_16x4_INTRIN


def _dense(n, m, k):
    @T.prim_func
    def f(A: T.Buffer((n, k), "uint8"), B: T.Buffer((m, k), "int8"),
          C: T.Buffer((n, m), "int32")):
        for i0, i1, i2 in T.grid(n, m, k):
            with T.block("compute"):
                i, j, r = T.axis.remap("SSR", [i0, i1, i2])
                with T.init():
                    C[i, j] = 0
                C[i, j] = C[i, j] + T.cast(A[i, r], "int32") * T.cast(B[j, r], "int32")
    return f


def _check(func, sch, n, m, k):
    rng = np.random.default_rng(2)
    a = rng.integers(0, 255, (n, k)).astype("uint8")
    b = rng.integers(-128, 127, (m, k)).astype("int8")
    c = tvm.nd.empty((n, m), "int32")
    tvm.build(sch.mod["main"])(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_equal(c.numpy(), a.astype("int32") @ b.astype("int32").T)


def test_tile_and_tensorize_dense():
    n, m, k = 5, 32, 8
    func = _dense(n, m, k)
    s = Schedule(func)
    block = s.get_block("compute")
    info = get_tensorize_loop_mapping(s, block, TensorIntrin.get(VNNI_DOT_16x4_INTRIN).desc)
    assert sorted(info.positions.items()) == [(1, 0), (2, 1)]  # j -> the 16 lanes, k -> 4
    loop = tile_with_tensor_intrin(s, block, VNNI_DOT_16x4_INTRIN)
    loops = s.get_loops(block)
    assert [s.get(lp).extent.value for lp in loops] == [5, 2, 2, 16, 4]
    assert s.get(loop).same_as(s.get(loops[3]))
    s.decompose_reduction(block, loops[0])
    s.tensorize(loop, VNNI_DOT_16x4_INTRIN)
    _check(func, s, n, m, k)


def test_tile_with_padding_of_odd_extents():
    n, m, k = 3, 21, 10  # neither 16 nor 4 divides: padded to 32 and 12
    func = _dense(n, m, k)
    s = Schedule(func)
    block = s.get_block("compute")
    assert tile_with_tensor_intrin(s, block, VNNI_DOT_16x4_INTRIN) is None
    for idx in (0, 1):  # pad_einsum pads intermediate buffers only
        s.cache_read(block, idx, "global")
    s.cache_write(block, 0, "global")
    loop = tile_with_tensor_intrin(s, block, VNNI_DOT_16x4_INTRIN, allow_padding=True)
    assert loop is not None
    assert [s.get(lp).extent.value for lp in s.get_loops(block)] == [3, 2, 3, 16, 4]
    _check(func, s, n, m, k)


def test_no_mapping_without_a_reduction():
    @T.prim_func
    def ew(A: T.Buffer((16, 4), "int32"), B: T.Buffer((16, 4), "int32")):
        for i, j in T.grid(16, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

    s = Schedule(ew)
    assert tile_with_tensor_intrin(s, s.get_block("B"), VNNI_DOT_16x4_INTRIN) is None


def test_split_keeps_inner_unit_loops_bound():
    @T.prim_func
    def f(A: T.Buffer((6, 1, 5), "float32"), B: T.Buffer((6, 1, 5), "float32")):
        for i, u, j in T.grid(6, 1, 5):
            with T.block("B"):
                vi, vu, vj = T.axis.remap("SSS", [i, u, j])
                B[vi, vu, vj] = A[vi, vu, vj] + T.float32(1)

    s = Schedule(f)
    i, u, _ = s.get_loops("B")
    s.split(i, [None, 4])  # non-divisible
    realizes = []
    tvm.tir.stmt_functor.post_order_visit(
        s.mod["main"].body, lambda x: realizes.append(x) if isinstance(
            x, tvm.tir.BlockRealize) and x.block.name_hint == "B" else None)
    assert realizes[0].iter_values[1].same_as(s.get(u).loop_var)  # not folded to 0
    a = np.random.default_rng(0).standard_normal((6, 1, 5)).astype("float32")
    b = tvm.nd.empty((6, 1, 5), "float32")
    tvm.build(s.mod["main"])(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1)
