"""relay.data_dep_optimization.simplify_fc_transpose: dense of a transposed parameter uses a
pre-transposed parameter and computes the same numbers."""
import numpy as np

from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay.data_dep_optimization import simplify_fc_transpose


def test_transposed_dense_weights_are_pre_transposed():
    rng = np.random.default_rng(12)
    data = relay.var("data", shape=(3, 7), dtype="float32")
    w1 = relay.var("w1", shape=(7, 5), dtype="float32")
    w2 = relay.var("w2", shape=(5, 4), dtype="float32")
    y = relay.nn.relu(relay.nn.dense(data, relay.transpose(w1, axes=[1, 0])))
    y = relay.nn.dense(y, relay.transpose(w2))  # reversed axes: also a 2-D transpose
    y = y + relay.sum(w1)  # w1 is still read directly: it stays a parameter
    func = relay.Function([data, w1, w2], y)
    params = {"w1": rng.standard_normal((7, 5)).astype("float32"),
              "w2": rng.standard_normal((5, 4)).astype("float32")}
    new_func, new_params = simplify_fc_transpose.convert(func, params)
    names = [p.name_hint for p in new_func.params]
    assert names == ["data", "w1", "w1.T", "w2.T"] and "w2" not in new_params
    ops = []
    relay.analysis.post_order_visit(new_func, lambda n: ops.append(n.op.name)
                                    if isinstance(n, relay.Call) else None)
    assert "transpose" not in ops
    x = rng.standard_normal((3, 7)).astype("float32")
    want = build_run(func, {"data": x}, params=params)[0][0]
    got = build_run(new_func, {"data": x}, params=new_params)[0][0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
