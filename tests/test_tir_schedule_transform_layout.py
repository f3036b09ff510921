"""transform_layout, set_axis_separator and tir.IndexMap: the scheduled build against numpy on
random inputs at odd sizes, the trace round trip, and the refusals."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.tir.schedule import Schedule, ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip

N, M = 15, 14


def _chain(n=N, m=M):
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + 1.0, name="C")
    return te.create_prim_func([A, C])


def _run(mod, *arrays):
    f = tvm.build(mod, target="llvm")
    nd = [tvm.nd.array(a) for a in arrays]
    f(*nd)
    return nd[-1].numpy()


def _rand(*shape):
    return np.random.default_rng(7).random(shape, dtype=np.float32)


def test_intermediate_buffer_matches_numpy():
    func = _chain()
    sch = Schedule(func, debug_mask="all")
    sch.transform_layout(sch.get_block("B"), ("write", 0), lambda i, j: (j, i // 5, i % 5))
    b = sch.get(sch.get_block("B")).writes[0].buffer
    assert [int(x) for x in b.shape] == [M, 3, 5]
    a = _rand(N, M)
    np.testing.assert_allclose(_run(sch.mod, a, np.zeros((N, M), "float32")), a * 2 + 1,
                               rtol=1e-6)
    verify_trace_roundtrip(sch, func)


def test_input_buffer_by_name_changes_the_parameter():
    func = _chain()
    sch = Schedule(func)
    sch.transform_layout("B", "A", lambda i, j: [i // 5, j, i % 5])
    a = _rand(N, M)
    packed = np.ascontiguousarray(a.reshape(3, 5, M).transpose(0, 2, 1))
    np.testing.assert_allclose(_run(sch.mod, packed, np.zeros((N, M), "float32")),
                               a * 2 + 1, rtol=1e-6)
    verify_trace_roundtrip(sch, func)


def test_index_map_object_and_star_args():
    func = _chain()
    sch = Schedule(func)
    imap = tir.IndexMap.from_func(lambda *idx, j: [*idx, j // 7, j % 7], ndim=2)
    sch.transform_layout(sch.get_block("C"), ("write", 0), imap)
    c = sch.get(sch.get_block("C")).writes[0].buffer
    assert [int(x) for x in c.shape] == [N, 2, 7]
    a = _rand(N, M)
    out = _run(sch.mod, a, np.zeros((N, 2, 7), "float32"))
    np.testing.assert_allclose(out.reshape(N, M), a * 2 + 1, rtol=1e-6)


def test_padding_needs_pad_value_or_injective_assumption():
    func = _chain(13, 11)
    sch = Schedule(func)
    with pytest.raises(ScheduleError, match=r'transform_layout: block "B".*pads buffer "B"'):
        sch.transform_layout("B", "B", lambda i, j: [i // 4, j, i % 4])
    assert len(sch.trace) == 0
    sch.transform_layout("B", "B", lambda i, j: [i // 4, j, i % 4],
                         assume_injective_transform=True)
    assert [int(x) for x in sch.get(sch.get_block("B")).writes[0].buffer.shape] == [4, 11, 4]
    a = _rand(13, 11)
    np.testing.assert_allclose(_run(sch.mod, a, np.zeros((13, 11), "float32")), a * 2 + 1,
                               rtol=1e-6)


@pytest.mark.parametrize("buffer, pad, match", [
    (("read", 3), None, "read buffer index 3 is out of range"),
    ("nothing", None, 'no buffer named "nothing"'),
    ("B", 1, "pad_value has dtype int32"),
])
def test_refusals_name_primitive_block_and_reason(buffer, pad, match):
    sch = Schedule(_chain(13, 11))
    with pytest.raises(ScheduleError, match=match) as info:
        sch.transform_layout("B", buffer, lambda i, j: [i // 4, j, i % 4], pad_value=pad)
    assert 'transform_layout: block "B"' in str(info.value)


def test_index_out_of_range_is_also_an_assertion_error():
    sch = Schedule(_chain())
    with pytest.raises(AssertionError):
        sch.set_axis_separator("B", ("write", 1), [1])


def test_wrong_arity_is_refused():
    sch = Schedule(_chain())
    with pytest.raises(ScheduleError, match="takes 1 indices, the buffer has 2"):
        sch.transform_layout("B", "B", lambda i: [i])


def test_axis_separators():
    func = _chain()
    sch = Schedule(func, debug_mask="all")
    sch.transform_layout("B", "B", lambda i, j: [i, tir.IndexMap.AXIS_SEPARATOR, j])
    assert sch.get(sch.get_block("B")).writes[0].buffer.axis_separators == (1,)
    verify_trace_roundtrip(sch, func)
    sch2 = Schedule(func)
    sch2.set_axis_separator("C", ("read", 0), [1])
    tvm.ir.assert_structural_equal(sch.mod["main"], sch2.mod["main"])
    with pytest.raises(ScheduleError, match="set_axis_separator"):
        sch2.set_axis_separator("C", ("read", 0), [2])
