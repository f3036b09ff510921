"""EliminateCommonSubexpr alone: which calls are merged, fskip, opt_level gating, a 150,000-node
graph, and the built network's outputs before and after against numpy."""
import time

import numpy as np
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay.expr import post_order


def _calls(expr, name=None):
    return [n for n in post_order(expr) if isinstance(n, relay.Call)
            and (name is None or n.op.name == name)]


def _ecs(func, fskip=None):
    return relay.transform.EliminateCommonSubexpr(fskip)(tvm.IRModule.from_expr(func))["main"]


def _diamond():
    x = relay.var("x", shape=(2, 3))
    c = relay.const(np.arange(6, dtype="float32").reshape(2, 3))
    a = relay.add(x, c)
    return x, c, relay.Function([x], relay.multiply(relay.add(a, c), relay.add(a, c)))


def test_repeated_call_is_computed_once():
    x, c, func = _diamond()
    out = _ecs(func)
    assert len(_calls(func.body, "add")) == 3 and len(_calls(out.body, "add")) == 2
    mul = out.body
    assert mul.op.name == "multiply" and mul.args[0] is mul.args[1]
    assert out.body.checked_type == relay.TensorType((2, 3), "float32")  # typed by the pass
    assert "multiply(%1, %1)" in tvm.IRModule.from_expr(out).astext()


def test_attributes_and_arguments_must_match():
    x = relay.var("x", shape=(4, 6))
    y = relay.var("y", shape=(4, 6))
    s0, s0b, s1 = relay.sum(x, axis=0), relay.sum(x, axis=0), relay.sum(x, axis=1)
    out = _ecs(relay.Function([x, y], relay.Tuple([s0, s0b, s1, relay.add(x, y),
                                                   relay.add(y, x)])))
    f = out.body.fields
    assert f[0] is f[1] and f[2] is not f[0]            # equal attrs merge, others do not
    assert f[3] is not f[4]                             # add(x, y) is not add(y, x)


def test_scalar_constants_compare_by_value_tensors_by_identity():
    x = relay.var("x", shape=(3,))
    one_a, one_b = relay.const(1.0), relay.const(1.0)
    vec = np.ones(3, "float32")
    t = relay.Tuple([relay.add(x, one_a), relay.add(x, one_b),
                     relay.add(x, relay.const(vec)), relay.add(x, relay.const(vec)),
                     relay.add(x, relay.const(2.0))])
    f = _ecs(relay.Function([x], t)).body.fields
    assert f[0] is f[1]                                  # equal scalars
    assert f[2] is not f[3]                              # tensor constants: distinct objects
    assert f[4] is not f[0]                              # 2.0 is not 1.0


def test_tuple_arguments_and_projections():
    x = relay.var("x", shape=(2, 3))
    y = relay.var("y", shape=(2, 3))
    c0 = relay.concatenate(relay.Tuple([x, y]), axis=0)
    c1 = relay.concatenate(relay.Tuple([x, y]), axis=0)   # another tuple, the same fields
    parts = relay.split(x, 3, axis=1)
    p0, p0b = relay.TupleGetItem(parts.astuple(), 0), relay.TupleGetItem(parts.astuple(), 0)
    out = _ecs(relay.Function([x, y], relay.Tuple([c0, c1, p0, p0b])))
    f = out.body.fields
    assert f[0] is f[1] and f[2] is f[3]


def test_fskip_keeps_the_calls_it_names():
    x, c, func = _diamond()
    out = _ecs(func, fskip=lambda e: isinstance(e, relay.Call) and e.op.name == "add")
    assert len(_calls(out.body, "add")) == 3
    out = _ecs(func, fskip=lambda e: False)
    assert len(_calls(out.body, "add")) == 2


def test_opt_level_3_and_required_infer_type():
    p = relay.transform.EliminateCommonSubexpr()
    assert p.info.opt_level == 3 and p.info.required == ["InferType"]
    assert p.info.name == "EliminateCommonSubexpr"
    _, _, func = _diamond()
    mod = tvm.IRModule.from_expr(func)
    seq = tvm.transform.Sequential([relay.transform.EliminateCommonSubexpr()])
    assert len(_calls(seq(mod)["main"].body, "add")) == 3           # default opt_level 2
    with tvm.transform.PassContext(opt_level=3):
        assert len(_calls(seq(mod)["main"].body, "add")) == 2
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["EliminateCommonSubexpr"]):
        assert len(_calls(seq(mod)["main"].body, "add")) == 3
    with tvm.transform.PassContext(opt_level=0, required_pass=["EliminateCommonSubexpr"]):
        assert len(_calls(seq(mod)["main"].body, "add")) == 2


def test_numerically_equal_before_and_after(rng):
    x, c, func = _diamond()
    out = _ecs(func)
    xv = rng.standard_normal((2, 3)).astype("float32")
    cv = np.arange(6, dtype="float32").reshape(2, 3)
    want = (xv + cv + cv) ** 2
    (before,), _ = build_run(func, {"x": xv}, disabled_pass=["EliminateCommonSubexpr"])
    (after,), _ = build_run(out, {"x": xv}, disabled_pass=["EliminateCommonSubexpr"])
    np.testing.assert_allclose(before, want, rtol=1e-5)
    np.testing.assert_allclose(after, want, rtol=1e-5)


def test_150000_node_graph_without_recursion():
    x = relay.var("x", shape=(2,))
    prev = x
    n = 50_000
    for _ in range(n):
        prev = relay.add(relay.nn.relu(prev), relay.nn.relu(prev))  # 3 calls a step
    start = time.perf_counter()
    out = _ecs(relay.Function([x], prev))
    assert time.perf_counter() - start < 60
    assert len(_calls(out.body, "nn.relu")) == n and len(_calls(out.body, "add")) == n
    assert out.body.args[0] is out.body.args[1]
