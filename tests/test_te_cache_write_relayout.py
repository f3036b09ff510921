"""Classic ``cache_write`` of an already split/fused/reordered stage: the cache takes the
stage's leaf layout (``x.c`` axes), the stage becomes the copy-out; results against numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


def _matmul(n=10, m=13, K=7):
    A = te.placeholder((n, K), name="A")
    B = te.placeholder((K, m), name="B")
    k = te.reduce_axis((0, K), "k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


def _check(s, A, B, C):
    n, K = [int(x) for x in A.shape]
    m = int(B.shape[1])
    f = tvm.build(s, [A, B, C])
    a = np.random.rand(n, K).astype("float32")
    b = np.random.rand(K, m).astype("float32")
    c = tvm.nd.array(np.zeros((n, m), "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)


@pytest.mark.parametrize("attach", [False, True])
def test_cache_write_after_tile_takes_the_tiled_layout(attach):
    A, B, C = _matmul()
    s = te.create_schedule(C.op)
    s[C].tile(C.op.axis[0], C.op.axis[1], 4, 3)
    CC = s.cache_write(C, "local")
    assert [int(x) for x in CC.shape] == [3, 5, 4, 3]
    assert [iv.var.name for iv in s[CC].op.axis] == [
        "i.outer.c", "j.outer.c", "i.inner.c", "j.inner.c"]
    assert not s[C].relations and len(s[C].leaf_iter_vars) == 2
    if attach:
        xo, _ = s[C].split(s[C].op.axis[0], factor=4)
        s[CC].compute_at(s[C], xo)
    _check(s, A, B, C)


def test_cache_write_after_fuse_and_nparts_split():
    A, B, C = _matmul(6, 5, 3)
    s = te.create_schedule(C.op)
    f = s[C].fuse(C.op.axis[0], C.op.axis[1])
    s[C].split(f, nparts=4)
    CC = s.cache_write(C, "global")
    assert [int(x) for x in CC.shape] == [4, 8]
    _check(s, A, B, C)


def test_cache_write_of_an_elementwise_stage_after_split():
    A = te.placeholder((11,), name="A")
    B = te.compute((11,), lambda i: A[i] * 3 + 1, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4)
    BC = s.cache_write(B, "local")
    assert [int(x) for x in BC.shape] == [3, 4]
    f = tvm.build(s, [A, B])
    a = np.random.rand(11).astype("float32")
    b = tvm.nd.array(np.zeros(11, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 3 + 1, rtol=1e-6)


def test_cache_write_of_an_attached_stage_is_refused():
    A = te.placeholder((11,), name="A")
    B = te.compute((11,), lambda i: A[i] + 1, name="B")
    C = te.compute((11,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    with pytest.raises(tvm.TVMError, match="cache_write"):
        s.cache_write(B, "local")
