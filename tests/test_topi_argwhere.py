"""topi.argwhere against numpy.argwhere for ranks 1 to 6, odd sizes, dtypes and all-zero or
all-nonzero inputs."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(37)


@pytest.mark.parametrize("shape", [(1,), (13,), (5, 3), (6, 5, 3), (2, 3, 1, 4), (3, 1, 2, 2, 3),
                                   (2, 1, 3, 1, 2, 2)])
@pytest.mark.parametrize("dtype,fill", [("int32", None), ("float32", None), ("bool", None),
                                        ("int32", 0), ("int8", 1)])
def test_argwhere(shape, dtype, fill):
    if fill is None:
        x = RNG.choice([0, 0, 1, 2], size=shape).astype(dtype)
    else:
        x = np.full(shape, fill, dtype)
    want = np.argwhere(x).astype("int32")
    S = te.placeholder(want.shape, "int32", "S")
    C = te.placeholder(shape, dtype, "C")
    out = topi.argwhere(S, C)
    f = tvm.build(topi.generic.schedule_argwhere(out), [S, C, out], "llvm")
    res = tvm.nd.array(np.full(want.shape, -1, "int32"))
    f(tvm.nd.array(np.ones(want.shape, "int32")), tvm.nd.array(x), res)
    np.testing.assert_array_equal(res.numpy(), want)


def test_argwhere_errors():
    with pytest.raises(TopiError, match="2-D"):
        topi.argwhere(te.placeholder((3,), "int32"), te.placeholder((4,), "int32"))
