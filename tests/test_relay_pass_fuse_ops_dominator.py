"""FuseOps' post-dominator partitioning (classic's algorithm): diamonds of element-wise and
injective branches, tuples fused into their injective consumer, conv2d epilogues that meet
again, ``relay.FuseOps.link_params``, re-fusing a fused module; each network built and
compared with numpy on random inputs."""
import numpy as np
from relay_helpers import build_run, kernel_names

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay import transform
from tvmlite.topi.testing import conv2d_nchw_python


def _fuse(func, opt_level=2, config=None):
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=opt_level, config=config or {}):
        mod = transform.FuseOps()(transform.InferType()(mod))
    return mod["main"]


def _groups(func):
    """The primitive functions ``main`` calls, in order."""
    out = []
    for n in relay.expr.post_order(func.body):
        if isinstance(n, relay.Call) and isinstance(n.op, relay.Function):
            out.append(n.op)
    return out


def test_diamond_of_injective_branches_is_one_kernel(rng):
    # x -> exp -> {transpose, transpose(negative)} -> add: the exp's post-dominator is the add
    shape = (5, 7)
    x = relay.var("x", shape=shape)
    e = relay.exp(x)
    a = relay.transpose(e)
    b = relay.transpose(relay.negative(e))
    y = relay.add(a, relay.multiply(b, relay.const(2.0)))
    func = relay.Function([x], y)
    fused = _fuse(func)
    assert len(_groups(fused)) == 1
    xv = rng.standard_normal(shape).astype("float32")
    (out,), factory = build_run(func, {"x": xv})
    assert len(kernel_names(factory)) == 1
    np.testing.assert_allclose(out, np.exp(xv).T - 2 * np.exp(xv).T, rtol=1e-5, atol=1e-6)


def test_tuple_fields_fuse_into_concatenate(rng):
    # injective fields of a tuple join the concatenate the tuple went into (phase 2); the
    # concatenate's consumer joins as well
    x = relay.var("x", shape=(1, 3, 4, 5))
    y1 = relay.add(x, relay.const(1.0))
    y2 = relay.squeeze(relay.expand_dims(relay.multiply(x, relay.const(3.0)), 0), axis=[0])
    cat = relay.concatenate([y1, y2, relay.nn.relu(x)], axis=1)
    out = relay.subtract(cat, relay.const(0.5))
    func = relay.Function([x], out)
    assert len(_groups(_fuse(func))) == 1
    xv = rng.standard_normal((1, 3, 4, 5)).astype("float32")
    (res,), factory = build_run(func, {"x": xv})
    want = np.concatenate([xv + 1, xv * 3, np.maximum(xv, 0)], axis=1) - 0.5
    np.testing.assert_allclose(res, want, rtol=1e-6)
    assert kernel_names(factory) == ["fused_add_multiply_expand_dims_squeeze_nn_relu_"
                                     "concatenate_subtract"]


def test_conv_epilogue_diamond_and_second_anchor(rng):
    # conv -> {add 1, identity} -> add: both epilogue branches meet at the add (one group);
    # the next conv2d is an anchor of its own and takes the residual add as its epilogue
    x = relay.var("x", shape=(1, 4, 9, 7))
    w1 = relay.var("w1", shape=(6, 4, 3, 3))
    w2 = relay.var("w2", shape=(6, 6, 1, 1))
    c = relay.nn.conv2d(x, w1, padding=(1, 1))
    y = relay.add(c, relay.add(relay.const(1.0), c))
    z = relay.add(relay.nn.conv2d(y, w2), y)
    func = relay.Function([x, w1, w2], z)
    groups = _groups(_fuse(func))
    assert [len([n for n in relay.expr.post_order(g.body) if isinstance(n, relay.Call)])
            for g in groups] == [3, 2]
    xv = rng.standard_normal((1, 4, 9, 7)).astype("float32")
    w1v = rng.standard_normal((6, 4, 3, 3)).astype("float32")
    w2v = rng.standard_normal((6, 6, 1, 1)).astype("float32")
    (out,), _ = build_run(func, {"x": xv, "w1": w1v, "w2": w2v},
                          disabled_pass=["AlterOpLayout"])
    cv = conv2d_nchw_python(xv, w1v, 1, 1)
    yv = 2 * cv + 1
    np.testing.assert_allclose(out, conv2d_nchw_python(yv, w2v, 1, 0) + yv, rtol=1e-4,
                               atol=1e-4)


def test_link_params_keeps_constants_inside(rng):
    x = relay.var("x", shape=(4, 6))
    bias = rng.standard_normal((6,)).astype("float32")
    y = relay.nn.relu(relay.add(x, relay.const(bias)))
    func = relay.Function([x], y)
    outside = _groups(_fuse(func))[0]
    inside = _groups(_fuse(func, config={"relay.FuseOps.link_params": True}))[0]
    assert len(outside.params) == 2 and len(inside.params) == 1
    assert any(isinstance(n, relay.Constant) for n in relay.expr.post_order(inside.body))
    # the build reads the linked constant as a param of the kernel: same result
    xv = rng.standard_normal((4, 6)).astype("float32")
    for link in (False, True):
        mod = tvm.IRModule.from_expr(func)
        with tvm.transform.PassContext(opt_level=3,
                                       config={"relay.FuseOps.link_params": link}):
            factory = relay.build(mod, "llvm")
        gm = tvm.contrib.graph_executor.GraphModule(factory["default"](tvm.cpu()))
        gm.run(x=xv)
        np.testing.assert_allclose(gm.get_output(0).numpy(), np.maximum(xv + bias, 0),
                                   rtol=1e-6)


def test_fusing_a_fused_module_changes_nothing(rng):
    x = relay.var("x", shape=(3, 8))
    y = relay.exp(relay.add(relay.squeeze(relay.expand_dims(x, 0), axis=[0]),
                            relay.const(1.0)))
    once = _fuse(relay.Function([x], y))
    twice = _fuse(once)
    assert tvm.ir.structural_equal(once, twice)
    xv = rng.standard_normal((3, 8)).astype("float32")
    (out,), _ = build_run(once, {"x": xv})
    np.testing.assert_allclose(out, np.exp(xv + 1), rtol=1e-5)


def test_max_depth_bounds_a_diamond(rng):
    x = relay.var("x", shape=(6,))
    a = relay.exp(x)
    y = relay.add(relay.negative(a), relay.abs(a))
    func = relay.Function([x], y)
    assert len(_groups(_fuse(func))) == 1
    assert len(_groups(_fuse(func, config={"relay.FuseOps.max_depth": 2}))) > 1
    xv = rng.standard_normal(6).astype("float32")
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=3, config={"relay.FuseOps.max_depth": 2}):
        factory = relay.build(mod, "llvm")
    gm = tvm.contrib.graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run(x=xv)
    e = np.exp(xv)
    np.testing.assert_allclose(gm.get_output(0).numpy(), -e + np.abs(e), rtol=1e-6)


def test_tuple_passed_to_another_kernel(rng):
    # a tuple whose path to its consumer is not injective stays in main; the consumer's
    # kernel takes it field by field
    x = relay.var("x", shape=(2, 5))
    t = relay.Tuple([relay.exp(x), relay.negative(x)])
    s = relay.sum(relay.concatenate(t, axis=0), axis=[1])
    func = relay.Function([x], relay.Tuple([s, relay.TupleGetItem(t, 0)]))
    xv = rng.standard_normal((2, 5)).astype("float32")
    (o1, o2), _ = build_run(func, {"x": xv})
    np.testing.assert_allclose(o1, np.concatenate([np.exp(xv), -xv]).sum(1), rtol=1e-5)
    np.testing.assert_allclose(o2, np.exp(xv), rtol=1e-6)


def test_stop_fusion_ends_a_group_and_is_dropped(rng):
    x = relay.var("x", shape=(4, 5))
    y = relay.annotation.stop_fusion(relay.add(x, relay.const(1.0)))
    func = relay.Function([x], relay.exp(y))
    fused = _fuse(func)
    groups = _groups(fused)
    assert len(groups) == 2
    assert all("stop_fusion" not in str(g) for g in groups) and "stop_fusion" not in str(fused)
    xv = rng.standard_normal((4, 5)).astype("float32")
    (out,), factory = build_run(func, {"x": xv})
    assert kernel_names(factory) == ["fused_add", "fused_exp"]
    np.testing.assert_allclose(out, np.exp(xv + 1), rtol=1e-6)
    # without fusion (opt_level 0) it is dropped as well
    (out0,), _ = build_run(func, {"x": xv}, opt_level=0)
    np.testing.assert_allclose(out0, np.exp(xv + 1), rtol=1e-6)
