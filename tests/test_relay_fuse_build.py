"""FuseOps, relay.build and the graph executor: kernels per group, graph JSON, params,
inputs by name and index, errors, export/load round trip, the classic spellings."""
import json

import numpy as np
import pytest
from relay_helpers import build_run, kernel_names

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor, graph_runtime
from tvmlite.topi.testing import conv2d_nchw_python


def _conv_bias_relu(c=3, o=8, hw=(11, 13)):
    x = relay.var("x", shape=(1, c) + hw)
    w = relay.var("w", shape=(o, c, 3, 3))
    b = relay.var("b", shape=(o,))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    return relay.Function([x, w, b], y)


def _conv_ref(x, w, b):
    return np.maximum(conv2d_nchw_python(x, w, 1, 1) + b[None, :, None, None], 0)


def test_conv_bias_relu_is_one_kernel(rng):
    x = rng.standard_normal((1, 3, 11, 13)).astype("float32")
    w = rng.standard_normal((8, 3, 3, 3)).astype("float32")
    b = rng.standard_normal(8).astype("float32")
    # (AlterOpLayout off: it adds a pack and an unpack around the conv, see
    # tests/test_relay_transform_alter_op_layout.py)
    (out,), factory = build_run(_conv_bias_relu(), {"x": x}, {"w": w, "b": b},
                                disabled_pass=["AlterOpLayout"])
    assert kernel_names(factory) == ["fused_nn_conv2d_nn_bias_add_nn_relu"]
    np.testing.assert_allclose(out, _conv_ref(x, w, b), rtol=1e-4, atol=1e-4)
    # the fused function is what relay.build lowered, as one PrimFunc in one library
    main = factory.ir_mod["main"]
    assert main.body.op.attrs["Primitive"] == 1
    text = factory.ir_mod.astext()
    assert '%2 = fn (%p0: Tensor[(1, 3, 11, 13), float32] /* ty=Tensor[(1, 3, 11, 13), ' \
        'float32] */, %p1: Tensor[(8, 3, 3, 3), float32] ' in text
    assert '%p2: Tensor[(8), float32] /* ty=Tensor[(8), float32] */, Primitive=1) -> ' \
        'Tensor[(1, 8, 11, 13), float32] {' in text
    assert "fused_nn_conv2d_nn_bias_add_nn_relu" in factory.get_lib().function_names


def test_opt_level_0_does_not_fuse(rng):
    x = rng.standard_normal((1, 3, 11, 13)).astype("float32")
    w = rng.standard_normal((8, 3, 3, 3)).astype("float32")
    b = rng.standard_normal(8).astype("float32")
    (out,), factory = build_run(_conv_bias_relu(), {"x": x, "w": w, "b": b}, opt_level=0)
    assert kernel_names(factory) == ["fused_nn_conv2d", "fused_nn_bias_add", "fused_nn_relu"]
    np.testing.assert_allclose(out, _conv_ref(x, w, b), rtol=1e-4, atol=1e-4)


def test_fusion_rules(rng):
    x = relay.var("x", shape=(2, 6))
    w = relay.var("w", shape=(4, 6))
    a = relay.nn.relu(relay.add(x, relay.const(1.0)))     # injective chain -> one group
    t = relay.reshape(relay.transpose(a), (2, 6))          # ... joined by the layout ops
    d = relay.nn.dense(t, w)                               # anchor: injective producer stays
    e = relay.multiply(d, relay.const(2.0))                # element-wise epilogue of dense
    r = relay.reshape(e, (8,))                             # injective after an anchor: new
    s = relay.nn.softmax(e)                                # opaque; e is used twice
    func = relay.Function([x, w], relay.Tuple([r, s]))
    xv = rng.standard_normal((2, 6)).astype("float32")
    wv = rng.standard_normal((4, 6)).astype("float32")
    (ro, so), factory = build_run(func, {"x": xv, "w": wv})
    # the reshape-only group runs as a __nop sharing its input's storage (classic)
    assert kernel_names(factory) == ["fused_add_nn_relu_transpose_reshape",
                                     "fused_nn_dense_multiply", "__nop",
                                     "fused_nn_softmax"]
    tv = np.maximum(xv + 1, 0).T.reshape(2, 6)
    ev = tv @ wv.T * 2
    np.testing.assert_allclose(ro, ev.reshape(8), rtol=1e-5, atol=1e-5)
    e_exp = np.exp(ev - ev.max(1, keepdims=True))
    np.testing.assert_allclose(so, e_exp / e_exp.sum(1, keepdims=True), rtol=1e-5)


def test_fuse_max_depth(rng):
    x = relay.var("x", shape=(7,))
    y = x
    for _ in range(5):
        y = relay.nn.relu(relay.add(y, relay.const(1.0)))
    mod = tvm.IRModule.from_expr(relay.Function([x], y))
    with tvm.transform.PassContext(opt_level=3, config={"relay.FuseOps.max_depth": 4}):
        factory = relay.build(mod, "llvm")
    # 10 ops and their 5 scalar constants (nodes of the graph, as in classic) in groups of at
    # most 4 nodes
    assert kernel_names(factory) == ["fused_add_nn_relu_add", "fused_nn_relu_add_nn_relu",
                                     "fused_add_nn_relu_add", "fused_nn_relu"]
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    xv = rng.standard_normal(7).astype("float32")
    gm.run(x=xv)
    expect = xv
    for _ in range(5):
        expect = np.maximum(expect + 1, 0)
    np.testing.assert_allclose(gm.get_output(0).numpy(), expect, rtol=1e-6)


def test_identical_groups_share_one_kernel(rng):
    x = relay.var("x", shape=(3, 5))
    y = relay.nn.relu(x)
    z = relay.nn.softmax(y)
    y2 = relay.nn.relu(z)
    func = relay.Function([x], relay.nn.softmax(y2))
    xv = rng.standard_normal((3, 5)).astype("float32")
    (out,), factory = build_run(func, {"x": xv})
    names = kernel_names(factory)
    assert names == ["fused_nn_relu", "fused_nn_softmax", "fused_nn_relu", "fused_nn_softmax"]
    assert out.shape == (3, 5) and np.allclose(out.sum(1), 1, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_scalar_constants_fold_into_their_kernel(rng, dtype):
    # scalar constants stay inside the fused function (classic) and are read as values: no
    # parameter, no 0-d stage; broadcast, comparison and select consumers all see them
    x = relay.var("x", shape=(3, 7), dtype=dtype)
    c = lambda v: relay.const(v, dtype)  # noqa: E731
    y = relay.maximum(relay.multiply(relay.add(x, c(3)), c(2)), c(0))
    y = relay.where(relay.greater(y, c(5)), y, relay.subtract(c(-1), x))
    xv = rng.integers(-9, 9, size=(3, 7)).astype(dtype)
    (out,), factory = build_run(relay.Function([x], y), {"x": xv})
    want = np.maximum((xv + 3) * 2, 0)
    np.testing.assert_array_equal(out, np.where(want > 5, want, -1 - xv))
    # y's two consumers meet again at where, its post-dominator, along element-wise paths: one
    # kernel (classic's diamond fusion)
    assert kernel_names(factory) == ["fused_add_multiply_maximum_greater_subtract_where"]
    assert len(json.loads(factory.get_graph_json())["nodes"]) == 2  # x and the kernel


def test_graph_json_params_and_unpacking(rng):
    w = rng.standard_normal((8, 3, 3, 3)).astype("float32")
    b = rng.standard_normal(8).astype("float32")
    mod = tvm.IRModule.from_expr(_conv_bias_relu())
    with relay.build_config(opt_level=3, disabled_pass=["AlterOpLayout"]):
        graph, lib, params = relay.build(mod, target="llvm", params={"w": w, "b": b})
    g = json.loads(graph)
    assert [g["nodes"][i]["name"] for i in g["arg_nodes"]] == ["x", "p0", "p1"]
    assert sorted(params) == ["p0", "p1"]
    np.testing.assert_array_equal(params["p0"].numpy(), w)
    assert g["attrs"]["shape"][1][-1] == [1, 8, 11, 13]
    assert g["attrs"]["dltype"][1] == ["float32"] * 4
    # the classic graph_runtime spelling, params by **kwargs, inputs by index
    m = graph_runtime.create(graph, lib, tvm.cpu(0))
    m.set_input(**params)
    x = rng.standard_normal((1, 3, 11, 13)).astype("float32")
    m.set_input(0, tvm.nd.array(x))
    m.run()
    assert m.get_num_outputs() == 1 and m.get_num_inputs() == 3
    np.testing.assert_array_equal(m.get_input("x").numpy(), x)
    np.testing.assert_allclose(m.get_output(0).numpy(), _conv_ref(x, w, b), rtol=1e-4,
                               atol=1e-4)
    out = tvm.nd.empty((1, 8, 11, 13))
    m.get_output(0, out)
    np.testing.assert_allclose(out.numpy(), _conv_ref(x, w, b), rtol=1e-4, atol=1e-4)
    assert m.benchmark(repeat=2, number=2).mean > 0


def test_export_library_round_trip(rng, tmp_path):
    w = rng.standard_normal((8, 3, 3, 3)).astype("float32")
    b = rng.standard_normal(8).astype("float32")
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(tvm.IRModule.from_expr(_conv_bias_relu()), "llvm",
                              params={"w": w, "b": b})
    path = str(tmp_path / "net.so")
    factory.export_library(path)
    lib = tvm.runtime.load_module(path)
    m = graph_executor.create(factory.get_graph_json(), lib, tvm.cpu())
    m.set_input(**factory.get_params())
    x = rng.standard_normal((1, 3, 11, 13)).astype("float32")
    m.run(x=x)
    np.testing.assert_allclose(m.get_output(0).numpy(), _conv_ref(x, w, b), rtol=1e-4,
                               atol=1e-4)


def test_set_input_errors():
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(tvm.IRModule.from_expr(_conv_bias_relu()), "llvm")
    m = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    with pytest.raises(tvm.TVMError, match=r"no input named 'y' \(inputs: \['x', 'w', 'b'\]\)"):
        m.set_input("y", np.zeros((1, 3, 11, 13), "float32"))
    with pytest.raises(tvm.TVMError, match=r"input 'x' expects shape \(1, 3, 11, 13\), got "
                                           r"\(1, 3, 11, 12\)"):
        m.set_input("x", np.zeros((1, 3, 11, 12), "float32"))
    with pytest.raises(tvm.TVMError, match="input 'b' expects dtype float32, got float64"):
        m.set_input("b", np.zeros(8))
    with pytest.raises(tvm.TVMError, match="input index 3 out of range"):
        m.set_input(3, np.zeros(8, "float32"))
    with pytest.raises(tvm.TVMError, match="index 1 out of range"):
        m.get_output(1)
    with pytest.raises(tvm.TVMError, match="malformed graph JSON"):
        graph_executor.create("{}", factory.get_lib(), tvm.cpu())


def test_let_bindings_are_inlined(rng):
    x = relay.var("x", shape=(3, 4))
    v = relay.var("v")
    u = relay.var("u", shape=(3, 4))
    body = relay.Let(v, relay.nn.relu(x), relay.Let(u, relay.add(v, v), relay.multiply(u, x)))
    xv = rng.standard_normal((3, 4)).astype("float32")
    (out,), factory = build_run(relay.Function([x], body), {"x": xv})
    np.testing.assert_allclose(out, 2 * np.maximum(xv, 0) * xv, rtol=1e-6)
    assert kernel_names(factory) == ["fused_nn_relu_add_multiply"]


def test_build_errors():
    x = relay.var("x", shape=(2,))
    with pytest.raises(tvm.TVMError, match="param 'x' has shape \\(3,\\)"):
        relay.build(relay.Function([x], relay.nn.relu(x)), "llvm",
                    params={"x": np.zeros(3, "float32")})
    with pytest.raises(tvm.TVMError, match="not supported yet"):
        relay.build(relay.Function([x], relay.nn.relu(x)), "opencl")
    c = relay.var("c", "bool")
    with pytest.raises(tvm.TVMError, match="If is not supported by the graph executor"):
        relay.build(relay.Function([x, c], relay.If(c, x, relay.nn.relu(x))), "llvm")
    with pytest.raises(tvm.TVMError, match="no type annotation"):
        relay.build(relay.Function([relay.var("u")], relay.nn.relu(relay.var("u"))), "llvm")


def test_native_run_loop_over_many_kernels(rng):
    x = relay.var("x", shape=(3,))
    y = x
    for i in range(200):
        y = relay.nn.relu(y) if i % 2 else relay.add(y, relay.const(-0.5))
    with tvm.transform.PassContext(opt_level=0):
        factory = relay.build(tvm.IRModule.from_expr(relay.Function([x], y)), "llvm")
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    assert len(kernel_names(factory)) == 200 and gm._native is not None
    xv = rng.uniform(-1, 60, 3).astype("float32")
    expect = xv
    for i in range(200):
        expect = np.maximum(expect, 0) if i % 2 else expect - 0.5
    for _ in range(2):  # the pre-packed arguments see each new input
        gm.run(x=xv)
        np.testing.assert_allclose(gm.get_output(0).numpy(), expect, rtol=1e-6)
        xv = xv + 10
        expect = xv
        for i in range(200):
            expect = np.maximum(expect, 0) if i % 2 else expect - 0.5


def test_save_load_param_dict_and_load_params(rng):
    params = {"w": rng.standard_normal((8, 3, 3, 3)).astype("float32"),
              "b": tvm.nd.array(rng.standard_normal(8).astype("float32")),
              "i": np.arange(6, dtype="int64").reshape(2, 3), "m": np.array([True, False]),
              "s": np.float64(2.5)}
    blob = relay.save_param_dict(params)
    assert blob[:8] == (0xF7E58D4F05049CB7).to_bytes(8, "little")
    back = relay.load_param_dict(blob)
    assert list(back) == list(params)
    for k, v in params.items():
        v = v.numpy() if isinstance(v, tvm.nd.NDArray) else np.asarray(v)
        np.testing.assert_array_equal(back[k].numpy(), v)
        assert back[k].dtype == str(v.dtype)
    with pytest.raises(tvm.TVMError, match="truncated"):
        relay.load_param_dict(blob[:-3])
    with pytest.raises(tvm.TVMError, match="bad magic"):
        relay.load_param_dict(b"\0" * 32)
    # load_params sets the graph's inputs from a blob, ignoring names it does not have
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(tvm.IRModule.from_expr(_conv_bias_relu()), "llvm")
    m = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    m.load_params(blob)
    x = rng.standard_normal((1, 3, 11, 13)).astype("float32")
    m.run(x=x)
    np.testing.assert_allclose(m.get_output(0).numpy(),
                               _conv_ref(x, params["w"], params["b"].numpy()),
                               rtol=1e-4, atol=1e-4)


def test_storage_is_reused_without_aliasing_live_values(rng):
    x = relay.var("x", shape=(4, 6))
    y = x
    for _ in range(20):  # residual blocks: each input stays live across two kernels
        a = relay.nn.relu(relay.add(y, relay.const(-0.25)))
        b = relay.multiply(a, relay.const(0.5))
        y = relay.add(b, y)
    with tvm.transform.PassContext(opt_level=0):
        factory = relay.build(tvm.IRModule.from_expr(relay.Function([x], y)), "llvm")
    g = json.loads(factory.get_graph_json())
    sids = g["attrs"]["storage_id"][1]
    kernel_entries = [g["node_row_ptr"][i] for i, n in enumerate(g["nodes"])
                      if n["op"] == "tvm_op"]
    assert len(sids) == 1 + 20 * 2 + 20 * 4 and len(kernel_entries) == 80
    # the 80 intermediate values (the output included) fit in a handful of buffers
    assert len({sids[e] for e in kernel_entries}) <= 5
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    xv = rng.standard_normal((4, 6)).astype("float32")
    gm.run(x=xv)
    expect = xv
    for _ in range(20):
        expect = np.maximum(expect - 0.25, 0) * 0.5 + expect
    np.testing.assert_allclose(gm.get_output(0).numpy(), expect, rtol=1e-5)
    np.testing.assert_array_equal(gm.get_input("x").numpy(), xv)  # inputs are never reused


@pytest.mark.parametrize("opt_level", [0, 1, 3])
def test_field_of_a_tuple_literal_needs_no_kernel(opt_level):
    # (x, relu(x)).0 and ((x * 2, y), y).0.0 + y: the projections of tuple literals are plumbing
    # (no fused function without an operator; relay.build refused them at opt_level 1)
    x, y = relay.var("x", shape=(3, 5)), relay.var("y", shape=(3, 5))
    first = relay.TupleGetItem(relay.Tuple([x, relay.nn.relu(x)]), 0)
    nested = relay.TupleGetItem(relay.TupleGetItem(
        relay.Tuple([relay.Tuple([relay.multiply(x, relay.const(2.0)), y]), y]), 0), 0)
    func = relay.Function([x, y], relay.Tuple([first, relay.add(nested, y)]))
    rng = np.random.default_rng(0)
    a, b = rng.random((3, 5), dtype=np.float32), rng.random((3, 5), dtype=np.float32)
    outs, _ = build_run(func, {"x": a, "y": b}, opt_level=opt_level)
    np.testing.assert_allclose(outs[0], a)
    np.testing.assert_allclose(outs[1], a * 2 + b, rtol=1e-6)


@pytest.mark.parametrize("disabled", [[], ["FoldConstant"]])
def test_shape_only_consumers_do_not_swallow_their_operand(disabled):
    """``ones_like(conv)`` reads only the convolution's shape: folded to a constant, or (with
    FoldConstant disabled) not fused after it; the kernel of a convolution consumed only
    through its shape was left without the convolution's stage (TopiError)."""
    a, w = relay.var("a", shape=(1, 3, 8, 8)), relay.var("w", shape=(4, 3, 3, 3))
    c = relay.nn.conv2d(a, w, padding=(1, 1))
    f = relay.Function([a, w], relay.ones_like(c) * relay.const(2.0)
                       + relay.full_like(c, relay.const(3.0)) + relay.zeros_like(c))
    with tvm.transform.PassContext(opt_level=3, disabled_pass=disabled):
        lib = relay.build(tvm.IRModule.from_expr(f), "llvm")
    g = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    g.set_input("a", np.ones((1, 3, 8, 8), "float32"))
    g.set_input("w", np.ones((4, 3, 3, 3), "float32"))
    g.run()
    np.testing.assert_array_equal(g.get_output(0).numpy(), np.full((1, 4, 8, 8), 5, "float32"))
