"""tir.Schedule.decompose_reduction: the init block's predicate after a non-divisible split
of the reduction loop."""
import numpy as np

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.expr import LT
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
