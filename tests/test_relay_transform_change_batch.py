"""relay.transform.ChangeBatch on relay.testing.synthetic, and
relay.analysis.extract_fused_functions."""
import numpy as np
import pytest

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay.testing import synthetic


def test_change_batch_runs_each_sample_as_before():
    mod, params = synthetic.get_workload(input_shape=(1, 3, 6, 5))
    rng = np.random.default_rng(6)
    params = {k: rng.standard_normal(v.shape).astype("float32") * 0.3
              for k, v in params.items()}
    params["batch_norm_moving_var"] = np.abs(params["batch_norm_moving_var"]) + 1
    new = relay.transform.ChangeBatch({mod["main"].params[0]: 0}, batch_size=3)(mod)
    assert tuple(new["main"].checked_type.ret_type.shape) == (3, 3, 6, 5)
    data = rng.standard_normal((3, 3, 6, 5)).astype("float32")
    got = build_run(new["main"], {"data": data, **params})[0][0]
    for i in range(3):
        want = build_run(mod["main"], {"data": data[i:i + 1], **params})[0][0]
        np.testing.assert_allclose(got[i:i + 1], want, rtol=1e-4, atol=1e-5)
    with pytest.raises(tvm.TVMError, match="out of range"):
        relay.transform.ChangeBatch({mod["main"].params[0]: 7}, batch_size=3)(mod)


def test_extract_fused_functions_are_distinct_primitives():
    x = relay.var("x", shape=(1, 2, 5, 5), dtype="float32")
    w = relay.var("w", shape=(2, 2, 3, 3), dtype="float32")
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    z = relay.nn.relu(relay.nn.conv2d(y, w, padding=(1, 1)))  # the same fused function
    funcs = relay.analysis.extract_fused_functions(tvm.IRModule.from_expr(z))
    assert len(funcs) == 1
    (f,) = funcs.values()
    assert f.attrs["Primitive"] and [n.op.name for n in (f.body, f.body.args[0])] == \
        ["nn.relu", "nn.conv2d"]
