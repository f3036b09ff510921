"""DeadCodeElimination: unused let bindings go (also those only a dead binding used), used
ones stay; a 20,000-deep let chain is walked without recursion."""
import numpy as np

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay.expr import Let, post_order


def _lets(func):
    return sum(isinstance(n, Let) for n in post_order(func.body))


def test_unused_lets_removed_used_kept(rng):
    x = relay.var("x", shape=(3, 5))
    a, b, c = relay.var("a"), relay.var("b"), relay.var("c")
    body = Let(a, relay.add(x, x), Let(b, relay.multiply(a, a),  # b only feeds dead c
                                       Let(c, relay.negative(b), relay.nn.relu(a))))
    mod = tvm.IRModule.from_expr(relay.Function([x], body))
    out = relay.transform.DeadCodeElimination()(mod)
    assert _lets(out["main"]) == 1
    xa = rng.standard_normal((3, 5)).astype("float32")
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(out, target="llvm")
    from tvmlite.contrib import graph_executor
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run(x=xa)
    np.testing.assert_allclose(gm.get_output(0).numpy(), np.maximum(xa + xa, 0), rtol=1e-6)


def test_long_let_chain_no_recursion():
    x = relay.var("x", shape=(2,))
    body = x
    for i in range(20000):
        body = Let(relay.var(f"v{i}"), relay.negative(x), body)
    out = relay.transform.DeadCodeElimination()(tvm.IRModule.from_expr(relay.Function([x],
                                                                                       body)))
    assert out["main"].body is x
