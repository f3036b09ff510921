"""Schedule.get_sref (classic StmtSRef: ``.stmt``, ``same_as``) and handle lookups that fail
with an error that is both a ScheduleError and classic TVM's IndexError."""
import pytest

from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError, StmtSRef


@T.prim_func
def rowsum(A: T.Buffer((7, 13), "float32"), B: T.Buffer((7,), "float32")):
    for i, k in T.grid(7, 13):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_get_sref_names_the_current_node():
    s = Schedule(rowsum)
    b = s.get_block("B")
    i, k = s.get_loops(b)
    sref = s.get_sref(b)
    assert isinstance(sref, StmtSRef)
    assert sref.stmt is s.get(b)
    assert s.state.get_sref(s.get(b)).same_as(sref)
    assert s.get_sref(k).stmt.extent.value == 13
    s.split(k, [None, 4])
    assert s.get_sref(b).stmt is s.get(b)
    with pytest.raises(IndexError, match='loop "k"'):
        s.get_sref(k)  # split replaced the loop


def test_srefs_of_a_copy_differ_but_share_nodes():
    s = Schedule(rowsum)
    i, k = s.get_loops(s.get_block("B"))
    c = s.copy()
    assert not s.get_sref(i).same_as(c.get_sref(i))
    assert s.get_sref(i).stmt is c.get_sref(i).stmt
    k0, _ = s.split(k, [None, 4])
    with pytest.raises(IndexError):
        c.get_sref(k0)
    with pytest.raises(ScheduleError, match='loop "k_0"'):
        c.get(k0)
    assert s.get_sref(k0).stmt.extent.value == 4


def test_removed_handle_is_an_index_error():
    s = Schedule(rowsum)
    b = s.get_block("B")
    s.remove_rv(b)
    with pytest.raises(IndexError, match="remove_rv"):
        s.get(b)
    with pytest.raises(ScheduleError):
        s.get_sref(b)
