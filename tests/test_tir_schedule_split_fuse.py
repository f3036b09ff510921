"""split / fuse refuse annotated loops (classic TVM does: the annotation would have no single
loop to stay on); annotating after the split or fuse is the way, and builds the same result."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func
def scale(A: T.Buffer((5, 13), "float32"), B: T.Buffer((5, 13), "float32")):
    for i, j in T.grid(5, 13):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0


def test_annotated_loop_is_neither_split_nor_fused():
    sch = Schedule(scale)
    i, j = sch.get_loops(sch.get_block("B"))
    sch.annotate(j, "pragma_unroll_explicit", 1)
    with pytest.raises(ScheduleError, match='split.*loop "j".*annotations'):
        sch.split(j, [None, 4])
    with pytest.raises(ScheduleError, match='fuse.*loop "j".*annotations'):
        sch.fuse(i, j)
    sch.unannotate(j, "pragma_unroll_explicit")
    _, ji = sch.split(j, [None, 4])
    sch.annotate(ji, "pragma_unroll_explicit", 1)
    a = np.random.default_rng(5).random((5, 13), dtype=np.float32)
    b = tvm.nd.array(np.zeros((5, 13), "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2.0, rtol=1e-6)
