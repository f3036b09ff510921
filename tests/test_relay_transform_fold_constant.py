"""FoldConstant alone and inside relay.build (opt_level and disabled_pass honoured)."""
import numpy as np
from relay_helpers import build_run, kernel_names

import tvmlite as tvm
from tvmlite import relay


def _net(rng):
    x = relay.var("x", shape=(3, 5))
    w = rng.standard_normal((5, 4)).astype("float32")
    c = rng.standard_normal(4).astype("float32")
    wt = relay.transpose(relay.const(w))                        # (4, 5), constant
    scale = relay.multiply(relay.const(c), relay.const(2.0))    # constant
    y = relay.add(relay.nn.dense(x, wt), scale)
    return relay.Function([x], y), w, c


def test_fold_constant_pass_alone(rng):
    func, w, c = _net(rng)
    with tvm.transform.PassContext(opt_level=3):
        mod = relay.transform.FoldConstant()(tvm.IRModule.from_expr(func))
    body = mod["main"].body
    assert body.op.name == "add"
    dense, scale = body.args
    assert isinstance(scale, relay.Constant)
    np.testing.assert_allclose(scale.data.numpy(), c * 2, rtol=1e-6)
    assert isinstance(dense.args[0], relay.Var)
    assert isinstance(dense.args[1], relay.Constant)
    np.testing.assert_array_equal(dense.args[1].data.numpy(), w.T)
    assert "transpose" not in mod.astext() and "multiply" not in mod.astext()


def test_fold_constant_in_build(rng):
    func, w, c = _net(rng)
    xv = rng.standard_normal((3, 5)).astype("float32")
    (out,), factory = build_run(func, {"x": xv})
    # one kernel: the weight transposed, then packed (AlterOpLayout) by FoldConstant
    assert kernel_names(factory) == ["fused_nn_contrib_dense_pack_add"]
    np.testing.assert_allclose(out, xv @ w + 2 * c, rtol=1e-5, atol=1e-5)
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["FoldConstant"]):
        unfolded = relay.build(mod, "llvm")
    # the constant scale is an injective producer of the epilogue: fused into the dense
    assert kernel_names(unfolded) == ["fused_transpose", "fused_nn_dense_multiply_add"]
    with tvm.transform.PassContext(opt_level=1):
        level1 = relay.build(mod, "llvm")
    assert len(kernel_names(level1)) == 2


def test_fold_constant_of_bound_params_and_projection(rng):
    x = relay.var("x", shape=(1, 3, 4, 4))
    g, b, m, v = (relay.var(n, shape=(3,)) for n in "gbmv")
    y = relay.nn.batch_norm(x, g, b, m, v)[0]
    s = relay.nn.batch_norm(relay.reshape(g, (1, 3, 1, 1)), g, b, m, v)[0]  # all constant
    func = relay.Function([x, g, b, m, v], relay.add(y, s))
    params = {n: rng.uniform(0.5, 1.5, 3).astype("float32") for n in "gbmv"}
    xv = rng.standard_normal((1, 3, 4, 4)).astype("float32")
    (out,), factory = build_run(func, {"x": xv}, params)
    assert len(kernel_names(factory)) == 1

    def bn(a):
        sh = (1, 3, 1, 1)
        return ((a - params["m"].reshape(sh)) / np.sqrt(params["v"].reshape(sh) + 1e-5)
                * params["g"].reshape(sh) + params["b"].reshape(sh))
    expect = bn(xv) + bn(params["g"].reshape(1, 3, 1, 1))
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


def test_a_field_of_a_tuple_literal_becomes_the_field():
    x, y = relay.var("x", shape=(2, 3)), relay.var("y", shape=(2, 3))
    pick = relay.TupleGetItem(relay.Tuple([relay.nn.relu(x), y]), 1)
    mod = tvm.IRModule.from_expr(relay.Function([x, y], relay.add(pick, x)))
    with tvm.transform.PassContext(opt_level=3):
        out = relay.transform.FoldConstant()(relay.transform.InferType()(mod))
    body = out["main"].body
    assert body.args[0] is out["main"].params[1]  # (relu(x), y).1 is y
    a, b = np.ones((2, 3), "float32"), np.full((2, 3), 2.0, "float32")
    outs, _ = build_run(mod["main"], {"x": a, "y": b})
    np.testing.assert_allclose(outs[0], a + b)


def test_constant_let_bindings_are_inlined_and_folded(rng):
    """``let t1 = c; let t2 = t1 + t1; let t3 = t2 * x; t3``: t1 and t2 vanish, t3 reads the
    folded constant (classic); the result matches numpy."""
    c = rng.standard_normal((3, 5)).astype("float32")
    x = relay.var("x", shape=(3, 5))
    sb = relay.ScopeBuilder()
    t1 = sb.let("t1", relay.const(c))
    t2 = sb.let("t2", relay.add(t1, t1))
    t3 = sb.let("t3", relay.multiply(t2, x))
    sb.ret(t3)
    mod = relay.transform.FoldConstant()(tvm.IRModule.from_expr(relay.Function([x], sb.get())))
    body = mod["main"].body
    assert isinstance(body, relay.Let) and body.var.name_hint == "t3"
    assert isinstance(body.body, relay.Var)
    folded = body.value.args[0]
    assert isinstance(folded, relay.Constant)
    np.testing.assert_allclose(folded.data.numpy(), 2 * c, rtol=1e-6)
    xv = rng.standard_normal((3, 5)).astype("float32")
    out = relay.create_executor(mod=mod).evaluate()(xv).numpy()
    np.testing.assert_allclose(out, 2 * c * xv, rtol=1e-6)


def _requantize_of_const(rng):
    data = rng.integers(-50, 50, size=7).astype("int8")
    q = relay.qnn.op.requantize(relay.const(data), relay.const(2.0), relay.const(1),
                                relay.const(1.0), relay.const(1), out_dtype="int8")
    x = relay.var("x", shape=(7,), dtype="int8")
    return relay.Function([x], relay.add(q, x)), data


def test_qnn_ops_fold_only_with_fold_qnn(rng):
    """QNN operators on constants stay by default (classic: FakeQuantizationToInteger matches
    them) and fold with ``fold_qnn=True`` to the value the unfolded program computes."""
    func, data = _requantize_of_const(rng)
    kept = relay.transform.FoldConstant()(tvm.IRModule.from_expr(func))
    assert kept["main"].body.args[0].op.name == "qnn.requantize"
    folded = relay.transform.FoldConstant(fold_qnn=True)(tvm.IRModule.from_expr(func))
    const = folded["main"].body.args[0]
    assert isinstance(const, relay.Constant) and const.data.dtype == "int8"
    # requantize: (q - 1) * 2 / 1 + 1, rounded, saturated to int8
    want = np.clip(np.round((data.astype("float64") - 1) * 2) + 1, -128, 127)
    np.testing.assert_array_equal(const.data.numpy(), want.astype("int8"))
    xv = rng.integers(-20, 20, size=7).astype("int8")
    (ref,), _ = build_run(func, {"x": xv})
    (out,), _ = build_run(folded["main"], {"x": xv})
    np.testing.assert_array_equal(out, ref)


def test_fold_constant_expr(rng):
    """``relay.transform.FoldConstantExpr`` folds an expression (with free variables)."""
    c = rng.standard_normal((2, 3)).astype("float32")
    x = relay.var("x", shape=(2, 3))
    e = relay.add(x, relay.exp(relay.const(c)))
    out = relay.transform.FoldConstantExpr(e, tvm.IRModule())
    assert isinstance(out.args[1], relay.Constant) and out.args[0] is x
    np.testing.assert_allclose(out.args[1].data.numpy(), np.exp(c), rtol=1e-6)
