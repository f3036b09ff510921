"""relay.ScopeBuilder: nested lets and ifs built with `with` blocks."""
import pytest

import tvmlite as tvm
from tvmlite import relay


def test_lets_and_if_else_build_the_expected_expression():
    x = relay.var("x", shape=(2,))
    y = relay.var("y", shape=(2,))
    cond = relay.var("cond", "bool")
    sb = relay.ScopeBuilder()
    t = sb.let("t", relay.add(x, y))
    with sb.if_scope(cond):
        v = sb.let(("v", relay.TensorType((2,), "float32")), relay.nn.relu(t))
        sb.ret(relay.multiply(v, v))
    with sb.else_scope():
        sb.ret(relay.negative(t))
    body = sb.get()
    assert isinstance(body, relay.Let) and body.var is t
    branch = body.body
    assert isinstance(branch, relay.If) and branch.cond is cond
    assert isinstance(branch.true_branch, relay.Let) and branch.true_branch.var is v
    assert v.type_annotation == relay.TensorType((2,), "float32")
    expected_if = relay.If(cond, relay.Let(v, relay.nn.relu(t), relay.multiply(v, v)),
                           relay.negative(t))
    tvm.ir.assert_structural_equal(body, relay.Let(t, relay.add(x, y), expected_if))
    # it type-checks and prints in the text format
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([x, y, cond], body)))
    assert mod["main"].body.checked_type == relay.TensorType((2,), "float32")
    assert mod.astext().count("{") == 3


def test_misuse_is_refused():
    sb = relay.ScopeBuilder()
    with pytest.raises(tvm.TVMError, match="no return value"):
        sb.get()
    sb.ret(relay.const(1))
    with pytest.raises(tvm.TVMError, match="already set"):
        sb.ret(relay.const(2))
    with pytest.raises(tvm.TVMError, match="must follow an if_scope"):
        with sb.else_scope():
            sb.ret(relay.const(3))
