"""Classic TE with symbolic extents: split by a variable factor, rfactor over a symbolic
reduction extent (the classic ``reduction`` tutorial)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


def _row_sum():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return A, B


def _check(s, A, B, extra=(), shape=(7, 37)):
    f = tvm.build(s, [A, B, *[v for v, _ in extra]])
    a = np.random.rand(*shape).astype("float32")
    b = tvm.nd.array(np.zeros(shape[0], "float32"))
    f(tvm.nd.array(a), b, *[x for _, x in extra])
    np.testing.assert_allclose(b.numpy(), a.sum(1), rtol=1e-5)


@pytest.mark.parametrize("factor", [16, 5])
def test_rfactor_over_a_symbolic_reduction_extent(factor):
    A, B = _row_sum()
    s = te.create_schedule(B.op)
    _, ki = s[B].split(B.op.reduce_axis[0], factor=factor)
    BF = s.rfactor(B, ki)
    assert BF.shape[0].value == factor
    _check(s, A, B)


@pytest.mark.parametrize("fval", [1, 3, 8, 40])
def test_split_by_a_symbolic_factor(fval):
    A, B = _row_sum()
    f = te.var("f")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=f)
    ko, ki = s[B].split(B.op.reduce_axis[0], nparts=f)
    s[B].reorder(xo, ko, xi, ki)
    _check(s, A, B, [(f, fval)])


@pytest.mark.parametrize("fval", [2, 5, 37])
def test_rfactor_of_a_symbolic_nparts_split(fval):
    A, B = _row_sum()
    f = te.var("f")
    s = te.create_schedule(B.op)
    ko, _ = s[B].split(B.op.reduce_axis[0], nparts=f)
    s.rfactor(B, ko)
    _check(s, A, B, [(f, fval)])


def test_split_by_a_float_expression_is_refused():
    _, B = _row_sum()
    s = te.create_schedule(B.op)
    with pytest.raises(tvm.TVMError, match="integer"):
        s[B].split(B.op.axis[0], factor=te.var("x", "float32"))


def test_expr_equal_builds_an_eq_node():
    x = te.var("x")
    e = x.equal(3)
    assert isinstance(e, tvm.tir.EQ) and e.a is x and e.b.value == 3


def _fixed_row_sum():
    A = te.placeholder((7, 9), name="A")
    k = te.reduce_axis((0, 9), "k")
    return A, k, te.compute((7,), lambda i: te.sum(A[i, k], axis=k), name="B")


@pytest.mark.parametrize("split", [None, 4, 5])
def test_fuse_of_a_spatial_and_a_reduction_itervar_is_a_reduction(split):
    A, k, B = _fixed_row_sum()
    s = te.create_schedule(B.op)
    f = s[B].fuse(B.op.axis[0], k)
    assert f.iter_type == tvm.tir.IterVar.CommReduce
    if split:
        s[B].split(f, factor=split)
    _check(s, A, B, shape=(7, 9))


def test_rfactor_refuses_a_mixed_fuse():
    _, k, B = _fixed_row_sum()
    s = te.create_schedule(B.op)
    f = s[B].fuse(B.op.axis[0], k)
    with pytest.raises(tvm.TVMError, match="rfactor"):
        s.rfactor(B, f)
