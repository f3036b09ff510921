"""topi.nn.conv1d_transpose_ncw (the transposed-convolution compute it shares with
conv2d_transpose_nchw) against a direct sum, odd sizes, strides, paddings and output
paddings; the GPU schedule binds threads."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(13)


def direct(a, w, s, left, right, opad):
    """out[n, f, o] = sum over c, i, k with i * s + k - left == o of a[n, c, i] * w[c, f, k]."""
    n, c, width = a.shape
    f, k = w.shape[1:]
    out_w = (width - 1) * s + k - left - right + opad
    out = np.zeros((n, f, out_w))
    for i in range(width):
        for kk in range(k):
            o = i * s + kk - left
            if 0 <= o < out_w:
                out[:, :, o] += a[:, :, i] @ w[:, :, kk]
    return out


@pytest.mark.parametrize("n,c,width,f,k,s,pad,opad", [
    (1, 3, 11, 4, 5, 1, 0, 0), (2, 3, 7, 5, 3, 2, 1, 1), (1, 2, 9, 3, 4, 3, (0, 3), 2),
    (1, 1, 10, 1, 5, 1, (2, 3), 0), (3, 5, 1, 2, 2, 2, 0, 1), (1, 4, 6, 3, 7, 5, "SAME", 3)])
def test_conv1d_transpose_ncw(n, c, width, f, k, s, pad, opad):
    a = RNG.uniform(-1, 1, (n, c, width)).astype("float32")
    w = RNG.uniform(-1, 1, (c, f, k)).astype("float32")
    (left,), (right,) = topi.nn.utils.get_pad_tuple_generic(pad, [k])
    want = direct(a, w, s, int(left), int(right), opad)
    np.testing.assert_allclose(ref.conv1d_transpose_ncw_python(a, w, s, pad, (opad,)), want,
                               rtol=1e-5, atol=1e-5)
    A, W = te.placeholder(a.shape, name="A"), te.placeholder(w.shape, name="W")
    B = topi.nn.conv1d_transpose_ncw(A, W, (s,), pad, "float32", (opad,))
    assert B.op.tag == "conv1d_transpose_ncw"
    C = topi.nn.relu(B)
    for out, expect in ((B, want), (C, np.maximum(want, 0))):
        fn = tvm.build(topi.generic.schedule_conv1d_transpose_ncw([out]), [A, W, out], "llvm")
        res = tvm.nd.array(np.zeros([int(x) for x in out.shape], "float32"))
        fn(tvm.nd.array(a), tvm.nd.array(w), res)
        np.testing.assert_allclose(res.numpy(), expect, rtol=1e-5, atol=1e-5)
    with tvm.target.Target("cuda"):
        s_gpu = topi.cuda.schedule_conv1d_transpose_ncw([topi.cuda.conv1d_transpose_ncw(
            A, W, s, pad, "float32", opad)])
    assert "threadIdx.x" in str(tvm.lower(s_gpu, [A, W, s_gpu.outputs[0].output(0)]))


def test_conv1d_transpose_errors():
    A, W = te.placeholder((1, 3, 8), name="A"), te.placeholder((3, 2, 3), name="W")
    with pytest.raises(TopiError, match="output_padding"):
        topi.nn.conv1d_transpose_ncw(A, W, 2, 0, "float32", 2)
    with pytest.raises(TopiError, match="channels"):
        topi.nn.conv1d_transpose_ncw(A, te.placeholder((4, 2, 3)), 1, 0, "float32")
    with pytest.raises(TopiError, match="larger than the kernel"):
        topi.nn.conv1d_transpose_ncw(A, W, 1, 3, "float32")
