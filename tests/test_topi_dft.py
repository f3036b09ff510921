"""topi.dft against numpy.fft.fft / ifft along the last axis: odd lengths, ranks 1 to 3,
float16/32/64."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(47)


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("shape", [(1,), (7,), (3, 8), (2, 3, 5), (4, 31)])
@pytest.mark.parametrize("dtype,tol", [("float16", 2e-2), ("float32", 1e-4),
                                       ("float64", 1e-10)])
def test_dft(inverse, shape, dtype, tol):
    re = RNG.normal(size=shape).astype(dtype)
    im = RNG.normal(size=shape).astype(dtype)
    x = re.astype("float64") + 1j * im.astype("float64")
    want = np.fft.ifft(x) if inverse else np.fft.fft(x)
    Re, Im = te.placeholder(shape, dtype, "Re"), te.placeholder(shape, dtype, "Im")
    outs = topi.dft(Re, Im, inverse)
    assert [o.dtype for o in outs] == [dtype, dtype]
    f = tvm.build(topi.generic.schedule_extern(outs), [Re, Im, *outs], "llvm")
    res = [tvm.nd.array(np.zeros(shape, dtype)) for _ in outs]
    f(tvm.nd.array(re), tvm.nd.array(im), *res)
    scale = np.abs(want).max() + 1
    np.testing.assert_allclose(res[0].numpy(), want.real, rtol=tol, atol=tol * scale)
    np.testing.assert_allclose(res[1].numpy(), want.imag, rtol=tol, atol=tol * scale)


def test_dft_errors():
    with pytest.raises(TopiError, match="one shape"):
        topi.dft(te.placeholder((4,)), te.placeholder((5,)), False)
    with pytest.raises(TopiError, match="float"):
        topi.dft(te.placeholder((4,), "int32"), te.placeholder((4,), "int32"), False)
