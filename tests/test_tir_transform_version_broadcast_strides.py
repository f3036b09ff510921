"""VersionBroadcastStrides: a function that vectorizes loops over auto-broadcast (variable
shape) arguments runs a compact-stride copy when its arguments are compact (contiguous
accesses) and the general body when one of them broadcasts; both against numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.tir.transform import VersionBroadcastStrides


def _add(vectorize: bool):
    n, m, n1, m1 = (te.size_var(v) for v in ("n", "m", "n1", "m1"))
    A = te.placeholder((n, m), name="A")
    B = te.placeholder((n1, m1), name="B")  # its own sizes: it may broadcast
    C = te.compute((n, m), lambda i, j: A[i, j] + B[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    if vectorize:
        _, ji = s[C].split(C.op.axis[1], factor=8)
        s[C].vectorize(ji)
    return s, [A, B, C]


@pytest.mark.parametrize("a_shape, b_shape", [((3, 16), (3, 16)), ((5, 24), (1, 24)),
                                              ((4, 8), (4, 1)), ((2, 13), (2, 13))])
def test_compact_and_broadcasting_calls_both_compute_the_sum(a_shape, b_shape):
    s, args = _add(vectorize=True)
    f = tvm.build(s, args, "llvm")
    rng = np.random.default_rng(2)
    a = rng.random(a_shape, dtype=np.float32)
    b = rng.random(b_shape, dtype=np.float32)
    c = tvm.nd.array(np.zeros(a_shape, "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a + b * 2.0, rtol=1e-6)


def test_the_compact_copy_loads_vectors_and_only_vectorized_functions_get_one():
    s, args = _add(vectorize=True)
    mod = tvm.lower(s, args)
    versioned = VersionBroadcastStrides()(mod)["main"].body
    assert isinstance(versioned, tvm.tir.IfThenElse)
    cond = str(versioned.condition)  # each innermost stride 1, each outer one the row length
    wanted = sorted(c.split(" == ")[1] for c in cond.split(" and "))
    assert wanted == ["1", "1", "1", "m", "m", "m1"]
    # the compact copy reads rows of m contiguous elements
    assert "A[i * m + j_outer * 8 + j_inner_s]" in str(versioned.then_case)
    s2, args2 = _add(vectorize=False)
    plain = tvm.lower(s2, args2)
    assert VersionBroadcastStrides()(plain)["main"].body is plain["main"].body
