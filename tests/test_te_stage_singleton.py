"""Classic ``s[T].fuse()`` of no IterVars: a unit ``singleton`` IterVar (Singleton relation)."""
import numpy as np

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
