"""Structural equality and hashing of relay graphs: sharing is structure, free variables
compare by identity unless mapped, bound ones by position, annotations count."""
import tvmlite as tvm
from tvmlite import relay


def _consistent(x, y, map_free_vars=False):
    eq = tvm.ir.structural_equal(x, y, map_free_vars)
    assert eq == tvm.ir.structural_equal(y, x, map_free_vars)
    assert eq == (tvm.ir.structural_hash(x, map_free_vars)
                  == tvm.ir.structural_hash(y, map_free_vars))
    return eq


def test_shared_nodes_are_structure():
    x = relay.var("x")
    y0 = relay.add(x, x)
    z0 = relay.add(y0, y0)
    z1 = relay.add(relay.add(x, x), relay.add(x, x))
    assert not _consistent(z0, z1)
    y2 = relay.add(x, x)
    assert _consistent(z0, relay.add(y2, y2))
    assert _consistent(relay.Tuple([]), relay.Tuple([]))


def test_free_and_bound_variables():
    v1, v2 = relay.Var("v1"), relay.Var("v2")
    assert _consistent(v1, v1) and not _consistent(v1, v2)
    assert _consistent(v1, v2, map_free_vars=True)
    one = relay.const(1)
    assert _consistent(relay.Let(v1, one, v1), relay.Let(v2, one, v2))
    assert not _consistent(relay.Let(v1, one, v1), relay.Let(v1, one, v2))
    a = relay.Var("a", relay.TensorType([], "int32"))
    b = relay.Var("b", relay.TensorType([], "int64"))
    assert not _consistent(relay.Let(a, one, a), relay.Let(b, one, b))


def test_float_attributes_compare_within_tolerance():
    x = relay.var("x", shape=(1, 2, 3, 3))
    g = relay.var("g", shape=(2,))
    a = relay.nn.batch_norm(x, g, g, g, g, epsilon=1e-5)[0]
    b = relay.nn.batch_norm(x, g, g, g, g, epsilon=float.fromhex("0x1.4f8b58p-17"))[0]
    c = relay.nn.batch_norm(x, g, g, g, g, epsilon=1e-3)[0]
    assert tvm.ir.structural_equal(a, b) and not tvm.ir.structural_equal(a, c)
