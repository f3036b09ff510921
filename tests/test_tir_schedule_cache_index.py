"""tir.Schedule.cache_index: pure computations of block iterators precomputed into index
buffers, the results unchanged."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir import ScheduleError


@T.prim_func
def gather(A: T.Buffer((3, 21, 14), "float32"), B: T.Buffer((3, 29, 27), "float32")):
    for c, i, j in T.grid(3, 29, 27):
        with T.block("B"):
            vc, vi, vj = T.axis.remap("SSS", [c, i, j])
            B[vc, vi, vj] = A[vc, vi // 3 + vj // 4, vj // 2] + A[vc, vi // 3 + vj // 4, 0]


def _run(func, seed):
    a = np.random.default_rng(seed).standard_normal((3, 21, 14)).astype("float32")
    b = tvm.nd.array(np.zeros((3, 29, 27), "float32"))
    tvm.build(func, target="llvm")(tvm.nd.array(a), b)
    return a, b.numpy()


def _want(a):
    i, j = np.meshgrid(np.arange(29), np.arange(27), indexing="ij")
    return a[:, i // 3 + j // 4, j // 2] + a[:, i // 3 + j // 4, 0]


def test_cache_index_precomputes_the_index_expressions():
    sch = tvm.tir.Schedule(gather)
    blocks = sch.cache_index(sch.get_block("B"), "global")
    assert [sch.get(b).name_hint for b in blocks] == ["index_0", "index_1"]
    bufs = {b.name: b for b in sch.mod["main"].body.block.alloc_buffers}
    assert [int(s) for s in bufs["index_var_0"].shape] == [29, 27]
    assert [int(s) for s in bufs["index_var_1"].shape] == [27]
    text = sch.mod["main"].script()
    assert "A[vc, index_var_0[vi, vj], index_var_1[vj]]" in text
    a, b = _run(sch.mod["main"], 1)
    np.testing.assert_allclose(b, _want(a), rtol=1e-6)


def test_cache_index_threshold_keeps_only_repeated_computations():
    sch = tvm.tir.Schedule(gather)
    # vi // 3 + vj // 4 appears twice, vj // 2 once
    blocks = sch.cache_index(sch.get_block("B"), "global", 2)
    assert len(blocks) == 1
    assert "index_var_0[vi, vj], vj // 2]" in sch.mod["main"].script()
    a, b = _run(sch.mod["main"], 2)
    np.testing.assert_allclose(b, _want(a), rtol=1e-6)


@T.prim_func
def gather_split(A: T.Buffer((40,), "float32"), B: T.Buffer((29,), "float32")):
    for io, ii in T.grid(8, 4):
        with T.block("B"):
            T.where(io * 4 + ii < 29)
            vi = T.axis.spatial(29, io * 4 + ii)
            B[vi] = A[vi // 3 * 4 + 1]


def test_cache_index_under_a_block_predicate_stays_in_bounds():
    sch = tvm.tir.Schedule(gather_split)
    sch.cache_index(sch.get_block("B"), "global")
    buf = sch.mod["main"].body.block.alloc_buffers[0]
    assert [int(s) for s in buf.shape] == [32]
    a = np.random.default_rng(3).standard_normal(40).astype("float32")
    b = tvm.nd.array(np.zeros(29, "float32"))
    tvm.build(sch.mod["main"], target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a[np.arange(29) // 3 * 4 + 1], rtol=1e-6)


def test_cache_index_refuses_a_negative_threshold():
    sch = tvm.tir.Schedule(gather)
    with pytest.raises(ScheduleError, match="cse_thresh must be a non-negative int"):
        sch.cache_index(sch.get_block("B"), "global", -1)
    with pytest.raises(ScheduleError, match="not a storage scope"):
        sch.cache_index(sch.get_block("B"), "nowhere")
