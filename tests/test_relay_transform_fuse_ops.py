"""FuseOps over control flow: a let's value and body, an if's condition and branches and a
nested function's body are fused within (classic: the control nodes are opaque); the fused
program computes what the original does."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.relay.expr import children, post_order


def _calls(expr):
    """(operator names called outside primitive functions, the primitive functions)."""
    def primitive(f):
        return isinstance(f, relay.Function) and f.attrs and int(f.attrs.get("Primitive", 0))

    def kids(n):  # not into the primitive functions
        return [] if primitive(n) else children(n)

    bare, prims = [], []
    for n in post_order(expr, kids):
        if isinstance(n, relay.Call) and primitive(n.op):
            prims.append(n.op)
        elif isinstance(n, relay.Call) and hasattr(n.op, "name"):
            bare.append(n.op.name)
    return bare, prims


def _control_flow_program(shape):
    x = relay.var("x", shape=shape)
    y = relay.var("y", shape=shape)
    c = relay.sum(relay.greater(x, y).astype("int32")) > relay.const(shape[0])
    v = relay.var("v", shape=shape)
    z = relay.var("z", shape=shape)
    closure = relay.Function([z], relay.exp(relay.add(z, v)))
    f = relay.var("f")
    then = relay.Let(f, closure, relay.multiply(f(x), relay.const(2.0)))
    body = relay.If(c, then, relay.tanh(relay.subtract(x, v)))
    return relay.Function([x, y], relay.Let(v, relay.add(relay.sqrt(relay.abs(y)), x), body))


def _reference(xv, yv):
    v = np.sqrt(np.abs(yv)) + xv
    if (xv > yv).sum() > xv.shape[0]:
        return np.exp(xv + v) * 2
    return np.tanh(xv - v)


@pytest.mark.parametrize("shape", [(3, 5), (7, 2)])
def test_control_flow_is_fused_within(rng, shape):
    mod = tvm.IRModule.from_expr(_control_flow_program(shape))
    fused = relay.transform.FuseOps(fuse_opt_level=2)(relay.transform.InferType()(mod))
    bare, prims = _calls(fused["main"])
    assert bare == []  # every operator inside a primitive function
    # the let value (abs, sqrt, add), the condition (greater, cast, sum | greater), the
    # closure body (add, exp), the branch (multiply), the else branch (subtract, tanh)
    names = sorted(relay.transform.fuse_ops.group_name(p) for p in prims)
    assert names == sorted(["fused_abs_sqrt_add", "fused_greater_cast_sum", "fused_greater",
                            "fused_add_exp", "fused_multiply", "fused_subtract_tanh"])
    for _ in range(2):
        xv = rng.standard_normal(shape).astype("float32")
        yv = rng.standard_normal(shape).astype("float32") - 1.5 * rng.random()
        want = _reference(xv, yv)
        for m in (mod, fused):
            out = relay.create_executor("vm", mod=m, target="llvm").evaluate()(xv, yv)
            np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


def test_fusion_stays_inside_a_branch():
    """An op computed outside an ``if`` and read only inside a branch joins nothing across
    the boundary: the condition's group and each branch's are separate kernels."""
    x = relay.var("x", shape=(4,))
    a = relay.exp(x)
    cond = relay.greater(relay.sum(a), relay.const(1.0))
    body = relay.If(cond, relay.negative(a), relay.add(a, relay.const(1.0)))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([x], body)))
    fused = relay.transform.FuseOps(fuse_opt_level=2)(mod)
    bare, prims = _calls(fused["main"])
    names = sorted(relay.transform.fuse_ops.group_name(p) for p in prims)
    assert bare == []
    assert names == sorted(["fused_exp", "fused_sum", "fused_greater", "fused_negative",
                            "fused_add"])


def test_refs_are_refused_clearly():
    x = relay.var("x", shape=(2,))
    body = relay.RefRead(relay.RefCreate(relay.exp(x)))
    with pytest.raises(TVMError, match="FuseOps: RefRead is not supported"):
        relay.transform.fuse_ops.partition(body, True, 256)
