"""relay.searchsorted against numpy.searchsorted (1-D and batched rows, both sides)."""
import numpy as np
import pytest

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay


@pytest.mark.parametrize("seq_shape,val_shape,right,dtype", [
    ((7,), (3, 5), False, "int32"), ((2, 3, 9), (2, 3, 4), True, "int64")])
def test_searchsorted_matches_numpy(seq_shape, val_shape, right, dtype):
    rng = np.random.default_rng(3)
    seq = np.sort(rng.integers(-5, 5, seq_shape).astype("float32"), axis=-1)
    vals = rng.integers(-6, 6, val_shape).astype("float32")  # ties with the sequence
    s = relay.var("s", shape=seq_shape, dtype="float32")
    v = relay.var("v", shape=val_shape, dtype="float32")
    out = build_run(relay.Function([s, v], relay.searchsorted(s, v, right, dtype)),
                    {"s": seq, "v": vals})[0][0]
    side = "right" if right else "left"
    if len(seq_shape) == 1:
        want = np.searchsorted(seq, vals, side=side)
    else:
        rows_s, rows_v = seq.reshape(-1, seq_shape[-1]), vals.reshape(-1, val_shape[-1])
        want = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(rows_s, rows_v)])
        want = want.reshape(val_shape)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, want)


def test_searchsorted_bad_shapes_are_type_errors():
    s = relay.var("s", shape=(2, 5), dtype="float32")
    v = relay.var("v", shape=(3, 4), dtype="float32")
    with pytest.raises(tvm.TVMError, match="searchsorted"):
        relay.transform.InferType()(tvm.IRModule.from_expr(relay.searchsorted(s, v)))
