"""ToGraphNormalForm / ToANormalForm and relay.analysis.detect_feature: the forms convert
both ways and compute the same numbers."""
import numpy as np
import pytest

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay import transform
from tvmlite.relay.analysis import Feature, detect_feature


def _apply(f, p):
    return p(tvm.IRModule.from_expr(f))["main"]


def _lets_program():
    a = relay.var("a", shape=(2, 3), dtype="float32")
    x, y, z = relay.Var("x"), relay.Var("y"), relay.Var("z")
    body = relay.Let(z, relay.multiply(y, y), relay.add(z, y))
    body = relay.Let(y, relay.exp(x), body)
    return relay.Function([a], relay.Let(x, relay.add(a, a), body))


def test_graph_normal_form_removes_lets():
    f = _lets_program()
    g = _apply(f, transform.ToGraphNormalForm())
    assert Feature.fLet in detect_feature(f)
    assert Feature.fLet not in detect_feature(g) and Feature.fGraph in detect_feature(g)
    data = np.random.default_rng(1).standard_normal((2, 3)).astype("float32")
    e = np.exp(2 * data)
    np.testing.assert_allclose(build_run(g, {"a": data})[0][0], e * e + e, rtol=1e-5)
    np.testing.assert_allclose(build_run(f, {"a": data})[0][0], e * e + e, rtol=1e-5)


def test_a_normal_form_binds_every_value_once():
    a = relay.var("a", shape=(4,), dtype="float32")
    s = relay.add(a, a)
    f = relay.Function([a], relay.multiply(s, relay.exp(s)))
    h = _apply(f, transform.ToANormalForm())
    feats = detect_feature(h)
    assert Feature.fLet in feats and Feature.fGraph not in feats
    lets = []
    relay.analysis.post_order_visit(h, lambda n: lets.append(n) if isinstance(n, relay.Let)
                                    else None)
    assert len(lets) == 3  # add, exp, multiply
    data = np.arange(4, dtype="float32") / 4
    np.testing.assert_allclose(build_run(h, {"a": data})[0][0],
                               2 * data * np.exp(2 * data), rtol=1e-5)
    back = _apply(h, transform.ToGraphNormalForm())
    assert tvm.ir.structural_equal(back, transform.InferType()(
        tvm.IRModule.from_expr(f))["main"], map_free_vars=True)


def test_a_normal_form_refuses_scoped_bodies():
    c = relay.var("c", shape=(), dtype="bool")
    x = relay.var("x", shape=(2,), dtype="float32")
    f = relay.Function([c, x], relay.If(c, relay.exp(x), x))
    with pytest.raises(tvm.TVMError, match="If inside a function body"):
        _apply(f, transform.ToANormalForm())
