"""topi.unique against numpy.unique (sorted and in order of first occurrence, with and without
counts, odd sizes, dtypes, all-equal and all-distinct inputs); an extern reading another
extern's output through a view of its input buffer (as unique reads its argsort)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir, topi
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(41)


def numpy_unique(x, is_sorted):
    uniq, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                             return_counts=True)
    if not is_sorted:  # groups in order of first occurrence
        order = np.argsort(index)
        rank = np.argsort(order)
        uniq, index, counts, inverse = uniq[order], index[order], counts[order], rank[inverse]
    return uniq, index, inverse.reshape(-1), counts


@pytest.mark.parametrize("is_sorted", [True, False])
@pytest.mark.parametrize("return_counts", [True, False])
@pytest.mark.parametrize("dtype,n,maxval", [("int32", 1, 5), ("int64", 17, 6), ("float32", 31, 9),
                                            ("int32", 9, 1), ("int32", 13, 1000),
                                            ("int8", 257, 100)])
def test_unique(is_sorted, return_counts, dtype, n, maxval):
    x = RNG.integers(0, maxval, n).astype(dtype)
    uniq, index, inverse, counts = numpy_unique(x, is_sorted)
    k = len(uniq)
    X = te.placeholder((n,), dtype, "X")
    outs = topi.unique(X, is_sorted, return_counts)
    assert len(outs) == (5 if return_counts else 4)
    f = tvm.build(topi.generic.schedule_unique(outs), [X, *outs], "llvm")
    res = [tvm.nd.array(np.full([int(d) for d in o.shape], 7, o.dtype)) for o in outs]
    f(tvm.nd.array(x), *res)
    got = [r.numpy() for r in res]
    assert got[3][0] == k
    np.testing.assert_array_equal(got[0][:k], uniq)
    np.testing.assert_array_equal(got[1][:k], index)
    np.testing.assert_array_equal(got[2], inverse)
    np.testing.assert_array_equal(got[0][k:], 0)
    if return_counts:
        np.testing.assert_array_equal(got[4][:k], counts)


def test_unique_needs_1d():
    with pytest.raises(TopiError, match="1-D"):
        topi.unique(te.placeholder((2, 3), "int32"))


def test_extern_reads_an_intermediate_extern_through_a_view():
    A = te.placeholder((6,), name="A")
    B = topi.argsort(A, dtype="int32")

    def ir(b, c):
        ib = tir.ir_builder.create()
        bp, cp = ib.buffer_ptr(b), ib.buffer_ptr(c)
        with ib.for_range(0, 6) as i:
            cp[i] = bp[i] * 2
        return ib.get()
    C = te.extern((6,), [B], lambda ins, outs: ir(ins[0], outs[0]), dtype="int32")
    f = tvm.build(te.create_schedule(C.op), [A, C], "llvm")
    a = RNG.uniform(size=6).astype("float32")
    c = tvm.nd.array(np.zeros(6, "int32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_array_equal(c.numpy(), np.argsort(a, kind="stable") * 2)
