"""topi.searchsorted (binary search per value) against numpy.searchsorted: 1-D and N-D
sequences, both sides, ties, values outside the range, odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(29)


@pytest.mark.parametrize("seq_shape,val_shape", [((1,), (5,)), ((7,), (3, 4)), ((4, 9), (4, 5)),
                                                 ((2, 3, 16), (2, 3, 7)), ((33,), ())])
@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("out_dtype", ["int32", "int64"])
def test_searchsorted(seq_shape, val_shape, right, out_dtype):
    # few distinct values: many ties, and values below / above every element
    seq = np.sort(RNG.integers(-4, 5, seq_shape), axis=-1).astype("float32")
    vals = RNG.integers(-6, 7, val_shape).astype("float32")
    side = "right" if right else "left"
    if len(seq_shape) == 1:
        want = np.searchsorted(seq, vals, side=side)
    else:
        want = np.stack([np.searchsorted(s, v, side=side) for s, v in
                         zip(seq.reshape(-1, seq_shape[-1]), vals.reshape(-1, val_shape[-1]))]
                        ).reshape(val_shape)
    np.testing.assert_array_equal(ref.searchsorted_ref(seq, vals, right, out_dtype), want)
    S, V = te.placeholder(seq_shape, name="S"), te.placeholder(val_shape, name="V")
    out = topi.searchsorted(S, V, right, out_dtype)
    assert out.dtype == out_dtype
    f = tvm.build(topi.generic.schedule_extern([out]), [S, V, out], "llvm")
    res = tvm.nd.array(np.zeros(val_shape, out_dtype))
    f(tvm.nd.array(seq), tvm.nd.array(vals), res)
    np.testing.assert_array_equal(res.numpy(), want)


def test_searchsorted_errors():
    with pytest.raises(TopiError, match="outer dimensions"):
        topi.searchsorted(te.placeholder((3, 5)), te.placeholder((4, 2)))
