"""Classic ``tir.Schedule`` conveniences: block names for get_loops/get_producers/
get_consumers, ``get_output_blocks``, ``add_unit_loop``; results checked with numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.tir.schedule.testing import verify_trace_roundtrip


def _chain():
    A = te.placeholder((5, 7), name="A")
    B = te.compute((5, 7), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((5, 7), lambda i, j: B[i, j] + 1, name="C")
    return tir.Schedule(te.create_prim_func([A, C]))


def _check(sch):
    f = tvm.build(sch.mod, target="llvm")
    a = np.random.rand(5, 7).astype("float32")
    c = tvm.nd.array(np.zeros((5, 7), "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)


def test_queries_accept_block_names():
    sch = _chain()
    assert sch.get_loops("C") == sch.get_loops(sch.get_block("C"))
    assert [b.name for b in sch.get_producers("C")] == ["B"]
    assert [b.name for b in sch.get_consumers("B")] == ["C"]
    with pytest.raises(tir.ScheduleError, match="Cannot find a block with the name: D"):
        sch.get_loops("D")


def test_get_output_blocks_of_the_root_scope():
    sch = _chain()
    assert [b.name for b in sch.get_output_blocks("root")] == ["C"]
    assert [b.name for b in sch.get_output_blocks(sch.get_block("root"))] == ["C"]


def test_add_unit_loop_above_a_block_and_a_loop():
    sch = _chain()
    u = sch.add_unit_loop(sch.get_block("B"))
    assert sch.get(u).extent.value == 1 and sch.get_loops("B")[-1] == u
    i, j = sch.get_loops("C")
    u2 = sch.add_unit_loop(j)
    assert sch.get_loops("C") == [i, u2, j]
    _check(sch)
    verify_trace_roundtrip(sch, mod=_chain().mod)


def test_add_unit_loop_refuses_the_root_block():
    sch = _chain()
    with pytest.raises(tir.ScheduleError, match="root block"):
        sch.add_unit_loop(sch.get_block("root"))
    with pytest.raises(TypeError):
        sch.add_unit_loop(42)


@pytest.mark.parametrize("level,text", [
    ("detail", "Cannot find a block with the name: nope"),
    ("fast", "Cannot find a block with the specified name"),
    ("none", "(not rendered)"),
])
def test_missing_block_error_texts_by_render_level(level, text):
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]), error_render_level=level)
    with pytest.raises(tir.ScheduleError) as info:
        sch.get_block("nope")
    assert text in info.value.args[0]


def test_primitives_take_block_names():
    sch = _chain()
    sch.compute_inline("B")
    sch.add_unit_loop("C")
    assert [b.name for b in sch.get_child_blocks(sch.get_block("root"))] == ["C"]
    _check(sch)
    with pytest.raises(tir.ScheduleError, match="Cannot find a block"):
        sch.reverse_compute_inline("nope")
