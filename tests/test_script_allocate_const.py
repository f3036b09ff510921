"""``T.allocate_const``: parse, print, round-trip, schedule and build a constant buffer."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.ir import assert_structural_equal
from tvmlite.script import from_source
from tvmlite.script import tir as T

WEIGHTS = [0.5, -1.25, 2.0, 0.75, -0.5, 3.0, 1.5]


@T.prim_func
def scale_add(A: T.Buffer((5, 7), "float32"), C: T.Buffer((5, 7), "float32")):
    B = T.alloc_buffer([5, 7], dtype="float32")
    w = T.allocate_const([0.5, -1.25, 2.0, 0.75, -0.5, 3.0, 1.5], "float32", [7])
    W = T.Buffer([7], dtype="float32", data=w)
    for i, j in T.grid(5, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * W[vj]
    for i, j in T.grid(5, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + W[6 - vj]


def _run(mod):
    f = tvm.build(mod, target="llvm")
    a = np.random.uniform(-1, 1, (5, 7)).astype("float32")
    c = tvm.nd.array(np.zeros((5, 7), "float32"))
    f(tvm.nd.array(a), c)
    return a, c.numpy()


def test_allocate_const_prints_and_round_trips():
    text = scale_add.script()
    assert 'T.allocate_const([0.5, -1.25, 2.0, 0.75, -0.5, 3.0, 1.5], "float32", [7])' in text
    back = from_source(text)
    assert_structural_equal(scale_add, back)
    assert back.script() == text


def test_allocate_const_builds_with_its_data():
    a, got = _run(scale_add)
    w = np.array(WEIGHTS, "float32")
    np.testing.assert_allclose(got, a * w + w[::-1], rtol=1e-6)


def test_allocate_const_scheduled_equals_unscheduled():
    sch = tvm.tir.Schedule(scale_add)
    sch.compute_inline(sch.get_block("B"))
    i, j = sch.get_loops(sch.get_block("C"))
    jo, ji = sch.split(j, [None, 4])
    sch.reorder(ji, i)
    a, want = _run(scale_add)
    f = tvm.build(sch.mod, target="llvm")
    c = tvm.nd.array(np.zeros((5, 7), "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-6)


def test_allocate_const_checks_its_size():
    with pytest.raises(ValueError, match="3 values for extents"):
        T.allocate_const([1.0, 2.0, 3.0], "float32", [4])
