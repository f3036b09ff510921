"""``topi.nn.conv2d_hwcn`` (the classic tedd tutorial's operator) against numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref


@pytest.mark.parametrize("shape,f,k,stride,pad,dil", [
    ((9, 7, 3, 2), 5, 3, 1, 1, 1),
    ((8, 11, 4, 1), 3, 3, 2, (0, 1), 1),
    ((10, 9, 3, 3), 4, 2, (2, 1), (1, 0, 2, 1), 2),
])
def test_conv2d_hwcn_matches_nchw_reference(shape, f, k, stride, pad, dil):
    h, w, c, n = shape
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype("float32")
    wt = rng.standard_normal((k, k, c, f)).astype("float32")
    wd = ref.dilate_python(wt.transpose(3, 2, 0, 1), (1, 1, dil, dil))
    want = ref.conv2d_nchw_python(x.transpose(3, 2, 0, 1), wd, stride, pad).transpose(2, 3, 1, 0)
    X, W = te.placeholder(shape, name="X"), te.placeholder((k, k, c, f), name="W")
    Y = topi.nn.conv2d_hwcn(X, W, stride, pad, dil)
    assert Y.op.tag == "conv2d_hwcn" and Y.op.name == "Conv2dOutput"
    assert [int(d) for d in Y.shape] == list(want.shape)
    s = topi.generic.schedule_conv2d_hwcn([Y])
    fn = tvm.build(s, [X, W, Y], "llvm")
    out = tvm.nd.array(np.zeros(want.shape, "float32"))
    fn(tvm.nd.array(x), tvm.nd.array(wt), out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)


def test_conv2d_hwcn_checks_channels():
    X = te.placeholder((8, 8, 3, 1), name="X")
    W = te.placeholder((3, 3, 4, 2), name="W")
    with pytest.raises(tvm.TVMError, match="conv2d_hwcn"):
        topi.nn.conv2d_hwcn(X, W, 1, 1)
