"""relay collapse_sum_like / collapse_sum_to (topi.collapse_sum), slice_like,
reverse_reshape and nn.adaptive_avg/max_pool3d against numpy on odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, te, topi
from tvmlite.relay.testing import run_infer_type

RNG = np.random.default_rng(23)


def _evaluate(y, params, arrays):
    f = relay.create_executor("graph", target="llvm").evaluate(relay.Function(params, y))
    return f(*arrays).numpy()


@pytest.mark.parametrize("shape, target", [((3, 4, 5), (4, 5)), ((3, 4, 5), (1, 5)),
                                           ((2, 3, 1, 5), (3, 1, 1)), ((3, 5), (3, 5))])
def test_collapse_sum(shape, target):
    x = RNG.uniform(size=shape).astype("float32")
    lead = len(shape) - len(target)
    want = x.sum(axis=tuple(range(lead)))
    want = want.sum(axis=tuple(k for k, t in enumerate(target) if t == 1 and want.shape[k] != 1),
                    keepdims=True)
    v = relay.var("x", relay.TensorType(shape, "float32"))
    like = relay.var("y", relay.TensorType(target, "float32"))
    for y, params, arrays in ((relay.collapse_sum_to(v, target), [v], [x]),
                              (relay.collapse_sum_like(v, like), [v, like],
                               [x, np.zeros(target, "float32")])):
        assert run_infer_type(y).checked_type == relay.TensorType(target, "float32")
        np.testing.assert_allclose(_evaluate(y, params, arrays), want, rtol=1e-5)


def test_collapse_sum_errors():
    v = relay.var("x", relay.TensorType((3, 4), "float32"))
    with pytest.raises(tvm.TVMError, match="broadcast"):
        run_infer_type(relay.collapse_sum_to(v, (2, 4)))
    with pytest.raises(tvm.TVMError, match="broadcast"):
        topi.collapse_sum(te.placeholder((3, 4)), (5, 3, 4))


@pytest.mark.parametrize("data, like, axes", [((5, 6, 7), (2, 3), None),
                                              ((5, 6, 7), (4, 1, 3), (-1, 0)),
                                              ((5, 6, 7), (5, 2, 9), (1,))])
def test_slice_like(data, like, axes):
    x = RNG.uniform(size=data).astype("float32")
    v = relay.var("x", relay.TensorType(data, "float32"))
    w = relay.var("y", relay.TensorType(like, "float32"))
    y = relay.slice_like(v, w, axes)
    ends = list(data)
    for a in (range(len(like)) if axes is None else axes):
        ends[a] = like[a]
    want = x[tuple(slice(0, e) for e in ends)]
    assert run_infer_type(y).checked_type == relay.TensorType(want.shape, "float32")
    np.testing.assert_allclose(_evaluate(y, [v, w], [x, np.zeros(like, "float32")]), want)


def test_slice_like_symbolic():
    d1, d2 = te.var("d1"), te.var("d2")
    v = relay.var("x", relay.TensorType((4, 5, 6), "float32"))
    w = relay.var("y", relay.TensorType((d1, d2), "float32"))
    yy = run_infer_type(relay.slice_like(v, w))
    assert yy.checked_type == relay.TensorType((d1, d2, 6), "float32")


@pytest.mark.parametrize("shape, newshape, out", [((2, 3, 4), (4, 0, 2), (4, 3, 2)),
                                                  ((10, 5, 4), (-1, 0), (50, 4)),
                                                  ((3, 5, 7), (0, -1), (5, 21))])
def test_reverse_reshape(shape, newshape, out):
    x = RNG.uniform(size=shape).astype("float32")
    v = relay.var("x", relay.TensorType(shape, "float32"))
    y = relay.reverse_reshape(v, newshape)
    assert run_infer_type(y).checked_type == relay.TensorType(out, "float32")
    np.testing.assert_allclose(_evaluate(y, [v], [x]), x.reshape(out))


@pytest.mark.parametrize("kind", ["avg", "max"])
def test_adaptive_pool3d(kind):
    x = RNG.uniform(size=(1, 2, 5, 7, 4)).astype("float32")
    v = relay.var("x", relay.TensorType(x.shape, "float32"))
    y = getattr(relay.nn, f"adaptive_{kind}_pool3d")(v, (2, 3, 4))
    want = np.zeros((1, 2, 2, 3, 4), "float32")
    for o in np.ndindex(2, 3, 4):
        sl = tuple(slice(i * n // m, -(-(i + 1) * n // m)) for i, n, m in
                   zip(o, (5, 7, 4), (2, 3, 4)))
        win = x[(slice(None), slice(None)) + sl]
        want[(slice(None), slice(None)) + o] = win.mean(axis=(2, 3, 4)) if kind == "avg" \
            else win.max(axis=(2, 3, 4))
    np.testing.assert_allclose(_evaluate(y, [v], [x]), want, rtol=1e-5)


def test_reshape_like_symbolic_and_partial():
    n, w = te.size_var("n"), te.size_var("w")
    x = relay.var("x", relay.TensorType((n, 2, 3, w), "float32"))
    y = relay.var("y", relay.TensorType((5, 6), "float32"))
    z = relay.var("z", relay.TensorType((4,), "float32"))
    r = relay.reshape_like(relay.reshape_like(x, y, lhs_end=3), z, lhs_begin=2)
    assert run_infer_type(r).checked_type == relay.TensorType((5, 6, 4), "float32")
    a = relay.var("a", relay.TensorType((2, 3, 4), "float32"))
    with pytest.raises(tvm.TVMError, match="24 elements"):
        run_infer_type(relay.reshape_like(a, relay.var("b", relay.TensorType((5, 5),
                                                                             "float32"))))


def test_split_symbolic_extent():
    d1, d2 = te.var("d1"), te.var("d2")
    x = relay.var("x", relay.TensorType((d1, d2, 3), "float32"))
    yy = run_infer_type(relay.split(x, 3, axis=0).astuple())
    third = relay.TensorType((tvm.tir.indexdiv(d1, 3), d2, 3), "float32")
    assert yy.checked_type == relay.TupleType([third] * 3)
    yy = run_infer_type(relay.split(x, (1, 4), axis=1).astuple())
    assert yy.checked_type == relay.TupleType([
        relay.TensorType((d1, 1, 3), "float32"), relay.TensorType((d1, 3, 3), "float32"),
        relay.TensorType((d1, d2 - 4, 3), "float32")])
