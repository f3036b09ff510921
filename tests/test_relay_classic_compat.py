"""Relay behaviour classic tests rely on: inputs that share a name, structural equality of
relay functions, FuseOps keeping scalar constants inside, FoldConstant of ``If``, the
``relay.testing`` helpers and per-operator attributes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay.testing import run_infer_type, run_opt_pass
from tvmlite.relay.testing.temp_op_attr import TempOpAttr


def test_inputs_that_share_a_name_are_set_by_position():
    # classic tests name every input "input": each must get its own value
    rng = np.random.default_rng(1)
    xs = [relay.var("input", shape=(2, 3)) for _ in range(3)]
    data = [rng.standard_normal((2, 3)).astype("float32") for _ in range(3)]
    f = relay.Function(xs, relay.stack(xs, axis=1))
    out = relay.create_executor("graph", mod=tvm.IRModule.from_expr(f)).evaluate()(*data)
    np.testing.assert_array_equal(out.numpy(), np.stack(data, axis=1))


def test_graph_module_input_index():
    x, y = relay.var("x", shape=(2,)), relay.var("y", shape=(2,))
    lib = relay.build(tvm.IRModule.from_expr(relay.Function([x, y], x - y)), target="llvm")
    gm = tvm.contrib.graph_executor.GraphModule(lib["default"](tvm.cpu()))
    assert (gm.get_input_index("y"), gm.get_input_index("x"), gm.get_input_index("z")) == \
        (1, 0, -1)
    gm.set_input(1, np.array([1, 2], "float32"))
    gm.set_input(0, np.array([5, 5], "float32"))
    gm.run()
    np.testing.assert_array_equal(gm.get_output(0).numpy(), [4, 3])


def test_structural_equal_of_relay_functions():
    def make(name, c):
        x = relay.var(name, shape=(3,))
        return relay.Function([x], relay.add(relay.nn.relu(x), relay.const(c)))

    assert tvm.ir.structural_equal(make("a", 1.0), make("b", 1.0))
    assert not tvm.ir.structural_equal(make("a", 1.0), make("a", 2.0))
    assert tvm.ir.structural_hash(make("a", 1.0)) == tvm.ir.structural_hash(make("b", 1.0))
    x = relay.var("x", shape=(3,))
    # attributes are structure
    assert not tvm.ir.structural_equal(relay.Function([x], relay.sum(x, axis=0)),
                                       relay.Function([x], relay.sum(x, axis=0, keepdims=True)))
    # a variable maps to one counterpart only
    y = relay.var("y", shape=(3,))
    assert not tvm.ir.structural_equal(relay.Function([x, y], x + x),
                                       relay.Function([x, y], x + y))
    # the inferred return type counts where both sides know it
    typed = run_infer_type(make("a", 1.0))
    assert tvm.ir.structural_equal(typed, make("a", 1.0))


def test_from_expr_wraps_an_expression_over_its_free_variables():
    x, y = relay.var("x", shape=(2,)), relay.var("y", shape=(2,))
    mod = tvm.IRModule.from_expr(relay.add(x, y))
    assert [p.name_hint for p in mod["main"].params] == ["x", "y"]
    body = run_infer_type(relay.add(x, y))
    assert body.checked_type == relay.TensorType((2,), "float32")


def test_fuse_ops_keeps_scalar_constants_inside_and_computes_the_same():
    rng = np.random.default_rng(2)
    x = relay.var("x", shape=(5, 7))
    body = relay.squeeze(relay.exp(relay.add(x, relay.const(1.5))))
    body = relay.multiply(body, relay.const(rng.standard_normal(7).astype("float32")))
    func = relay.Function([x], body)
    fused = run_opt_pass(func, relay.transform.FuseOps(fuse_opt_level=2))
    prim = fused.body.op
    assert [p.name_hint for p in prim.params] == ["p0", "p1"]  # x and the vector constant
    a = rng.standard_normal((5, 7)).astype("float32")
    c = func.body.args[1].data.numpy()
    got = relay.create_executor(mod=tvm.IRModule.from_expr(func)).evaluate()(a).numpy()
    np.testing.assert_allclose(got, np.exp(a + 1.5) * c, rtol=1e-5)


@pytest.mark.parametrize("cond", [True, False])
def test_fold_constant_takes_the_branch_of_a_constant_if(cond):
    a = np.array([[1, 2, 3]], "float32")
    x, y = relay.const(a), relay.const(a)
    func = relay.Function([], relay.If(relay.const(cond), x + y, x - y))
    folded = run_opt_pass(func, relay.transform.FoldConstant())
    assert isinstance(folded.body, relay.Constant)
    np.testing.assert_array_equal(folded.body.data.numpy(), a + a if cond else a - a)


def test_fold_constant_leaves_dropout():
    d = relay.nn.dropout(relay.const(np.arange(4, dtype="float32")))
    func = relay.Function([], d + relay.const(1.0))
    assert tvm.ir.structural_equal(run_opt_pass(func, relay.transform.FoldConstant()),
                                   run_infer_type(func))


def test_temp_op_attr_sets_and_restores():
    op = relay.op.get("nn.relu")
    assert op.get_attr("FTVMConvertOpLayout") is None

    def convert(attrs, inputs, tinfos, desired_layouts):
        return None

    with TempOpAttr("nn.relu", "FTVMConvertOpLayout", convert):
        assert op.get_attr("FTVMConvertOpLayout") is convert
    assert op.get_attr("FTVMConvertOpLayout") is None


def test_unsupported_classic_helpers_say_so():
    x = relay.var("x", shape=(2,))
    with pytest.raises(tvm._classic.UnsupportedError, match="Executor"):
        relay.build(tvm.IRModule.from_expr(relay.Function([x], x)), target="llvm",
                    executor=relay.backend.Executor("aot"))


def test_backend_executor_and_runtime_registries():
    from tvmlite.relay.backend import Executor, Runtime
    assert Executor.list_registered() == ["aot", "graph"]
    assert Runtime.list_registered() == ["cpp", "crt"]
    assert Runtime.list_registered_options("crt") == {"system-lib": "IntImm"}
    assert "link-params" in Executor.list_registered_options("graph")
    assert Executor("graph")["link-params"] is False
    with pytest.raises(tvm.TVMError, match='Attribute "no-such-option" is not available'):
        Runtime("cpp", {"no-such-option": 1})
    with pytest.raises(tvm.TVMError, match='should have type "runtime.String"'):
        Executor("aot", {"interface-api": True})


def test_a_layout_callback_registered_from_python_is_called_not_ignored():
    # (tests/test_relay_pass_alter_op_layout_callbacks.py has the details)
    x = relay.var("x", shape=(1, 4, 5, 5))
    w = relay.var("w", shape=(8, 4, 3, 3))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.conv2d(x, w)))
    called = []
    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", lambda *args: called.append(1)):
        with tvm.transform.PassContext(opt_level=3), tvm.target.Target("llvm"):
            out = relay.transform.AlterOpLayout()(mod)
    assert called and out["main"].body.op.name == "nn.conv2d"  # None: the call stays
    with tvm.transform.PassContext(opt_level=3), tvm.target.Target("llvm"):
        out = relay.transform.AlterOpLayout()(mod)  # the attribute is gone again
    assert "nn.contrib_conv2d_NCHWc" in str(out)


def test_operators_determine_the_types_of_unannotated_weights():
    # classic's conv2d/dense/bias_add/batch_norm relations assign the types of arguments
    # left without annotation from the data and the attributes
    x = relay.var("x", shape=(2, 4, 6, 6))
    w, b = relay.var("w"), relay.var("b")
    y = relay.nn.bias_add(relay.nn.conv2d(x, w, channels=8, kernel_size=(3, 3), groups=2), b)
    f = run_infer_type(relay.Function([x, w, b], y))
    assert [p.checked_type for p in f.params][1:] == [relay.TensorType((8, 2, 3, 3)),
                                                      relay.TensorType((8,))]
    d = relay.var("d", shape=(3, 5))
    dw = relay.var("dw")
    g = run_infer_type(relay.Function([d, dw], relay.nn.dense(d, dw, units=7)))
    assert g.params[1].checked_type == relay.TensorType((7, 5))
    rng = np.random.default_rng(3)
    a, wv = rng.standard_normal((3, 5)).astype("float32"), rng.standard_normal((7, 5))
    out = relay.create_executor(mod=tvm.IRModule.from_expr(g)).evaluate()(a, wv.astype("f4"))
    np.testing.assert_allclose(out.numpy(), a @ wv.T, rtol=1e-5, atol=1e-5)
    # nothing determines it: the error names the variable
    v = relay.var("v")
    with pytest.raises(tvm.TVMError, match="%v has no type annotation"):
        run_infer_type(relay.Function([d, v], relay.add(d, v)))


def test_resize2d_roi_none_is_the_whole_image():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((1, 2, 3, 5)).astype("float32")
    x = relay.var("x", shape=a.shape)
    z = relay.image.resize2d(x, (6, 10), None, "NCHW", "nearest_neighbor",
                             coordinate_transformation_mode="asymmetric")
    out = relay.create_executor(mod=tvm.IRModule.from_expr(relay.Function([x], z))) \
        .evaluate()(a).numpy()
    np.testing.assert_array_equal(out, a.repeat(2, axis=2).repeat(2, axis=3))


def test_type_inference_carries_symbolic_dimensions_and_build_refuses_them():
    n, c = tvm.te.var("n"), tvm.te.var("c")
    x = relay.var("x", relay.TensorType((n, c, 4), "float32"))
    for op in (relay.sum, relay.mean, relay.variance):
        assert run_infer_type(op(x, axis=1)).checked_type == \
            relay.TensorType((n, 4), "float32")
    assert run_infer_type(relay.nn.relu(x)).checked_type == relay.TensorType((n, c, 4))
    assert relay.TensorType((n, 4)) != relay.TensorType((c, 4))
    with pytest.raises(tvm.TVMError, match="dynamic shapes are not supported"):
        relay.build(tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(x))),
                    target="llvm")


def test_node_children_compare_with_lists():
    a, b = relay.var("a"), relay.var("b")
    f = relay.Function([a, b], relay.Tuple([a, b]))
    assert f.params == [a, b] and f.body.fields == [a, b] and f.params != [b, a]
    assert relay.Call(relay.op.get("add"), [a, b]).args == [a, b] and f.span is None


def test_evaluate_an_expression_and_binds():
    x = relay.var("x", shape=(), dtype="int32")
    ex = relay.create_executor()
    assert int(ex.evaluate(x + x * x, {x: relay.const(2, "int32")}).numpy()) == 6
    np.testing.assert_array_equal(ex.evaluate(relay.ones((2, 3), "float64")).numpy(),
                                  np.ones((2, 3)))
    y = relay.var("y", shape=(2,))
    f = relay.Function([x, y], y * relay.cast(x, "float32"))
    g = ex.evaluate(f, {x: np.array(3, "int32")})  # a bound parameter is gone
    np.testing.assert_array_equal(g(np.array([1, 2], "float32")).numpy(), [3, 6])
    with pytest.raises(tvm.TVMError, match="free variables"):
        ex.evaluate(x + x)


def test_evaluate_takes_python_numbers_in_the_input_dtype():
    x, y = relay.var("x", shape=(), dtype="int32"), relay.var("y", shape=())
    f = relay.create_executor().evaluate(relay.Function([x, y], relay.cast(x, "float32") + y))
    assert float(f(10, 1.5).numpy()) == 11.5


def test_module_update_and_same_as():
    x = relay.var("x", shape=(2,))
    a = tvm.IRModule.from_expr(relay.Function([x], x))
    b = tvm.IRModule({"other": relay.Function([x], relay.log(x))})
    b.update(a)
    assert sorted(b.functions) == ["main", "other"] and b["main"] is a["main"]
    assert a.same_as(a) and not a.same_as(tvm.IRModule.from_expr(a["main"]))


@pytest.mark.parametrize("option", ["-runtime=c", "-system-lib=1", "-executor=aot",
                                    "-interface-api=c", "-unpacked-api=1"])
def test_target_options_classic_moved_to_executor_and_runtime(option):
    with pytest.raises(ValueError, match="Cannot recognize"):
        tvm.target.Target(f"c {option}")


def test_check_basic_block_normal_form():
    from tvmlite.relay.analysis import check_basic_block_normal_form as check
    c = relay.var("c", shape=(), dtype="bool")
    x = relay.var("x", shape=(2,))
    shared = relay.add(x, x)
    with pytest.raises(tvm.TVMError, match="should be lifted"):
        check(relay.If(c, relay.exp(shared), relay.log(shared)))  # only in the branches
    v = relay.var("v")
    assert check(relay.Let(v, shared, relay.If(c, relay.exp(v), relay.log(v))))
    # used in the enclosing scope too: computed there, not ambiguous
    assert check(relay.Tuple([shared, relay.If(c, relay.exp(shared), x)]))
    with pytest.raises(tvm.TVMError, match="should be lifted"):  # two function bodies
        y, z = relay.var("y", shape=(2,)), relay.var("z", shape=(2,))
        check(relay.Function([x], relay.Tuple([relay.Function([y], shared + y),
                                               relay.Function([z], shared + z)])))
    f = relay.var("f", relay.FuncType([], relay.scalar_type("bool")))
    # a parameter is bound by its function: used in both branches is fine
    assert isinstance(f(), relay.Call) and check(relay.Function([x], relay.If(f(), x, x)))


def test_batch_norm_statistics_outputs_build_and_fold():
    rng = np.random.default_rng(5)
    vals = [rng.random(s).astype("float32") for s in [(4, 5, 6)] + [(5,)] * 4]
    xs = [relay.var(f"v{i}", shape=v.shape) for i, v in enumerate(vals)]
    bn = relay.nn.batch_norm(*xs, axis=1)
    # the moving statistics are inputs passed through: relay.build used to crash on them
    f = relay.Function(xs, relay.Tuple([bn[1], bn[2]]))
    out = relay.create_executor(mod=tvm.IRModule.from_expr(f)).evaluate()(*vals)
    np.testing.assert_array_equal(out[0].numpy(), vals[3])
    np.testing.assert_array_equal(out[1].numpy(), vals[4])
    # a constant tuple-valued call folds to a tuple of constants
    g = relay.Function([], relay.nn.batch_norm(*[relay.const(v) for v in vals]).astuple())
    folded = run_opt_pass(g, relay.transform.FoldConstant())
    assert isinstance(folded.body, relay.Tuple) and len(folded.body.fields) == 3
    np.testing.assert_array_equal(folded.body[2].data.numpy(), vals[4])
    m, v = vals[3].reshape(5, 1), vals[4].reshape(5, 1)
    want = (vals[0] - m) / np.sqrt(v + 1e-5) * vals[1].reshape(5, 1) + vals[2].reshape(5, 1)
    np.testing.assert_allclose(folded.body[0].data.numpy(), want, rtol=1e-5, atol=1e-5)
