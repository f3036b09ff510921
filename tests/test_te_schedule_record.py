"""``te.keep_schedule_record``: a copy of the schedule after each stage primitive, and
``Schedule.copy`` giving an independent schedule; every recorded step builds to numpy's
result."""
import numpy as np

import tvmlite as tvm
from tvmlite import te


def _matmul(n=19, m=23, k=17):
    kk = te.reduce_axis((0, k), "k")
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((k, m), name="B")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, kk] * B[kk, j], axis=kk), name="C")
    return A, B, C, kk


def _check(s, A, B, C):
    f = tvm.build(s, [A, B, C])
    a = np.random.rand(*[int(d) for d in A.shape]).astype("float32")
    b = np.random.rand(*[int(d) for d in B.shape]).astype("float32")
    c = tvm.nd.array(np.zeros([int(d) for d in C.shape], "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)


def test_record_lists_each_primitive_and_each_step_builds():
    A, B, C, k = _matmul()
    assert te.create_schedule(C.op).schedule_record == []
    with tvm.transform.PassContext(config={"te.keep_schedule_record": True}):
        s = te.create_schedule(C.op)
        assert s.primitive_record == ["vanilla"]
        mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 8)
        ko, ki = s[C].split(k, nparts=3)
        s[C].reorder(mo, ko, no, mi, ki, ni)
        s[C].vectorize(ni)
        s[C].parallel(mo)
    assert s.primitive_record == ["vanilla", "split", "split", "reorder", "split_by_nparts",
                                  "reorder", "vectorize", "parallel"]
    assert len(s.schedule_record) == 8
    # each record is the schedule as it was after that step
    assert [len(r[C].leaf_iter_vars) for r in s.schedule_record] == [3, 4, 5, 5, 6, 6, 6, 6]
    for r in s.schedule_record:
        _check(r, A, B, C)


def test_a_copy_is_independent_of_the_original():
    A, B, C, k = _matmul()
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "local", [C])
    io, ii = s[C].split(C.op.axis[0], factor=4)
    c = s.copy()
    assert c[C] is not s[C] and c[C].op is s[C].op and c[AA].op is AA.op
    c[AA].compute_at(c[C], io)
    c[C].unroll(ii)
    assert s[AA].attach_type != c[AA].attach_type and ii not in s[C].iter_var_attrs
    assert c[AA].attach_stage is c[C]
    _check(s, A, B, C)
    _check(c, A, B, C)
