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


# --------------------------------------------------------------------------- pad_value
def _padded(a, shape, fmap, pad):
    """``a`` stored in the layout ``fmap`` (a numpy index function) with ``pad`` elsewhere."""
    out = np.full(shape, pad, a.dtype)
    for idx in np.ndindex(*a.shape):
        out[tuple(fmap(*idx))] = a[idx]
    return out


def _split_rows(i, j):
    return [i // 4, j, i % 4]


def test_pad_value_rewrites_a_row_major_producer():
    func = _chain(13, 11)
    sch = Schedule(func, debug_mask="all")
    sch.transform_layout("C", "C", _split_rows, pad_value=-1.0)
    c = sch.get(sch.get_block("C"))
    assert [int(x) for x in c.writes[0].buffer.shape] == [4, 11, 4]
    assert len(c.iter_vars) == 3 and "if_then_else" in sch.mod.script()
    a = _rand(13, 11)
    out = _run(sch.mod, a, np.zeros((4, 11, 4), "float32"))
    np.testing.assert_allclose(out, _padded(a * 2 + 1, (4, 11, 4), _split_rows, -1.0),
                               rtol=1e-6)
    verify_trace_roundtrip(sch, func)


def test_pad_value_of_an_intermediate_and_an_index_dependent_value():
    func = _chain(13, 11)
    sch = Schedule(func)
    sch.transform_layout("B", "B", _split_rows, pad_value=lambda x, y, z: tir.Cast(
        "float32", x + y + z))
    a = _rand(13, 11)
    np.testing.assert_allclose(_run(sch.mod, a, np.zeros((13, 11), "float32")), a * 2 + 1,
                               rtol=1e-6)


def test_pad_value_after_a_reordered_producer_gets_a_padding_block():
    func = _chain(13, 11)
    sch = Schedule(func)
    i, j = sch.get_loops(sch.get_block("C"))
    sch.reorder(j, i)  # no longer row-major: the padding is filled afterwards
    sch.transform_layout("C", "C", _split_rows, pad_value=-1.0)
    assert sch.get_block("buffer_C_padding") is not None
    a = _rand(13, 11)
    out = _run(sch.mod, a, np.zeros((4, 11, 4), "float32"))
    np.testing.assert_allclose(out, _padded(a * 2 + 1, (4, 11, 4), _split_rows, -1.0),
                               rtol=1e-6)


def test_pad_value_of_an_input_states_an_assumption():
    func = _chain(13, 11)
    sch = Schedule(func)
    sch.transform_layout("B", "A", _split_rows, pad_value=0.0)
    assert "T.assume" in sch.mod.script()
    a = _rand(13, 11)
    packed = _padded(a, (4, 11, 4), _split_rows, 0.0)
    np.testing.assert_allclose(_run(sch.mod, packed, np.zeros((13, 11), "float32")),
                               a * 2 + 1, rtol=1e-6)


def test_pad_value_of_a_reduction_output():
    n, k = 13, 9
    A = te.placeholder((n, k), name="A")
    r = te.reduce_axis((0, k), name="r")
    B = te.compute((n,), lambda i: te.sum(A[i, r], axis=r), name="B")
    func = te.create_prim_func([A, B])
    sch = Schedule(func, debug_mask="all")
    sch.transform_layout("B", "B", lambda i: [i // 4, i % 4], pad_value=5.0)
    a = _rand(n, k)
    out = _run(sch.mod, a, np.full((4, 4), 7, "float32"))
    np.testing.assert_allclose(out, _padded(a.sum(1), (4, 4), lambda i: [i // 4, i % 4], 5.0),
                               rtol=1e-5)
    verify_trace_roundtrip(sch, func)


def test_pad_value_producer_reading_other_elements_is_not_reordered():
    @tvm.script.tir.prim_func
    def prefix(A: tvm.script.tir.Buffer((13,), "float32"),
               B: tvm.script.tir.Buffer((13,), "float32")):
        T = tvm.script.tir
        for i in range(13):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = T.if_then_else(vi == 0, A[vi], B[vi - 1] + A[vi])

    sch = Schedule(prefix)
    sch.transform_layout("B", "B", lambda i: [i // 4, i % 4], pad_value=0.0)
    assert sch.get_block("buffer_B_padding") is not None
    a = _rand(13)
    out = _run(sch.mod, a, np.full((4, 4), 9, "float32"))
    np.testing.assert_allclose(out, _padded(np.cumsum(a), (4, 4), lambda i: [i // 4, i % 4],
                                            0.0), rtol=1e-5)


def test_padding_an_index_map_that_cannot_be_inverted_is_refused():
    sch = Schedule(_chain(13, 11))
    with pytest.raises(ScheduleError, match=r'transform_layout: block "B": tvmlite cannot '
                       r'place the padding of buffer "B"'):
        sch.transform_layout("B", "B", lambda i, j: [i // 4, j, i % 3], pad_value=0.0)
    assert len(sch.trace) == 0


def test_index_map_inverse_and_padding_predicate():
    imap = tir.IndexMap.from_func(lambda i: [i // 4, i % 4])
    inv, pad = imap.non_surjective_inverse([14])
    assert [int(x) for x in imap.map_shape([14])] == [4, 4]
    got = []
    for a in range(4):
        for b in range(4):
            vals = {v: tir.const(x, "int32") for v, x in zip(inv.initial_indices, (a, b))}
            (i,) = [tvm.arith.Analyzer().simplify(tir.stmt_functor.substitute(e, vals))
                    for e in inv.final_indices]
            p = tvm.arith.Analyzer().simplify(tir.stmt_functor.substitute(pad, vals))
            got.append((int(i), bool(p)))
    assert got == [(a * 4 + b, a * 4 + b >= 14) for a in range(4) for b in range(4)]
    fused = tir.IndexMap.from_func(lambda i, j: [i * 7 + j])
    assert str(fused.inverse([3, 7])) == "lambda axis0: [axis0 // 7, axis0 % 7]"
    with pytest.raises(ValueError, match="pads"):
        imap.inverse([14])


def test_padding_a_buffer_accessed_opaquely_is_refused():
    @tvm.script.tir.prim_func
    def opaque(A: tvm.script.tir.Buffer((13,), "float32")):
        T = tvm.script.tir
        for i in range(13):
            with T.block("A"):
                vi = T.axis.remap("S", [i])
                A[vi] = T.float32(1)
        with T.block("ext"):
            T.evaluate(T.call_extern("int32", "consume", A.data, 13))

    sch = Schedule(opaque)
    with pytest.raises(ScheduleError, match=r'cannot fill the padding of buffer "A": the '
                       r"buffer is accessed through its data pointer"):
        sch.transform_layout("A", "A", lambda i: [i // 4, i % 4], pad_value=0.0)


@tvm.script.tir.prim_func
def _copy_with_n(A: tvm.script.tir.Buffer((16,), "int32"),
                 B: tvm.script.tir.Buffer((16,), "int32"), n: tvm.script.tir.int32):
    T = tvm.script.tir
    for i in range(16):
        with T.block("block"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + 1


@pytest.mark.parametrize("n", [5, 4, 3])
def test_pad_value_with_a_symbolic_factor(n):
    sch = Schedule(_copy_with_n)
    var_n = sch.mod["main"].params[2]
    sch.transform_layout("block", "B", lambda i: [i // var_n, i % var_n], pad_value=-7)
    f = tvm.build(sch.mod, target="llvm")
    rows = -(-16 // n)
    a = np.arange(16, dtype="int32")
    b = tvm.nd.array(np.zeros((rows, n), "int32"))
    f(tvm.nd.array(a), b, n)
    want = np.full(rows * n, -7, "int32")
    want[:16] = a + 1
    np.testing.assert_array_equal(b.numpy(), want.reshape(rows, n))
