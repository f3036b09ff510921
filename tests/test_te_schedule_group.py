"""``Schedule.create_group``: stages grouped and attached together with one ``compute_at``;
membership as classic TE counts it (nested groups, scan update groups); results equal numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import TVMError


def _chain(m, n):
    A = te.placeholder((m, n), name="A")
    x = te.compute((m, n), lambda i, j: A[i, j] * 2, name="x")
    x1 = te.compute((m, n), lambda i, j: x[i, j] + 1, name="x1")
    x2 = te.compute((m, n), lambda i, j: x1[i, j] + x1[i, n - 1 - j], name="x2")
    return A, x, x1, x2


def _check(s, A, out):
    m, n = (int(d) for d in A.shape)
    f = tvm.build(s, [A, out])
    a = np.random.default_rng(1).random((m, n)).astype("float32")
    o = tvm.nd.empty((m, n), "float32")
    f(tvm.nd.array(a), o)
    x1 = a * 2 + 1
    np.testing.assert_allclose(o.numpy(), x1 + x1[:, ::-1], rtol=1e-6)


def test_group_attaches_its_members_together():
    A, x, x1, x2 = _chain(7, 9)
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    assert s[x].group is g and s[x1].group is g and g.num_child_stages == 2
    assert s.groups == [g]
    g.compute_at(s[x2], x2.op.axis[0])
    bounds = te.schedule.InferBound(s)
    for t in (x, x1):  # one row of each per row of x2
        assert bounds[t.op.axis[0]].extent.value == 1
        assert bounds[t.op.axis[1]].extent.value == 9
    text = str(tvm.lower(s, [A, x2], simple_mode=True))
    assert text.count("T.allocate([9]") == 2
    _check(s, A, x2)


def test_member_attached_inside_its_group():
    A, x, x1, x2 = _chain(5, 6)
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    s[x].compute_at(s[x1], x1.op.axis[1])  # inside the group: allowed, stays there
    g.compute_at(s[x2], x2.op.axis[0])
    bounds = te.schedule.InferBound(s)
    assert bounds[x.op.axis[1]].extent.value == 1
    assert bounds[x1.op.axis[1]].extent.value == 6
    _check(s, A, x2)


def test_nested_groups_and_membership_rules():
    A, x, x1, x2 = _chain(3, 5)
    s = te.create_schedule(x2.op)
    g1 = s.create_group(outputs=x1, inputs=x)
    g2 = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    assert s[x1].group is g1 and g1.group is g2 and s[x].group is g2
    assert (g1.num_child_stages, g2.num_child_stages) == (1, 2)
    with pytest.raises(TVMError, match="same group"):
        s[x1].compute_at(s[x2], x2.op.axis[0])  # x2 is outside x1's group
    g2.compute_at(s[x2], x2.op.axis[0])
    _check(s, A, x2)


def test_scan_updates_form_a_group():
    m, n = te.size_var("m"), te.size_var("n")
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n))
    init = te.compute((1, n), lambda _, i: X[0, i])
    u1 = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i])
    u2 = te.compute((m, n), lambda t, i: u1[t, i] * 2)
    res = te.scan(init, u2, state, inputs=[X])
    s = te.create_schedule(res.op)
    assert s[u1].group is not None and s[u1].group is s[u2].group
    with pytest.raises(TVMError, match="same group"):
        s[u1].compute_at(s[init], init.op.axis[0])
    f = tvm.build(s, [X, res])
    x = np.random.default_rng(2).random((6, 4)).astype("float32")
    out = tvm.nd.empty((6, 4), "float32")
    f(tvm.nd.array(x), out)
    ref = x.copy()
    for t in range(1, 6):
        ref[t] = (ref[t - 1] + x[t]) * 2
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5)
