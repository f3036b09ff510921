"""The graph executor's classic API around a build: nested tuple results of
``create_executor(...).evaluate()`` keep their structure, ``get_input_info`` gives the
shapes and dtypes of the inputs that are not params."""
import numpy as np

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor


def test_nested_tuple_results_keep_their_structure(rng):
    x, y, z = [relay.var(c, shape=(2, 3)) for c in "xyz"]
    out = relay.Tuple([relay.exp(x), relay.Tuple([y, relay.Tuple([relay.add(y, z), z])])])
    f = relay.create_executor("graph", mod=tvm.IRModule.from_expr(relay.Function([x, y, z], out)),
                              device=tvm.cpu(0), target="llvm").evaluate()
    xv, yv, zv = [rng.standard_normal((2, 3)).astype("float32") for _ in range(3)]
    res = f(xv, yv, zv)
    assert len(res) == 2 and len(res[1]) == 2 and len(res[1][1]) == 2
    np.testing.assert_allclose(res[0].numpy(), np.exp(xv), rtol=1e-6)
    np.testing.assert_allclose(res[1][0].numpy(), yv)
    np.testing.assert_allclose(res[1][1][0].numpy(), yv + zv, rtol=1e-6)
    np.testing.assert_allclose(res[1][1][1].numpy(), zv)
    # a single tensor result is one array, a one-field tuple a tuple
    one = relay.create_executor("graph", mod=tvm.IRModule.from_expr(
        relay.Function([x], relay.Tuple([relay.exp(x)]))), device=tvm.cpu(0),
        target="llvm").evaluate()(xv)
    assert isinstance(one, tuple) and len(one) == 1


def test_get_input_info_leaves_out_params(rng):
    x = relay.var("x", shape=(3, 4))
    w = relay.var("w", shape=(5, 4))
    i = relay.var("i", shape=(3,), dtype="int32")
    y = relay.add(relay.nn.dense(x, w), relay.expand_dims(relay.cast(i, "float32"), 1))
    mod = tvm.IRModule.from_expr(relay.Function([x, w, i], y))
    lib = relay.build(mod, "llvm", params={"w": rng.standard_normal((5, 4)).astype("float32")})
    gm = graph_executor.GraphModule(lib["default"](tvm.cpu(0)))
    shapes, dtypes = gm.get_input_info()
    assert isinstance(shapes, tvm.container.Map) and isinstance(dtypes, tvm.container.Map)
    assert sorted(shapes.keys()) == ["i", "x"]
    assert shapes["x"] == tvm.runtime.container.ShapeTuple([3, 4])
    assert shapes["i"] == tvm.runtime.container.ShapeTuple([3])
    assert dtypes["x"] == "float32" and dtypes["i"] == "int32"
