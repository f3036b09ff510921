"""relay nn.pad (negative widths, edge/reflect modes, a relay pad_value), nn.upsampling3d
and symbolic upsampled sizes, nn.lrn's relation and topi.testing.l2_normalize_python,
against numpy on odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, te, topi
from tvmlite.relay.testing import run_infer_type
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(5)


def _evaluate(y, params, arrays):
    f = relay.create_executor("graph", target="llvm").evaluate(relay.Function(params, y))
    return f(*arrays).numpy()


def _np_pad(x, width, mode, value=0.0):
    """numpy.pad after cropping the negative widths."""
    crop = tuple(slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
                 for d, (lo, hi) in enumerate(width))
    pos = [(max(lo, 0), max(hi, 0)) for lo, hi in width]
    kw = {"constant_values": value} if mode == "constant" else {}
    return np.pad(x[crop], pos, mode, **kw)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
@pytest.mark.parametrize("width", [((1, 2), (0, 3), (2, 1)), ((-1, 2), (1, -2), (0, 0))])
def test_pad_modes(mode, width):
    x = RNG.uniform(size=(4, 5, 3)).astype("float32")
    v = relay.var("x", relay.TensorType(x.shape, "float32"))
    y = relay.nn.pad(v, width, 1.5, mode)
    want = _np_pad(x, width, mode, 1.5)
    assert run_infer_type(y).checked_type == relay.TensorType(want.shape, "float32")
    np.testing.assert_allclose(_evaluate(y, [v], [x]), want)


def test_pad_relay_value():
    x = RNG.integers(-9, 9, (3, 4)).astype("int32")
    v = relay.var("x", relay.TensorType(x.shape, "int32"))
    pv = relay.var("p", relay.TensorType((), "int32"))
    y = relay.nn.pad(v, ((1, 0), (-1, 2)), pad_value=pv)
    got = _evaluate(y, [v, pv], [x, np.array(7, "int32")])
    np.testing.assert_array_equal(got, _np_pad(x, ((1, 0), (-1, 2)), "constant", 7))


def test_pad_symbolic_shape():
    n, w = te.size_var("n"), te.size_var("w")
    t = relay.var("t", relay.TensorType((n, 3, w), "float32"))
    yy = run_infer_type(relay.nn.pad(t, ((1, 1), (-1, 0), (-2, -1))))
    assert yy.checked_type == relay.TensorType((n + 2, 2, w + (-3)), "float32")
    with pytest.raises(tvm.TVMError, match="below zero"):
        run_infer_type(relay.nn.pad(t, ((0, 0), (-2, -2), (0, 0))))


def test_topi_edge_pad():
    x = RNG.uniform(size=(3, 2)).astype("float32")
    A = te.placeholder(x.shape, name="A")
    B = topi.nn.pad(A, [2, 0], [1, 3], pad_mode="edge")
    f = tvm.build(te.create_schedule(B.op), [A, B], "llvm")
    b = tvm.nd.empty((6, 5))
    f(tvm.nd.array(x), b)
    np.testing.assert_allclose(b.numpy(), np.pad(x, ((2, 1), (0, 3)), "edge"))


@pytest.mark.parametrize("layout, method, mode", [
    ("NCDHW", "nearest_neighbor", "asymmetric"), ("NDHWC", "trilinear", "align_corners"),
    ("NCDHW", "trilinear", "half_pixel")])
def test_upsampling3d(layout, method, mode):
    shape = (1, 2, 3, 5, 4) if layout == "NCDHW" else (1, 3, 5, 4, 2)
    x = RNG.uniform(size=shape).astype("float32")
    v = relay.var("x", relay.TensorType(shape, "float32"))
    y = relay.nn.upsampling3d(v, 2, 1.5, 3, layout, method, mode)
    want = ref.resize3d_python(x, (2, 1.5, 3), layout,
                               "linear" if method == "trilinear" else method, mode)
    assert run_infer_type(y).checked_type == relay.TensorType(want.shape, "float32")
    np.testing.assert_allclose(_evaluate(y, [v], [x]), want, rtol=1e-5, atol=1e-6)


def test_upsampling_symbolic_sizes():
    n, c, h, w = (te.size_var(s) for s in "nchw")
    x = relay.var("x", relay.TensorType((n, c, h, w), "float32"))
    yy = run_infer_type(relay.nn.upsampling(x, 2, 3, method="bilinear"))
    two, three = tvm.tir.const(2.0, "float64"), tvm.tir.const(3.0, "float64")
    assert yy.checked_type == relay.TensorType(
        (n, c, tvm.tir.Cast("int32", te.round(h * two)),
         tvm.tir.Cast("int32", te.round(w * three))), "float32")


def test_lrn_relation_accepts_even_size():
    x = relay.var("x", relay.TensorType((1, 6, 3, 3), "float32"))
    assert run_infer_type(relay.nn.lrn(x, size=4)).checked_type == x.type_annotation
    with pytest.raises(tvm.TVMError):
        _evaluate(relay.nn.lrn(x, size=4), [x], [np.zeros((1, 6, 3, 3), "float32")])


def test_l2_normalize_reference():
    x = RNG.uniform(-1, 1, (2, 5, 3)).astype("float32")
    want = x / np.sqrt(np.maximum((x ** 2).sum(axis=(1, 2), keepdims=True), 1e-3))
    np.testing.assert_allclose(ref.l2_normalize_python(x, 1e-3, (1, 2)), want, rtol=1e-6)
    v = relay.var("x", relay.TensorType(x.shape, "float32"))
    np.testing.assert_allclose(_evaluate(relay.nn.l2_normalize(v, 1e-3, [1, 2]), [v], [x]),
                               want, rtol=1e-5)
