"""relay.transform.DefuseOps (undo FuseOps) and CanonicalizeCast (a widening cast per
reader): both keep the program's numbers."""
import numpy as np

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay import transform

RNG = np.random.default_rng(4)


def _mod(f):
    return transform.InferType()(tvm.IRModule.from_expr(f))


def test_defuse_undoes_fuse_ops():
    x = relay.var("x", shape=(1, 3, 7, 5), dtype="float32")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="float32")
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)) + relay.const(1.0))
    f = relay.Function([x, w], relay.exp(y) * y)
    fused = transform.FuseOps(2)(_mod(f))
    assert any(isinstance(n.op, relay.Function) for n in _calls(fused["main"]))
    back = transform.DefuseOps()(fused)["main"]
    assert not any(isinstance(n.op, relay.Function) for n in _calls(back))
    assert tvm.ir.structural_equal(back, _mod(f)["main"], map_free_vars=True)
    inputs = {"x": RNG.standard_normal((1, 3, 7, 5)).astype("float32"),
              "w": RNG.standard_normal((4, 3, 3, 3)).astype("float32")}
    np.testing.assert_allclose(build_run(back, inputs)[0][0], build_run(f, inputs)[0][0],
                               rtol=1e-5, atol=1e-5)


def _calls(e):
    out = []
    relay.analysis.post_order_visit(e, lambda n: out.append(n) if isinstance(n, relay.Call)
                                    else None)
    return out


def test_canonicalize_cast_copies_shared_widening_casts():
    x = relay.var("x", shape=(2, 6), dtype="int8")
    b1 = relay.var("b1", shape=(6,), dtype="int32")
    b2 = relay.var("b2", shape=(2, 6), dtype="int32")
    wide = relay.cast(x, "int32")
    narrow = relay.cast(relay.cast(b1, "int64"), "int8")  # a narrowing cast stays shared
    y = relay.add(wide, b1) * relay.add(wide, b2) + relay.cast(relay.add(narrow, x), "int32") \
        + relay.cast(relay.add(narrow, x), "int32")
    f = relay.Function([x, b1, b2], y)
    g = transform.CanonicalizeCast()(_mod(f))["main"]
    casts = [n for n in _calls(g) if n.op.name == "cast"]
    assert len([c for c in casts if c.attrs.dtype == "int32" and c.args[0] is x]) == 2
    assert len([c for c in casts if c.attrs.dtype == "int8"]) == 1
    inputs = {"x": RNG.integers(-50, 50, (2, 6)).astype("int8"),
              "b1": RNG.integers(-50, 50, 6).astype("int32"),
              "b2": RNG.integers(-50, 50, (2, 6)).astype("int32")}
    np.testing.assert_array_equal(build_run(g, inputs)[0][0], build_run(f, inputs)[0][0])
