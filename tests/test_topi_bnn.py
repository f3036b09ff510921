"""Binary network operators: ``topi.nn.binarize_pack`` (signs, 32 to a uint32, first element
in the top bit) and ``binary_dense`` (dot products of +-1 vectors), against numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi

RNG = np.random.default_rng(13)


def _pack_numpy(x, axis):
    bits = np.moveaxis(x >= 0, axis, -1).astype(np.uint64)
    words = bits.reshape(bits.shape[:-1] + (-1, 32))
    packed = (words << np.arange(31, -1, -1, dtype=np.uint64)).sum(-1).astype(np.uint32)
    return np.moveaxis(packed, -1, axis)


@pytest.mark.parametrize("shape, axis", [((3, 64), None), ((32, 5), 0), ((2, 96, 3), 1)])
def test_binarize_pack(shape, axis):
    x = RNG.uniform(-1, 1, shape).astype("float32")
    x.flat[::7] = 0.0  # zero counts as positive
    A = te.placeholder(shape, name="A")
    P = topi.nn.binarize_pack(A, axis)
    with tvm.target.Target("llvm"):
        s = topi.x86.schedule_binarize_pack(P)
    f = tvm.build(s, [A, P], "llvm")
    p = tvm.nd.empty([int(d) for d in P.shape], "uint32")
    f(tvm.nd.array(x), p)
    np.testing.assert_array_equal(p.numpy(), _pack_numpy(x, -1 if axis is None else axis))


def test_binarize_pack_refuses_a_non_multiple_of_32():
    with pytest.raises(tvm.TVMError, match="multiple of 32"):
        topi.nn.binarize_pack(te.placeholder((2, 33), name="A"))


@pytest.mark.parametrize("batch, in_dim, out_dim", [(3, 64, 5), (1, 160, 7)])
def test_binary_dense(batch, in_dim, out_dim):
    a = (RNG.integers(0, 2, (batch, in_dim)) * 2 - 1).astype("float32")
    b = (RNG.integers(0, 2, (out_dim, in_dim)) * 2 - 1).astype("float32")
    A = te.placeholder((batch, in_dim // 32), "uint32", name="A")
    B = te.placeholder((out_dim, in_dim // 32), "uint32", name="B")
    C = topi.nn.binary_dense(A, B)
    with tvm.target.Target("llvm"):
        s = topi.x86.schedule_binary_dense(C)
    f = tvm.build(s, [A, B, C], "llvm")
    c = tvm.nd.empty((batch, out_dim), "float32")
    f(tvm.nd.array(_pack_numpy(a, 1)), tvm.nd.array(_pack_numpy(b, 1)), c)
    np.testing.assert_allclose(c.numpy(), a @ b.T)
