"""``te.scan``: recurrences over the first dimension, lowered to one serial loop around the
recurrence's blocks; results checked against numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


def _cumsum(m, n):
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n))
    init = te.compute((1, n), lambda _, i: X[0, i])
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i])
    return X, init, update, te.scan(init, update, state, inputs=[X])


def _run(f, shapes, ins):
    outs = [tvm.nd.array(np.zeros(s, "float32")) for s in shapes]
    f(*[tvm.nd.array(x) for x in ins], *outs)
    return [o.numpy() for o in outs]


def test_scan_builds_a_cumulative_sum():
    m, n = te.var("m"), te.var("n")
    X, _, update, res = _cumsum(m, n)
    assert tuple(res.shape) == (m, n) and isinstance(res.op, te.ScanOp)
    assert res.op.scan_axis.dom.min.value == 1
    s = te.create_schedule(res.op)
    _, _ = s[update].split(update.op.axis[1], factor=4)
    a = np.random.rand(9, 13).astype("float32")
    (b,) = _run(tvm.build(s, [X, res]), [(9, 13)], [a])
    np.testing.assert_allclose(b, np.cumsum(a, 0), rtol=1e-5)


def test_scan_with_several_init_rows_and_a_consumer():
    X = te.placeholder((10, 7), name="X")
    state = te.placeholder((10, 7))
    init = te.compute((2, 7), lambda t, i: X[t, i])
    update = te.compute((10, 7), lambda t, i: state[t - 1, i] + state[t - 2, i] * X[t, i])
    res = te.scan(init, update, state)
    out = te.compute((10, 7), lambda t, i: res[t, i] * 2, name="out")
    s = te.create_schedule(out.op)
    a = np.random.rand(10, 7).astype("float32")
    (b,) = _run(tvm.build(s, [X, out]), [(10, 7)], [a])
    want = a.copy()
    for t in range(2, 10):
        want[t] = want[t - 1] + want[t - 2] * a[t]
    np.testing.assert_allclose(b, want * 2, rtol=1e-5)


def test_scan_body_stage_attached_inside_the_recurrence():
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n))
    init = te.compute((1, n), lambda _, i: X[0, i])
    s1 = te.compute((m, n), lambda t, i: state[t - 1, i] * 2, name="s1")
    s2 = te.compute((m, n), lambda t, i: s1[t, i] + X[t, i], name="s2")
    res = te.scan(init, s2, state, inputs=[X])
    s = te.create_schedule(res.op)
    xo, _ = s[s2].split(s2.op.axis[1], factor=8)
    s[s1].compute_at(s[s2], xo)
    a = np.random.rand(6, 21).astype("float32")
    (b,) = _run(tvm.build(s, [X, res]), [(6, 21)], [a])
    want = a.copy()
    for t in range(1, 6):
        want[t] = want[t - 1] * 2 + a[t]
    np.testing.assert_allclose(b, want, rtol=1e-5)


@pytest.mark.parametrize("inline", [False, True])
def test_multi_output_scan(inline):
    m, n, k = te.var("m"), te.var("n"), te.var("k")
    X = te.placeholder((m, n), name="X")
    st1, st2 = te.placeholder((m, n)), te.placeholder((m, k))
    i1 = te.compute((1, n), lambda _, i: X[0, i])
    i2 = te.compute((1, k), lambda _, i: 0.0)
    x1 = te.compute((m, n), lambda t, i: st1[t - 1, i] + X[t, i], name="x1")
    u1 = te.compute((m, n), lambda t, i: x1[t, i], name="u1")
    u2 = te.compute((m, k), lambda t, i: st2[t - 1, i] + st1[t - 1, 0], name="u2")
    r1, r2 = te.scan([i1, i2], [u1, u2], [st1, st2], inputs=[X])
    assert (r1.value_index, r2.value_index) == (0, 1)
    s = te.create_schedule(r1.op)
    if inline:
        s[x1].compute_inline()
    a = np.random.rand(5, 11).astype("float32")
    b1, b2 = _run(tvm.build(s, [X, r1, r2]), [(5, 11), (5, 3)], [a])
    c1 = np.cumsum(a, 0)
    c2 = np.zeros((5, 3), "float32")
    for t in range(1, 5):
        c2[t] = c2[t - 1] + c1[t - 1, 0]
    np.testing.assert_allclose(b1, c1, rtol=1e-5)
    np.testing.assert_allclose(b2, c2, rtol=1e-5)


def test_infer_bound_gives_the_scan_axis():
    m, n = te.var("m"), te.var("n")
    _, _, _, res = _cumsum(m, n)
    bounds = te.schedule.InferBound(te.create_schedule(res.op))
    assert bounds[res.op.scan_axis].min.value == 1


def test_scan_rejects_mismatched_arguments():
    X = te.placeholder((8, 4), name="X")
    state = te.placeholder((8, 4))
    init = te.compute((1, 4), lambda _, i: X[0, i])
    update = te.compute((8, 5), lambda t, i: X[t, 0])
    with pytest.raises(tvm.TVMError, match="dimension 1"):
        te.scan(init, update, state)
    with pytest.raises(tvm.TVMError, match="same"):
        te.scan([init], [update, update], [state])
    bad = te.compute((8, 4), lambda t, i: X[t, i].astype("int32"))
    with pytest.raises(tvm.TVMError, match="dtypes"):
        te.scan(init, bad, state)
