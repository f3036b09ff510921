"""Classic ``ExprWithOp`` methods of relay expressions: ``-x`` (negative) and
``x.astype(dtype)`` (cast), typed and computed as numpy does."""
import numpy as np

import tvmlite as tvm
from tvmlite import relay


def test_negative_and_astype(rng):
    x = relay.var("x", shape=(3, 5))
    y = (-x).astype("int32")
    assert y.op.name == "cast" and y.args[0].op.name == "negative"
    f = relay.Function([x], relay.Tuple([y, -(x * 2.0)]))
    xv = (rng.standard_normal((3, 5)) * 10).astype("float32")
    a, b = relay.create_executor("graph", mod=tvm.IRModule.from_expr(f)).evaluate()(xv)
    assert a.dtype == "int32"
    np.testing.assert_array_equal(a.numpy(), (-xv).astype("int32"))
    np.testing.assert_allclose(b.numpy(), -(xv * 2), rtol=1e-6)
