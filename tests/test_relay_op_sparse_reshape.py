"""topi.sparse_reshape / relay.sparse_reshape against a row-major numpy re-indexing, the
ADT tuple results of create_executor, te_compiler.get().clear(), and numpy inputs cast to
the graph input's dtype (classic copyfrom)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay


def _numpy_sparse_reshape(indices, prev, new):
    new = np.array(new)
    if (new == -1).any():
        new[new == -1] = np.prod(prev) // np.prod(new[new != -1])
    if len(prev) == len(new) and (np.array(prev) == new).all():
        return indices, new
    flat = np.ravel_multi_index(indices.T, prev)
    return np.stack(np.unravel_index(flat, new), axis=1).astype(indices.dtype), new


@pytest.mark.parametrize("dtype, prev, new", [("int32", (2, 3, 6), (9, -1)),
                                              ("int64", (4, 5), (-1,)),
                                              ("int32", (7,), (-1, 1, 7)),
                                              ("int64", (3, 10), (3, 10))])
def test_sparse_reshape(dtype, prev, new):
    rng = np.random.default_rng(2)
    flat = rng.choice(int(np.prod(prev)), 5, replace=False)
    idx = np.stack(np.unravel_index(flat, prev), axis=1).astype(dtype)
    ps, ns = np.array(prev, dtype), np.array(new, dtype)
    want_idx, want_shape = _numpy_sparse_reshape(idx, prev, new)
    a, b, c = (relay.var(k, relay.TensorType(x.shape, dtype)) for k, x in
               (("a", idx), ("b", ps), ("c", ns)))
    out = relay.Function([a, b, c], relay.sparse_reshape(a, b, c).astuple())
    res = relay.create_executor("graph", target="llvm").evaluate(out)(idx, ps, ns)
    assert isinstance(res, tvm.runtime.container.ADT) and res.tag == 0 and len(res) == 2
    np.testing.assert_array_equal(res[0].numpy(), want_idx)
    np.testing.assert_array_equal(res[1].numpy(), want_shape)
    relay.backend.te_compiler.get().clear()


def test_numpy_input_takes_the_input_dtype():
    x = relay.var("x", shape=(2, 3))  # float32
    f = relay.create_executor("graph", target="llvm").evaluate(relay.Function([x], x + x))
    got = f(np.arange(6, dtype="int32").reshape(2, 3))
    assert got.dtype == "float32"
    np.testing.assert_array_equal(got.numpy(), 2 * np.arange(6).reshape(2, 3))
