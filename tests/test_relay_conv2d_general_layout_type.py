"""The type of ``nn.conv2d`` in blocked and other layouts (classic's relation: NCHW16c data,
OIHW16i16o kernels, any output layout), the weight's type inferred in them, the packed
convolution built (conv2d_NCHWc) and the others built as the NCHW convolution between layout
transforms."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError


def _type(y):
    f = relay.Function(relay.analysis.free_vars(y), y)
    return relay.transform.InferType()(tvm.IRModule.from_expr(f))["main"].body.checked_type


@pytest.mark.parametrize("dl, dshape, kl, wshape, ol, want", [
    ("NCHW4c", (1, 2, 9, 7, 4), "OIHW4i4o", (3, 2, 3, 3, 4, 4), "", (1, 3, 9, 7, 4)),
    ("NCHW4c", (1, 2, 9, 7, 4), "OIHW4i2o", (6, 2, 3, 3, 4, 2), "NCHW3c", (1, 4, 9, 7, 3)),
    ("NHWC2c", (2, 9, 7, 3, 2), "HWIO2i3o", (3, 3, 3, 2, 2, 3), "", (2, 9, 7, 3, 2)),
    ("NCHW", (1, 4, 9, 7), "OIHW", (8, 4, 3, 3), "CNHW", (8, 1, 9, 7)),
    ("NCHW", (1, 4, 9, 7), "OIHW2i", (8, 2, 3, 3, 2), "NHWC", (1, 9, 7, 8)),
])
def test_blocked_and_permuted_layouts(dl, dshape, kl, wshape, ol, want):
    x, w = relay.var("x", shape=dshape), relay.var("w", shape=wshape)
    y = relay.nn.conv2d(x, w, padding=(1, 1), data_layout=dl, kernel_layout=kl,
                        out_layout=ol)
    assert tuple(_type(y).shape) == want
    # the weight's type follows from channels and kernel_size, in the kernel layout
    lay = tvm.tir.layout(kl)
    o = 1
    for i, d in enumerate(wshape):
        o *= d if lay[i] in "Oo" else 1
    wv = relay.var("wv")
    y2 = relay.nn.conv2d(x, wv, padding=(1, 1), channels=o, kernel_size=(3, 3),
                         data_layout=dl, kernel_layout=kl, out_layout=ol)
    assert tuple(_type(y2).shape) == want
    assert tuple(wv.checked_type.shape) == wshape


def test_errors_and_build_refusal():
    x = relay.var("x", shape=(1, 2, 9, 7, 4))
    with pytest.raises(TVMError, match="not the 4"):  # the kernel's i block is not the c one
        _type(relay.nn.conv2d(x, relay.var("w", shape=(3, 4, 3, 3, 2, 4)),
                              data_layout="NCHW4c", kernel_layout="OIHW4i4o"))
    with pytest.raises(TVMError, match="split by 5"):
        _type(relay.nn.conv2d(x, relay.var("w", shape=(3, 2, 3, 3, 4, 4)),
                              data_layout="NCHW4c", kernel_layout="OIHW4i4o",
                              out_layout="NCHW5c"))
    with pytest.raises(TVMError, match="must order"):
        _type(relay.nn.conv2d(x, relay.var("w", shape=(3, 2, 3, 3, 4, 4)),
                              data_layout="NCDW4c", kernel_layout="OIHW4i4o"))


def test_other_layouts_build_between_layout_transforms(rng):
    from tvmlite.topi.testing import conv2d_nchw_python
    xv = rng.standard_normal((1, 8, 9, 7)).astype("float32")
    wv = rng.standard_normal((12, 8, 3, 3)).astype("float32")
    want = conv2d_nchw_python(xv, wv, 1, 0)  # (1, 12, 7, 5)
    cases = [  # data NCHW4c with a plain OIHW kernel; NHWC data, HWIO kernel, NCHW output
        (xv.reshape(1, 2, 4, 9, 7).transpose(0, 1, 3, 4, 2), wv, "NCHW4c", "OIHW", "",
         want.reshape(1, 3, 4, 7, 5).transpose(0, 1, 3, 4, 2)),
        (xv.transpose(0, 2, 3, 1), wv.transpose(2, 3, 1, 0), "NHWC", "HWIO", "NCHW", want)]
    for data, weight, dl, kl, ol, ref in cases:
        x, w = relay.var("x", shape=data.shape), relay.var("w", shape=weight.shape)
        y = relay.nn.conv2d(x, w, data_layout=dl, kernel_layout=kl, out_layout=ol)
        out = relay.create_executor("graph", target="llvm").evaluate(
            relay.Function([x, w], y))(data.copy(), weight.copy()).numpy()
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", ["llvm", "c"])
def test_packed_conv2d_builds(rng, target):
    from tvmlite.topi.testing import conv2d_nchw_python
    xv = rng.standard_normal((1, 8, 7, 6)).astype("float32")
    wv = rng.standard_normal((12, 8, 3, 3)).astype("float32")
    x, w = relay.var("x", shape=xv.shape), relay.var("w", shape=wv.shape)
    y = relay.nn.conv2d(relay.layout_transform(x, "NCHW", "NCHW4c"),
                        relay.layout_transform(w, "OIHW", "OIHW4i2o"), strides=(2, 1),
                        padding=(1, 1), channels=12, kernel_size=(3, 3), data_layout="NCHW4c",
                        kernel_layout="OIHW4i2o", out_layout="NCHW2c")
    y = relay.nn.relu(relay.layout_transform(y, "NCHW2c", "NCHW"))
    f = relay.create_executor("graph", mod=tvm.IRModule.from_expr(relay.Function([x, w], y)),
                              target=target).evaluate()
    want = np.maximum(conv2d_nchw_python(xv, wv, (2, 1), 1), 0)
    np.testing.assert_allclose(f(xv, wv).numpy(), want, rtol=1e-4, atol=1e-4)
