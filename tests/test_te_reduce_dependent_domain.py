"""Reductions whose range depends on the output element (``te.reduce_axis((0, i))``, classic
allows it): the block iterates the hull of the ranges and skips the values outside the current
element's range; schedules of such a stage against numpy, rfactor refused by name."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te

N = 13


def _window():
    X = te.placeholder((N,), name="X")

    def f(n):
        rv = te.reduce_axis((n // 2, n + 1), name="rv")
        return te.sum(X[rv] * (rv + 1).astype("float32"), axis=rv)

    return X, te.compute((N,), f, name="Y")


def _ref(x):
    return np.array([sum(x[r] * (r + 1) for r in range(n // 2, n + 1)) for n in range(N)],
                    "float32")


def _split_rv(s, X, Y):
    s[Y].split(Y.op.reduce_axis[0], factor=4)


def _reorder(s, X, Y):
    s[Y].reorder(Y.op.reduce_axis[0], Y.op.axis[0])


def _cache_write(s, X, Y):
    s.cache_write(Y, "local")


def _cache_read_at_rv(s, X, Y):
    XX = s.cache_read(X, "local", [Y])
    s[XX].compute_at(s[Y], Y.op.reduce_axis[0])


def _vectorized_outputs(s, X, Y):
    no, ni = s[Y].split(Y.op.axis[0], factor=4)
    s[Y].reorder(no, Y.op.reduce_axis[0], ni)
    s[Y].vectorize(ni)
    s[Y].parallel(no)


@pytest.mark.parametrize("sched", [None, _split_rv, _reorder, _cache_write, _cache_read_at_rv,
                                   _vectorized_outputs])
def test_window_sum_scheduled_matches_numpy(sched):
    X, Y = _window()
    s = te.create_schedule(Y.op)
    if sched is not None:
        sched(s, X, Y)
    f = tvm.build(s, [X, Y])
    x = np.random.rand(N).astype("float32")
    y = tvm.nd.array(np.zeros(N, "float32"))
    f(tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), _ref(x), rtol=1e-5)


def test_empty_range_gives_the_identity_and_the_loop_runs_the_range():
    X = te.placeholder((10,), name="X")

    def prefix_sum(n):
        k = te.reduce_axis((0, n), "k")
        return te.sum(X[k], axis=k)

    Y = te.compute((10,), prefix_sum, name="Y")
    text = str(tvm.lower(te.create_schedule(Y.op), [X, Y]))
    # the block iterates the hull range(9) guarded by k < n; lowered, the loop is narrowed to
    # the range itself (classic's form)
    assert "for k in range(n):" in text and "if" not in text
    f = tvm.build(te.create_schedule(Y.op), [X, Y])
    x = np.random.rand(10).astype("float32")
    y = tvm.nd.array(np.full(10, 7, "float32"))
    f(tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), np.concatenate([[0], np.cumsum(x)[:-1]]), rtol=1e-5)


def test_combiner_using_the_output_axis_with_cache_write():
    X = te.placeholder((10,), name="X")

    def f(n):
        rv = te.reduce_axis((0, n), "rv")
        init = lambda dtype: tvm.tir.Select(n > 1, tvm.tir.const(0, dtype),  # noqa: E731
                                            n.astype(dtype))
        red = te.comm_reducer(lambda a, b: te.max(a + b, n.astype("float32")), init, name="r")
        return red(X[rv], axis=rv)

    Y = te.compute((10,), f, name="Y")
    x = np.random.uniform(-1, 1, 10).astype("float32")
    ref = []
    for n in range(10):
        acc = 0.0 if n > 1 else float(n)
        for r in range(n):
            acc = max(acc + x[r], float(n))
        ref.append(acc)
    for cache in (False, True):
        s = te.create_schedule(Y.op)
        if cache:
            s.cache_write(Y, "local")
        fb = tvm.build(s, [X, Y])
        y = tvm.nd.array(np.zeros(10, "float32"))
        fb(tvm.nd.array(x), y)
        np.testing.assert_allclose(y.numpy(), np.array(ref, "float32"), rtol=1e-5)


def test_rfactor_and_unbounded_ranges_are_refused_by_name():
    X, Y = _window()
    s = te.create_schedule(Y.op)
    ko, ki = s[Y].split(Y.op.reduce_axis[0], factor=4)
    with pytest.raises(tvm.TVMError, match="rfactor of stage Y: the range of reduce axis rv "
                                           "depends on an output axis"):
        s.rfactor(Y, ki)
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), "k")
    with pytest.raises(tvm.TVMError, match="the domain of axis j depends on another axis"):
        B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
        j = te.reduce_axis((0, k), "j")
        C = te.compute((4,), lambda i: te.sum(A[i, j], axis=[k, j]), name="C")
        tvm.lower(te.create_schedule([B.op, C.op]), [A, B, C])
