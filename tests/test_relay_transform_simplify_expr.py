"""relay.transform.SimplifyExpr: each rewrite checked structurally and against the numbers of
the program it simplifies."""
import numpy as np
import pytest

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay import transform

RNG = np.random.default_rng(3)


def _simplify(func):
    mod = transform.InferType()(tvm.IRModule.from_expr(func))
    return transform.SimplifyExpr()(mod)["main"]


def _ops(expr):
    out = []
    relay.analysis.post_order_visit(
        expr, lambda n: out.append(n.op.name) if isinstance(n, relay.Call)
        and hasattr(n.op, "name") else None)
    return out


def _check_same_numbers(func, new, inputs):
    want = build_run(func, inputs)[0]
    got = build_run(new, inputs)[0]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_reshape_and_transpose_chains():
    x = relay.var("x", shape=(2, 3, 5, 7), dtype="float32")
    y = relay.reshape(x, (6, -1))
    y = relay.reverse_reshape(y, (3, -1, 0))
    y = relay.transpose(y, (2, 0, 1))
    y = relay.transpose(y, (1, 2, 0))  # cancels the one before
    y = relay.transpose(relay.nn.relu(y), (0, 2, 1))
    y = relay.transpose(y)  # reverse
    f = relay.Function([x], y)
    new = _simplify(f)
    assert _ops(new) == ["reshape", "nn.relu", "transpose"]
    _check_same_numbers(f, new, {"x": RNG.standard_normal((2, 3, 5, 7)).astype("float32")})


def test_casts_identities_and_constants():
    x = relay.var("x", shape=(3, 5), dtype="int8")
    y = relay.cast(relay.cast(x, "int16"), "float32")  # widening: one cast
    y = relay.cast(y, "float32")  # same dtype: gone
    y = y + relay.zeros((3, 5), "float32")  # identity
    y = y * relay.ones_like(y)  # identity
    c1 = relay.const(np.arange(5, dtype="float32"))
    c2 = relay.const(np.float32(1.5))
    y = (y + c1) * c2  # -> y * c2 + c1 * c2
    y = y + y  # -> y * 2
    y = y / relay.sqrt(relay.const(np.float32(4.0)) + relay.abs(y))  # -> * rsqrt
    f = relay.Function([x], y)
    new = _simplify(f)
    ops = _ops(new)
    assert ops.count("cast") == 1 and "zeros" not in ops and "ones_like" not in ops
    assert "rsqrt" in ops and "sqrt" not in ops and "divide" not in ops
    data = RNG.integers(-100, 100, (3, 5)).astype("int8")
    _check_same_numbers(f, new, {"x": data})


def test_narrowing_cast_is_kept():
    x = relay.var("x", shape=(4,), dtype="float32")
    f = relay.Function([x], relay.cast(relay.cast(x, "int32"), "float32"))
    new = _simplify(f)
    assert _ops(new) == ["cast", "cast"]
    _check_same_numbers(f, new, {"x": np.array([1.7, -2.2, 3.5, 0.4], "float32")})


def test_like_ops_become_static_and_full_becomes_scalar():
    x = relay.var("x", shape=(2, 3), dtype="float32")
    b = relay.var("b", shape=(3,), dtype="float32")
    s = x + b
    y = relay.collapse_sum_like(relay.ones_like(s), b)
    y = y + relay.sum(relay.broadcast_to_like(b, x), axis=0)
    z = relay.multiply(x, relay.full(relay.const(np.float32(3.0)), (2, 3), "float32"))
    z = relay.reshape_like(z, relay.zeros((3, 2), "float32"))
    f = relay.Function([x, b], relay.Tuple([y, z, relay.cast_like(x, b)]))
    new = _simplify(f)
    ops = _ops(new)
    for like in ("ones_like", "collapse_sum_like", "broadcast_to_like", "reshape_like",
                 "cast_like", "full"):
        assert like not in ops, like
    inputs = {"x": RNG.standard_normal((2, 3)).astype("float32"),
              "b": RNG.standard_normal(3).astype("float32")}
    _check_same_numbers(f, new, inputs)


def test_clip_cast_pairs():
    x = relay.var("x", shape=(4, 3), dtype="int32")
    y = relay.cast(relay.cast(relay.clip(x, 0.0, 255.0), "uint8"), "int32")
    z = relay.clip(relay.cast(x, "uint8"), 0.0, 255.0)
    f = relay.Function([x], relay.Tuple([y, relay.cast(z, "int32")]))
    new = _simplify(f)
    assert _ops(new).count("clip") == 1 and _ops(new).count("cast") == 2
    _check_same_numbers(f, new, {"x": RNG.integers(-300, 300, (4, 3)).astype("int32")})


def test_cast_like_op_checks_types():
    x = relay.var("x", shape=(2,), dtype="float32")
    with pytest.raises(tvm.TVMError, match="cast_like"):
        transform.InferType()(tvm.IRModule.from_expr(relay.cast_like(x, relay.Tuple([x]))))
