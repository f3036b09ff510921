"""tir.Schedule.decompose_reduction: the init block's predicate after a non-divisible split
of the reduction loop."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T
from tvmlite.tir.expr import LT
from tvmlite.tir.schedule import Schedule, ScheduleError
from tvmlite.tir.schedule.state import is_true, walk_stmts
from tvmlite.tir.stmt import BlockRealize


@T.prim_func
def rowsum(A: T.Buffer((13, 23), "float32"), B: T.Buffer((13,), "float32")):
    for i, k in T.grid(13, 23):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_init_predicate_over_reduction_loops_folds_away():
    sch = tvm.tir.Schedule(rowsum)
    i, k = sch.get_loops(sch.get_block("B"))
    io, ii = sch.split(i, factors=[None, 4])
    ko, ki = sch.split(k, factors=[None, 5])
    init = sch.decompose_reduction(sch.get_block("B"), ii)
    # ``io * 4 + ii < 13`` stays; ``ko * 5 + ki < 23`` at ko = ki = 0 is true and goes
    name = sch.get(init).name_hint
    realize = [r for r in _realizes(sch.mod["main"].body) if r.block.name_hint == name][0]
    pred = realize.predicate
    assert not is_true(pred)
    assert isinstance(pred, LT) and pred.b.value == 13, pred
    a = np.random.default_rng(3).standard_normal((13, 23)).astype("float32")
    b = tvm.nd.array(np.full(13, 7, "float32"))
    tvm.build(sch.mod["main"], target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(axis=1), rtol=1e-5)


def _realizes(stmt):
    out = []
    walk_stmts(stmt, lambda s: out.append(s) if isinstance(s, BlockRealize) else None)
    return out



def test_decompose_reduction_renames_the_update_block_and_handles_follow():
    n, m = 7, 13
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = Schedule(te.create_prim_func([A, B]), debug_mask="all")
    blk = s.get_block("B")
    _, kk = s.get_loops(blk)
    init = s.decompose_reduction(blk, kk)
    assert s.get(blk).same_as(s.get(s.get_block("B_update")))  # the handle follows
    assert s.get(init).name_hint == "B_init"
    with pytest.raises(ScheduleError):
        s.get_block("B")  # the old name is gone, as in classic TVM
    ko, ki = s.split(s.get_loops(blk)[1], [None, 4])  # the old handle keeps working
    s.reorder(ki, ko)
    f = tvm.build(s.mod["main"], target="llvm")
    a = np.random.default_rng(3).standard_normal((n, m)).astype("float32")
    b = tvm.nd.array(np.full((n,), 9.0, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(axis=1), rtol=1e-5)
