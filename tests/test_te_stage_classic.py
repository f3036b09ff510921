"""Classic TE stage behaviours: ``fuse()`` of no IterVars (a Singleton), pragma keys and the
kind-setting pragmas, attach cycles refused at lowering."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


def test_fuse_of_nothing_gives_a_singleton_and_builds():
    A = te.placeholder((), name="A")
    T = te.compute((), lambda: A() * 3 + 1, name="T")
    s = te.create_schedule(T.op)
    fused = s[T].fuse()
    assert [type(r).__name__ for r in s[T].relations] == ["Singleton"]
    assert tuple(s[T].leaf_iter_vars) == (fused,) and fused.dom.extent.value == 1
    f = tvm.build(s, [A, T])
    t = tvm.nd.array(np.array(0, "float32"))
    f(tvm.nd.array(np.array(2.5, "float32")), t)
    np.testing.assert_allclose(t.numpy(), 8.5)


def test_singleton_split_over_a_reduction_and_reordered_with_other_axes():
    # a 0-d sum: the singleton is split into 7 x 1 loops, guarded so it runs once
    X = te.placeholder((13,), dtype="int32", name="X")
    k = te.reduce_axis((0, 13), name="k")
    Y = te.compute((), lambda: te.sum(X[k], axis=k), name="Y")
    s = te.create_schedule(Y.op)
    so, si = s[Y].split(s[Y].fuse(), nparts=7)
    assert [iv.var.name for iv in s[Y].leaf_iter_vars][:2] == [so.var.name, si.var.name]
    f = tvm.build(s, [Y, X])
    x = np.random.randint(-50, 50, 13).astype("int32")
    y = tvm.nd.array(np.array(0, "int32"))
    f(y, tvm.nd.array(x))
    assert int(y.numpy()) == int(x.sum())
    # two singletons on a 2-d stage, the later one outermost, one moved inward
    A = te.placeholder((5, 3), name="A")
    B = te.compute((5, 3), lambda i, j: A[i, j] * 2, name="B")
    s = te.create_schedule(B.op)
    u1 = s[B].fuse()
    u2 = s[B].fuse()
    assert list(s[B].leaf_iter_vars[:2]) == [u2, u1]
    i, j = B.op.axis
    s[B].reorder(i, u2, j)
    f = tvm.build(s, [A, B])
    a = np.random.rand(5, 3).astype("float32")
    b = tvm.nd.array(np.zeros((5, 3), "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2)


def test_pragma_keys_and_kind_pragmas():
    A = te.placeholder((100,), name="A")
    T = te.compute((100,), lambda i: A[i] * 2, name="T")
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    s[T].pragma(xo, "pragma1")
    s[T].pragma(xi, "vectorize")
    assert s[T].iter_var_attrs[xo].pragma_keys[0].value == "pragma1"
    assert s[T].iter_var_attrs[xi].iter_type == tvm.te.schedule.IterVar.Vectorized
    s[T].pragma(xo, "auto_unroll_max_step", 4)
    f = tvm.build(s, [A, T])
    a = np.random.rand(100).astype("float32")
    t = tvm.nd.array(np.zeros(100, "float32"))
    f(tvm.nd.array(a), t)
    np.testing.assert_allclose(t.numpy(), a * 2)


def test_attach_cycle_is_refused_when_lowering():
    A = te.compute((16, 16), lambda i, j: 1.0, name="A")
    C = te.compute((16, 16), lambda i, j: A[i, j] + 2, name="C")
    s = te.create_schedule(C.op)
    s[A].compute_at(s[C], C.op.axis[0])
    s[C].compute_at(s[A], A.op.axis[0])
    with pytest.raises(tvm.TVMError, match="cycle"):
        tvm.lower(s, [C], simple_mode=True)

