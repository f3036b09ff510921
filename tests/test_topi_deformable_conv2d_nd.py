"""topi.nn.deformable_conv2d_nchw / nhwc and relay nn.deformable_conv2d: zero offsets give
the plain convolution, whole-pixel offsets a shifted one (independent numpy checks), and
random fractional offsets match topi.testing's reference, groups included."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, te, topi
from tvmlite.relay.testing import run_infer_type
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(31)


def _run_topi(fn, arrays, *args):
    ins = [te.placeholder(a.shape, name=f"in{k}") for k, a in enumerate(arrays)]
    out = fn(*ins, *args)
    s = topi.generic.schedule_deformable_conv2d_nchw([out])
    f = tvm.build(s, ins + [out], "llvm")
    res = tvm.nd.empty([int(d) for d in out.shape])
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


def test_zero_and_integer_offsets():
    x = RNG.uniform(-1, 1, (1, 3, 7, 6)).astype("float32")
    w = RNG.uniform(-1, 1, (4, 3, 3, 3)).astype("float32")
    zero = np.zeros((1, 18, 7, 6), "float32")
    got = _run_topi(topi.nn.deformable_conv2d_nchw, [x, zero, w], 1, 1, 1, 1, 1, None)
    np.testing.assert_allclose(got, ref.conv2d_nchw_python(x, w, 1, 1), rtol=1e-5, atol=1e-5)
    # every tap shifted by (+1, -2): the convolution of the input shifted the other way
    shift = np.zeros((1, 9, 2, 7, 6), "float32")
    shift[:, :, 0], shift[:, :, 1] = 1.0, -2.0
    got = _run_topi(topi.nn.deformable_conv2d_nchw, [x, shift.reshape(1, 18, 7, 6), w],
                    1, 1, 1, 1, 1, None)
    # tap (i, j) of output (y, x) reads x[y - 1 + i + 1, x - 1 + j - 2] = big[y + i + 3, x + j]
    big = np.pad(x, ((0, 0), (0, 0), (3, 3), (3, 3)))
    want = ref.conv2d_nchw_python(big[:, :, 3:12, 0:8], w, 1, 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dg, groups, stride, dil", [(1, 1, 1, 1), (2, 1, 2, 1),
                                                     (1, 2, 1, 2), (3, 3, 1, 1)])
def test_random_offsets_nchw(dg, groups, stride, dil):
    x = RNG.uniform(size=(2, 6, 7, 5)).astype("float32")
    w = RNG.uniform(size=(3 * groups, 6 // groups, 3, 2)).astype("float32")
    oh = (7 + 2 - (3 - 1) * dil - 1) // stride + 1
    ow = (5 + 2 - (2 - 1) * dil - 1) // stride + 1
    off = RNG.uniform(-1.5, 1.5, (2, dg * 3 * 2 * 2, oh, ow)).astype("float32")
    want = ref.deformable_conv2d_nchw_python(x, off, w, stride, 1, dil, dg, groups)
    got = _run_topi(topi.nn.deformable_conv2d_nchw, [x, off, w], stride, 1, dil, dg, groups,
                    None)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("layout, kernel_layout", [("NCHW", "OIHW"), ("NHWC", "HWIO")])
def test_relay_deformable_conv2d(layout, kernel_layout):
    nchw = (1, 4, 6, 5)
    shape = nchw if layout == "NCHW" else (1, 6, 5, 4)
    data = relay.var("data", relay.TensorType(shape, "float32"))
    offset, kernel = relay.var("offset"), relay.var("kernel")  # types from the attributes
    y = relay.nn.deformable_conv2d(data, offset, kernel, padding=(1, 1), kernel_size=(3, 3),
                                   deformable_groups=2, channels=3, data_layout=layout,
                                   kernel_layout=kernel_layout)
    yy = run_infer_type(y)
    oshape = (1, 36, 6, 5) if layout == "NCHW" else (1, 6, 5, 36)  # 2 groups * 9 taps * 2
    assert yy.args[1].checked_type == relay.TensorType(oshape, "float32")
    x = RNG.uniform(size=shape).astype("float32")
    off = RNG.uniform(-1, 1, oshape).astype("float32")
    w = RNG.uniform(size=[int(d) for d in yy.args[2].checked_type.shape]).astype("float32")
    fn = ref.deformable_conv2d_nchw_python if layout == "NCHW" else \
        ref.deformable_conv2d_nhwc_python
    want = fn(x, off, w, 1, 1, 1, 2, 1)
    got = relay.create_executor("graph", target="llvm").evaluate(
        relay.Function([data, offset, kernel], y))(x, off, w).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
