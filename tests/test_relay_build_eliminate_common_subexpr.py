"""relay.build runs EliminateCommonSubexpr at opt_level 3 (after SimplifyInference, before
FoldConstant, classic's order): a duplicated branch builds to fewer kernels and computes the
same numbers as numpy; below opt_level 3, or disabled, both copies stay."""
import numpy as np
from relay_helpers import build_run, kernel_names

import tvmlite as tvm
from tvmlite import relay


def _twin_branches():
    """Two copies of dense + bias + softmax (softmax does not fuse: four kernels), added."""
    x = relay.var("x", shape=(4, 16))
    w = relay.var("w", shape=(8, 16))
    b = relay.var("b", shape=(8,))
    left = relay.nn.softmax(relay.nn.bias_add(relay.nn.dense(x, w), b))
    right = relay.nn.softmax(relay.nn.bias_add(relay.nn.dense(x, w), b))
    return relay.Function([x, w, b], relay.multiply(left, relay.add(right, relay.const(1.0))))


def _numpy(x, w, b):
    z = x @ w.T + b
    e = np.exp(z - z.max(axis=1, keepdims=True))
    y = e / e.sum(axis=1, keepdims=True)
    return y * (y + 1)


def test_duplicated_branch_builds_to_fewer_kernels_with_numpy_results():
    rng = np.random.default_rng(0)
    inputs = {"x": rng.standard_normal((4, 16)).astype("float32"),
              "w": rng.standard_normal((8, 16)).astype("float32"),
              "b": rng.standard_normal(8).astype("float32")}
    want = _numpy(**inputs)
    (merged,), f3 = build_run(_twin_branches(), inputs, opt_level=3)
    (kept,), f_off = build_run(_twin_branches(), inputs, opt_level=3,
                               disabled_pass=["EliminateCommonSubexpr"])
    (kept2,), f2 = build_run(_twin_branches(), inputs, opt_level=2)
    n3, n_off, n2 = (len(kernel_names(f)) for f in (f3, f_off, f2))
    assert n3 < n_off and n_off == n2, (kernel_names(f3), kernel_names(f_off))
    for got in (merged, kept, kept2):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_optimize_merges_the_twin_calls_only_at_opt_level_3():
    mod = tvm.IRModule.from_expr(_twin_branches())
    for level, dense_calls in ((3, 1), (2, 2)):
        with tvm.transform.PassContext(opt_level=level):
            out = relay.build_module.optimize(mod)
        calls = [n for n in relay.expr.post_order(out["main"].body)
                 if isinstance(n, relay.Call) and n.op.name == "nn.dense"]
        assert len(calls) == dense_calls
