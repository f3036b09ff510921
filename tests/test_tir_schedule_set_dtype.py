"""``unsafe_set_dtype``: an intermediate buffer stored in another element type; stores cast to
it, loads cast back, the result matches numpy at that precision; illegal uses are refused."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.ir.structural import structural_equal
from tvmlite.script import tir as T
from tvmlite.tir.schedule import ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip

N, M = 13, 7


def _chain(dtype="float32"):
    A = te.placeholder((N, M), name="A", dtype=dtype)
    B = te.compute((N, M), lambda i, j: A[i, j] * 3.0 + 0.1, name="B")
    C = te.compute((N, M), lambda i, j: B[i, j] + 1.0, name="C")
    return te.create_prim_func([A, C])


@T.prim_func
def viewed(a: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (N, M))
    C = T.match_buffer(c, (N, M))
    B = T.alloc_buffer((N, M))
    for i, j in T.grid(N, M):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            V = T.match_buffer(B[vi, vj], (), offset_factor=1)
            V[()] = A[vi, vj] * 3.0
    for i, j in T.grid(N, M):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            W = T.match_buffer(B[vi, vj], (), offset_factor=1)
            C[vi, vj] = W[()] + 1.0


def _run(mod, a):
    c = tvm.nd.empty((N, M), "float32")
    tvm.build(mod, target="llvm")(tvm.nd.array(a), c)
    return c.numpy()


@pytest.mark.parametrize("dtype, rtol", [("float16", 1e-3), ("float64", 1e-6),
                                         ("int32", 0)])
def test_set_dtype_computes_at_the_new_precision(dtype, rtol):
    func = _chain()
    sch = tir.Schedule(func, debug_mask="all")
    sch.unsafe_set_dtype("B", 0, dtype)
    b = [x for x in sch.mod["main"].body.block.alloc_buffers if x.name == "B"]
    assert b[0].dtype == dtype
    verify_trace_roundtrip(sch, func, text_format=("python", "json"))
    a = (np.random.default_rng(1).random((N, M)) * 8).astype("float32")
    stored = (a * 3.0 + np.float32(0.1)).astype(dtype).astype("float32")
    want = stored + 1.0
    np.testing.assert_allclose(_run(sch.mod, a), want, rtol=max(rtol, 1e-6))
    if dtype == "int32":  # truncation shows: not the float32 result
        assert not np.allclose(_run(func, a), want)


def test_set_dtype_follows_matched_views():
    sch = tir.Schedule(viewed)
    sch.unsafe_set_dtype(sch.get_block("B"), 0, "float16")
    views = []
    tvm.tir.stmt_functor.post_order_visit(
        sch.mod["main"].body,
        lambda x: views.extend(m.buffer.dtype for m in getattr(x, "match_buffers", ())))
    assert views == ["float16", "float16"]
    a = np.random.default_rng(2).random((N, M)).astype("float32") - 0.5
    want = (a * 3.0).astype("float16").astype("float32") + 1.0
    np.testing.assert_allclose(_run(sch.mod, a), want, rtol=1e-6)


def test_set_dtype_to_the_same_type_changes_nothing():
    func = _chain()
    sch = tir.Schedule(func)
    sch.unsafe_set_dtype("B", 0, "float32")
    assert structural_equal(sch.mod["main"], func)


@pytest.mark.parametrize("block, index, dtype, reason", [
    ("C", 0, "float16", "function parameter"),
    ("B", 1, "float16", "out of range"),
    ("B", -1, "float16", "out of range"),
    ("B", 0, "floatx", "not a data type"),
    ("B", 0, "float32x4", "not a scalar"),
])
def test_set_dtype_refusals(block, index, dtype, reason):
    func = _chain()
    sch = tir.Schedule(func)
    with pytest.raises(ScheduleError, match=reason) as e:
        sch.unsafe_set_dtype(sch.get_block(block), index, dtype)
    assert "unsafe_set_dtype" in str(e.value) and f'block "{block}"' in str(e.value)
    assert structural_equal(sch.mod["main"], func) and len(sch.trace) == 1
