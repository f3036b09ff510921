"""Pooling in channels-last and 1-D/3-D layouts against classic's numpy reference
(``topi.testing.poolnd_python``, ``adaptive_pool``), and adaptive pooling in 1, 2 and 3
dimensions (odd sizes, windows that overlap)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(5)


def run(out, A, a):
    f = tvm.build(te.create_schedule(out.op), [A, out], "llvm")
    res = tvm.nd.empty([int(x) for x in out.shape], out.dtype)
    f(tvm.nd.array(a), res)
    return res.numpy()


def test_poolnd_python_by_hand():
    x = np.arange(1, 6, dtype="float32").reshape(1, 1, 5)  # 1 2 3 4 5
    # kernel 2, stride 2, pads (1, 1): windows [pad,1] [2,3] [4,5]
    avg = ref.poolnd_python(x, [2], [2], [1], [1], [1], "avg", True)
    np.testing.assert_allclose(avg[0, 0], [0.5, 2.5, 4.5])
    avg = ref.poolnd_python(x, [2], [2], [1], [1], [1], "avg", False)
    np.testing.assert_allclose(avg[0, 0], [1.0, 2.5, 4.5])
    mx = ref.poolnd_python(-x, [2], [2], [1], [1], [1], "max", True)  # padding counts as 0
    np.testing.assert_allclose(mx[0, 0], [0, -2, -4])
    mx = ref.poolnd_python(-x, [2], [2], [1], [1], [1], "max", False)
    np.testing.assert_allclose(mx[0, 0], [-1, -2, -4])
    nwc = ref.poolnd_python(x.transpose(0, 2, 1), [2], [2], [1], [1], [1], "avg", False,
                            layout="NWC")
    np.testing.assert_allclose(nwc[0, :, 0], [1.0, 2.5, 4.5])


@pytest.mark.parametrize("n, layout, shape", [
    (1, "NWC", (2, 13, 3)), (1, "NCW", (2, 3, 13)),
    (2, "NHWC", (1, 11, 9, 3)), (2, "NCHW", (1, 3, 11, 9)),
    (3, "NDHWC", (1, 7, 6, 5, 2)), (3, "NCDHW", (1, 2, 7, 6, 5)),
])
@pytest.mark.parametrize("pool_type, cip", [("max", True), ("avg", True), ("avg", False)])
def test_pools_match_classic_reference(n, layout, shape, pool_type, cip):
    kernel, stride, dil = [3, 2, 2][:n], [2, 1, 2][:n], [1, 2, 1][:n]
    pad = [1, 0, 1][:n] + [2, 1, 0][:n]  # no window wholly in the padding
    # positive data: the reference pads a max pool with 0 (the operator with the minimum)
    x = RNG.uniform(0.001, 1, shape).astype("float32")
    A = te.placeholder(shape, name="A")
    pool = {1: topi.nn.pool1d, 2: topi.nn.pool2d, 3: topi.nn.pool3d}[n]
    B = pool(A, kernel, stride, dil, pad, pool_type, False, layout, cip)
    want = ref.poolnd_python(x, kernel, stride, dil, pad[:n], pad[n:], pool_type, cip,
                             layout=layout)
    np.testing.assert_allclose(run(B, A, x), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layout, shape, out_size", [
    ("NCW", (2, 3, 17), (5,)), ("NWC", (2, 17, 3), (4,)),
    ("NHWC", (1, 9, 13, 3), (4, 5)), ("NCHW", (1, 3, 9, 13), (2, 13)),
    ("NCDHW", (1, 2, 7, 9, 5), (3, 4, 2)), ("NDHWC", (1, 7, 9, 5, 2), (2, 2, 5)),
])
@pytest.mark.parametrize("pool_type", ["max", "avg"])
def test_adaptive_pools(layout, shape, out_size, pool_type):
    x = RNG.uniform(-1, 1, shape).astype("float32")
    A = te.placeholder(shape, name="A")
    fn = {1: topi.nn.adaptive_pool1d, 2: topi.nn.adaptive_pool,
          3: topi.nn.adaptive_pool3d}[len(out_size)]
    B = fn(A, out_size, pool_type, layout)
    want = ref.adaptive_pool(x, out_size, pool_type, layout)
    assert want.shape == tuple(int(d) for d in B.shape)
    np.testing.assert_allclose(run(B, A, x), want, rtol=1e-5, atol=1e-6)


def test_adaptive_reference_windows_by_hand():
    x = np.arange(5, dtype="float32").reshape(1, 5, 1)  # NWC, W = 5 -> 2: [0, 3) and [2, 5)
    np.testing.assert_allclose(ref.adaptive_pool(x, (2,), "avg", "NWC")[0, :, 0], [1.0, 3.0])


def test_unsupported_layout_message():
    A = te.placeholder((1, 16, 8, 8, 8), name="A")
    with pytest.raises(tvm.TVMError, match="Unsupported layout NCHWD4d"):
        topi.nn.pool3d(A, [2, 2, 2], [2, 2, 2], [1, 1, 1], [0] * 6, "max", False, "NCHWD4d")
