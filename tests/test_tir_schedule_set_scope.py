"""set_scope: the buffer named by index, name or Buffer; buffers matched to a region of it
(``T.match_buffer`` in a block) follow it into the new scope. Built results are compared with
the unscheduled function."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func
def two_stage(A: T.Buffer((13, 7), "float32"), C: T.Buffer((13, 7), "float32")):
    B = T.alloc_buffer((13, 7))
    for i, j in T.grid(13, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(13, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def two_stage_matched(A: T.Buffer((13, 7), "float32"), C: T.Buffer((13, 7), "float32")):
    B = T.alloc_buffer((13, 7))
    for i, j in T.grid(13, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            Bs = T.match_buffer(B[vi, vj], [], offset_factor=1)
            Bs[()] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(13, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            Bt = T.match_buffer(B[vi, vj], [], offset_factor=1)
            C[vi, vj] = Bt[()] + T.float32(1)


def _same_as_unscheduled(func, sch):
    a = np.random.default_rng(3).random((13, 7), dtype=np.float32)
    outs = []
    for f in (func, sch.mod["main"]):
        lib = tvm.build(tvm.IRModule({"main": f}), target="llvm")
        c = tvm.nd.array(np.zeros((13, 7), "float32"))
        lib(tvm.nd.array(a), c)
        outs.append(c.numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
    np.testing.assert_allclose(outs[0], a * 2 + 1, rtol=1e-6)


def _alloc_scope(sch):
    (buf,) = sch.mod["main"].body.block.alloc_buffers
    return buf.scope()


@pytest.mark.parametrize("pick", ["index", "name", "buffer"])
def test_set_scope_by_index_name_or_buffer(pick):
    s = Schedule(two_stage)
    blk = s.get_block("B")
    arg = {"index": 0, "name": "B", "buffer": s.get(blk).writes[0].buffer}[pick]
    s.set_scope(blk, arg, "local")
    assert _alloc_scope(s) == "local"
    _same_as_unscheduled(two_stage, s)


def test_set_scope_unknown_buffer_name():
    s = Schedule(two_stage)
    with pytest.raises(ScheduleError, match='set_scope.*block "B".*no buffers called \'A\''):
        s.set_scope("B", "A", "local")


def test_set_scope_moves_matched_subregions():
    s = Schedule(two_stage_matched)
    s.set_scope("B", 0, "local")
    assert _alloc_scope(s) == "local"
    for name in ("B", "C"):
        (m,) = s.get(s.get_block(name)).match_buffers
        assert m.buffer.scope() == "local" and m.source.buffer.scope() == "local"
    _same_as_unscheduled(two_stage_matched, s)
