"""Memory-access traces (space-time diagrams) of schedules on the reference interpreter."""
import numpy as np
import pytest

from tvmlite import te, tir
from tvmlite.contrib.memory_trace import plot_memory_traces, trace_memory
from tvmlite.error import TVMError


def _copy2d(m, n):
    A = te.placeholder((m, n), name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] * 2.0, name="B")
    return A, B


def test_trace_records_loads_then_stores_in_loop_order():
    A, B = _copy2d(3, 5)
    s = te.create_schedule(B.op)
    a = np.random.rand(3, 5).astype("float32")
    b = np.zeros((3, 5), "float32")
    tr = trace_memory(s, [A, B], [a, b])
    np.testing.assert_allclose(b, a * 2)  # the run really computed the output
    assert tr.steps == 30 and tr.buffers() == ["A", "B"]
    steps, addr, store = tr.buffer("A")
    assert list(addr) == list(range(15)) and not store.any()
    steps_b, addr_b, store_b = tr.buffer("B")
    assert list(addr_b) == list(range(15)) and store_b.all()
    assert (steps_b == steps + 1).all()  # each store right after its load


def test_reorder_changes_the_address_order():
    A, B = _copy2d(3, 5)
    s = te.create_schedule(B.op)
    i, j = B.op.axis
    s[B].reorder(j, i)
    _, addr, _ = trace_memory(s, [A, B]).buffer("A")
    assert list(addr) == [i * 5 + j for j in range(5) for i in range(3)]


def test_vector_lanes_share_a_time_step():
    A, B = _copy2d(2, 10)
    s = te.create_schedule(B.op)
    _, ji = s[B].split(B.op.axis[1], factor=4)
    s[B].vectorize(ji)
    tr = trace_memory(s, [A, B])
    steps, addr, _ = tr.buffer("A")
    assert len(addr) == 20 and sorted(addr) == list(range(20))
    # per row: tiles of 4, 4 and 2 lanes, one load step and one store step each
    assert tr.steps == 2 * 3 * 2
    assert list(addr[steps == 0]) == [0, 1, 2, 3]


def test_tensorir_function_and_bad_input():
    A, B = _copy2d(2, 3)
    func = te.create_prim_func([A, B])
    assert trace_memory(func).steps == 12
    with pytest.raises(TVMError, match="te.Schedule or a tir.PrimFunc"):
        trace_memory("not a schedule")
    with pytest.raises(TVMError, match="2 buffers but 1 inputs"):
        trace_memory(func, inputs=[np.zeros((2, 3), "float32")])
    assert isinstance(func, tir.PrimFunc)


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    A, B = _copy2d(2, 3)
    tr = trace_memory(te.create_schedule(B.op), [A, B])
    path = tmp_path / "trace.png"
    plot_memory_traces({"default": tr}, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
