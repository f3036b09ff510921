"""relay.dataflow_pattern: matching, rewriting (compared numerically with the program it
rewrites) and partitioning."""
import numpy as np
import pytest

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay.dataflow_pattern import (
    DFPatternCallback,
    dominates,
    is_constant,
    is_op,
    is_tuple,
    is_tuple_get_item,
    is_var,
    rewrite,
    wildcard,
)

RNG = np.random.default_rng(7)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def test_match_call_commutative_and_alternatives():
    x, y = relay.var("x"), relay.var("y")
    pat = is_op("add")(is_var("y"), wildcard())
    assert pat.match(x + y)  # add matches with its arguments swapped
    assert not is_op("subtract")(is_var("y"), wildcard()).match(x - y)
    alt = is_op("nn.relu")(wildcard()) | is_op("tanh")(wildcard())
    assert alt.match(relay.tanh(x)) and not alt.match(relay.sigmoid(x))
    # one pattern node binds one expression
    same = wildcard()
    assert (same + same).match(x + x) and not (same + same).match(x + y)


def test_match_attrs_types_and_tuple_items():
    x = relay.var("x", shape=(2, 5), dtype="float32")
    t = relay.Tuple([x, relay.nn.relu(x), x])
    item = is_tuple_get_item(is_tuple([wildcard(), is_op("nn.relu")(wildcard()), wildcard()]),
                             1)
    assert item.match(relay.TupleGetItem(t, 1)) and not item.match(relay.TupleGetItem(t, 2))
    assert is_tuple_get_item(wildcard()).match(relay.TupleGetItem(t, 2))
    cast = is_op("cast")(wildcard()).has_attr({"dtype": "float16"})
    assert cast.match(relay.cast(x, "float16")) and not cast.match(relay.cast(x, "int32"))
    typed = wildcard().has_shape([2, 5]).has_dtype("float32")
    assert typed.match(relay.nn.relu(x)) and not wildcard().has_shape([5, 2]).match(x)
    assert is_op("add").has_attr({"TOpPattern": 1}).match(relay.op.get("add"))
    f = relay.Function([x], x).with_attr("Composite", "id")
    assert wildcard().has_attr({"Composite": "id"}).match(f)
    assert not wildcard().has_attr({"Composite": "other"}).match(f)


def test_dominator_match_and_reject():
    conv = is_op("nn.conv2d")(wildcard(), wildcard())
    path = wildcard().has_attr({"TOpPattern": 0})(wildcard())
    diamond = dominates(conv, path, is_op("add")(wildcard(), wildcard()))
    x, w = relay.var("x"), relay.var("w")
    c = relay.nn.conv2d(x, w)
    assert diamond.match(relay.nn.relu(relay.nn.relu(c)) + relay.tanh(c))
    c2 = relay.nn.conv2d(relay.var("x2"), w)
    assert not diamond.match(relay.nn.relu(c) + relay.tanh(c2))  # two parents


class _FoldScale(DFPatternCallback):
    """x * a * b with constants a, b -> x * (a * b)."""

    def __init__(self):
        super().__init__()
        self.x, self.a, self.b = wildcard(), is_constant(), is_constant()
        self.pattern = is_op("multiply")(is_op("multiply")(self.x, self.a), self.b)

    def callback(self, pre, post, node_map):
        a = node_map[self.a][0].data.numpy()
        b = node_map[self.b][0].data.numpy()
        return relay.multiply(node_map[self.x][0], relay.const(a * b))


def test_rewrite_to_fixed_point_matches_numerically():
    x = relay.var("x", shape=(3, 7), dtype="float32")
    e = x
    for k in range(6):  # a chain the rewrite folds one pair at a time
        e = relay.multiply(e, relay.const(np.float32(1.0 + 0.1 * k)))
    out = relay.nn.relu(e)
    new = rewrite(_FoldScale(), out)
    muls = []
    relay.analysis.post_order_visit(
        new, lambda n: muls.append(n) if isinstance(n, relay.Call)
        and n.op.name == "multiply" else None)
    assert len(muls) == 1
    data = _rand(3, 7)
    want = build_run(relay.Function([x], out), {"x": data})[0][0]
    got = build_run(relay.Function([x], new), {"x": data})[0][0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_rewrite_deep_chain_is_iterative():
    x = relay.var("x", shape=(4,), dtype="float32")
    e = x
    for _ in range(3000):
        e = relay.nn.relu(e)

    class Drop(DFPatternCallback):
        def __init__(self):
            super().__init__()
            self.inner = is_op("nn.relu")(wildcard())
            self.pattern = is_op("nn.relu")(self.inner)

        def callback(self, pre, post, node_map):
            return node_map[self.inner][0]
    new = rewrite(Drop(), e)
    assert isinstance(new, relay.Call) and new.args[0] is x


def test_partition_builds_same_values():
    x = relay.var("x", shape=(1, 3, 8, 9), dtype="float32")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="float32")
    b = relay.var("b", shape=(4,), dtype="float32")
    out = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    pat = is_op("nn.relu")(is_op("nn.bias_add")(is_op("nn.conv2d")(wildcard(), wildcard()),
                                                wildcard()))
    part = pat.partition(out, {"Composite": "cbr"})
    assert isinstance(part, relay.Call) and isinstance(part.op, relay.Function)
    assert part.op.attrs["PartitionedFromPattern"] == "nn.conv2d_nn.bias_add_nn.relu_"
    assert part.op.attrs["Composite"] == "cbr"
    assert [a for a in part.args] == [x, w, b]
    assert pat.partition(out, check=lambda e: False) is out
    inputs = {"x": _rand(1, 3, 8, 9), "w": _rand(4, 3, 3, 3), "b": _rand(4)}
    want = build_run(relay.Function([x, w, b], out), inputs)[0][0]
    inlined = relay.bind(part.op.body, dict(zip(part.op.params, part.args)))
    got = build_run(relay.Function([x, w, b], inlined), inputs)[0][0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_partition_rejects_inner_value_used_outside():
    x = relay.var("x")
    inner = relay.nn.relu(x)
    out = relay.Tuple([relay.tanh(inner), inner])
    pat = is_op("tanh")(is_op("nn.relu")(wildcard()))
    assert pat.partition(out) is out


def test_bad_input_is_a_clear_error():
    class NoPattern(DFPatternCallback):
        pass
    with pytest.raises(tvm.TVMError, match="no pattern"):
        rewrite(NoPattern(), relay.var("x"))
    with pytest.raises(tvm.TVMError, match="not registered"):
        is_op("no_such_op")


def test_bind_replaces_vars_and_drops_bound_params():
    x = relay.var("x", shape=(3,), dtype="float32")
    y = relay.var("y", shape=(3,), dtype="float32")
    f = relay.Function([x, y], relay.add(x, y))
    g = relay.bind(f, {x: relay.const(np.arange(3, dtype="float32"))})
    assert list(g.params) == [y]
    data = _rand(3)
    got = build_run(g, {"y": data})[0][0]
    np.testing.assert_allclose(got, data + np.arange(3), rtol=1e-6)
    assert tvm.ir.structural_equal(relay.bind(relay.add(x, y), {y: x}), relay.add(x, x))
    with pytest.raises(tvm.TVMError, match="relay.bind"):
        relay.bind(f, {"x": x})
