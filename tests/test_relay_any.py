"""relay.Any: types with unknown dimensions (inference, printing, parsing) and running them
on the relay VM, with the dyn.* operators whose shapes come from values."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.runtime import vm as rvm

A = relay.Any
rng = np.random.default_rng(11)


def _type(f):
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(f))
    return mod["main"].body.checked_type


@pytest.mark.parametrize("make, shapes, want", [
    (lambda a, b: a + b, [(A(), 3), (A(), 3)], (A(), 3)),
    (lambda a, b: a + b, [(A(), 1), (4, 3)], (4, 3)),
    (lambda a, b: relay.concatenate([a, b], 0), [(A(), 3), (2, 3)], (A(), 3)),
    (lambda a, b: relay.concatenate([a, b], 1), [(A(), 3), (A(), 2)], (A(), 5)),
    (lambda a: relay.reshape(a, (0, -1)), [(A(), 3, 2)], (A(), 6)),
    (lambda a: relay.reshape(a, (2, -1)), [(A(), 3, 2)], (2, A())),
    (lambda a, b: relay.nn.dense(a, b), [(A(), 3), (4, 3)], (A(), 4)),
    (lambda a, b: relay.nn.conv2d(a, b, kernel_size=(3, 3)), [(A(), 3, A(), 8), (4, 3, 3, 3)],
     (A(), 4, A(), 6)),
    (lambda a: relay.strided_slice(a, [0, 1], [2, 3]), [(A(), 5)], (2, 2)),
    (lambda a: relay.sum(a, axis=0), [(A(), 4)], (4,)),
    (lambda a: relay.nn.batch_flatten(a), [(A(), 4, 3)], (A(), 12)),
    (lambda a, b: relay.nn.batch_matmul(a, b), [(A(), 3, 4), (A(), 5, 4)], (A(), 3, 5)),
])
def test_inference_keeps_what_is_known(make, shapes, want):
    vs = [relay.var(f"x{i}", shape=s) for i, s in enumerate(shapes)]
    assert _type(relay.Function(vs, make(*vs))) == relay.TensorType(want, "float32")


def test_known_dims_are_still_checked():
    a, b = relay.var("a", shape=(A(), 3)), relay.var("b", shape=(A(), 4))
    with pytest.raises(TVMError, match="do not broadcast"):
        _type(relay.Function([a, b], a + b))


def test_any_prints_and_parses_as_question_mark():
    x = relay.var("x", shape=(A(), 3))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))
    text = relay.transform.InferType()(mod).astext()
    assert "Tensor[(?, 3), float32]" in text
    back = relay.transform.InferType()(tvm.relay.parse(text))
    assert back["main"].body.checked_type == relay.TensorType((A(), 3), "float32")
    assert str(relay.TensorType((A(), 2))) == "Tensor[(?, 2), float32]"


def test_if_of_different_shapes_joins_to_any():
    c = relay.var("c", shape=(), dtype="bool")
    x = relay.var("x", shape=(A(), 2))
    f = relay.Function([c, x], relay.If(c, x, relay.concatenate([x, x], 0)))
    assert _type(f) == relay.TensorType((A(), 2), "float32")
    exe = relay.vm.compile(tvm.IRModule.from_expr(f), "llvm")
    vm = rvm.VirtualMachine(exe, tvm.cpu())
    xn = rng.random((3, 2), "float32")
    np.testing.assert_allclose(vm.run(np.array(False), xn).numpy(), np.concatenate([xn, xn]))
    np.testing.assert_allclose(vm.run(np.array(True), xn).numpy(), xn)


def test_dynamic_batch_network_on_the_vm():
    x = relay.var("x", shape=(A(), 3, A(), A()))
    w = relay.var("w", shape=(4, 3, 3, 3))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    y = relay.nn.global_avg_pool2d(y)
    f = relay.Function([x, w], relay.nn.batch_flatten(y))
    exe = relay.vm.compile(tvm.IRModule.from_expr(f), "llvm")
    vm = rvm.VirtualMachine(exe, tvm.cpu())
    wn = rng.standard_normal((4, 3, 3, 3)).astype("float32")
    for n, h in ((1, 5), (3, 7)):
        xn = rng.standard_normal((n, 3, h, h)).astype("float32")
        pad = np.pad(xn, ((0, 0), (0, 0), (1, 1), (1, 1)))
        conv = np.zeros((n, 4, h, h), "float32")
        for i in range(3):
            for j in range(3):
                conv += np.einsum("nchw,oc->nohw", pad[:, :, i:i + h, j:j + h], wn[:, :, i, j])
        want = np.maximum(conv, 0).mean(axis=(2, 3))
        np.testing.assert_allclose(vm.run(xn, wn).numpy(), want, rtol=1e-4, atol=1e-5)
    assert exe.cache_stats["misses"] == 2


def test_dyn_ops_take_shapes_from_values():
    x = relay.var("x", shape=(A(),))
    shp = relay.var("shp", shape=(2,), dtype="int32")
    begin = relay.var("b", shape=(1,), dtype="int32")
    k = relay.var("k", shape=(), dtype="int32")
    shp2 = relay.var("shp2", shape=(2,), dtype="int64")
    out = relay.Tuple([
        relay.reshape(x, shp), relay.full(relay.const(2.5), shp, "float32"),
        relay.ones(shp, "float32"), relay.broadcast_to(relay.reshape(x, (1, -1)), shp2),
        relay.tile(x, shp2), relay.strided_slice(x, begin, relay.const([7]), relay.const([1])),
        relay.topk(x, k, ret_type="values"), relay.ndarray_size(x)])
    f = relay.Function([x, shp, begin, k, shp2], out)
    assert _type(f).fields[0] == relay.TensorType((A(), A()), "float32")
    exe = relay.vm.compile(tvm.IRModule.from_expr(f), "llvm")
    vm = rvm.VirtualMachine(exe, tvm.cpu())
    for n, (r, c) in ((6, (2, 3)), (10, (5, 2))):
        xn = rng.random(n).astype("float32")
        bcast = (3, n)
        res = vm.run(xn, np.array((r, c), "int32"), np.array([2], "int32"), np.array(2, "int32"),
                     np.array(bcast, "int64"))
        np.testing.assert_allclose(res[0].numpy(), xn.reshape(r, c))
        np.testing.assert_allclose(res[1].numpy(), np.full((r, c), 2.5))
        np.testing.assert_allclose(res[2].numpy(), np.ones((r, c)))
        np.testing.assert_allclose(res[3].numpy(), np.broadcast_to(xn, bcast))
        np.testing.assert_allclose(res[4].numpy(), np.tile(xn, bcast))
        np.testing.assert_allclose(res[5].numpy(), xn[2:7])
        np.testing.assert_allclose(res[6].numpy(), -np.sort(-xn)[:2])
        assert int(res[7].numpy()) == n


def test_relay_build_still_refuses_any():
    x = relay.var("x", shape=(A(), 3))
    with pytest.raises(TVMError, match="dynamic shapes"):
        relay.build(tvm.IRModule.from_expr(relay.Function([x], x + x)), "llvm")


def test_dynamic_to_static_makes_a_buildable_program():
    x = relay.var("x", shape=(2, 6))
    y = relay.reshape(x, relay.shape_of(relay.zeros((3, 4), "float32"), "int64"))
    z = relay.broadcast_to(relay.const(1.5), relay.const(np.array([3, 4], "int64")))
    k = relay.topk(x, relay.const(np.array(2, "int32")) + relay.const(np.array(1, "int32")),
                   ret_type="values")
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.Tuple([y + z, k])))
    assert "dyn.reshape" in mod.astext()
    mod = relay.transform.DynamicToStatic()(mod)
    text = mod.astext()
    assert "dyn." not in text and "newshape=[3, 4]" in text
    assert mod["main"].body.checked_type.fields[1] == relay.TensorType((2, 3), "float32")
    f = relay.create_executor("graph", mod=mod, target="llvm").evaluate()
    xn = rng.random((2, 6)).astype("float32")
    got = f(xn)
    np.testing.assert_allclose(got[0].numpy(), xn.reshape(3, 4) + 1.5)
    np.testing.assert_allclose(got[1].numpy(), -np.sort(-xn, axis=1)[:, :3])


def test_onnx_dynamic_batch_on_the_vm_matches_onnxruntime():
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper
    w = rng.standard_normal((4, 3, 3, 3)).astype("float32")
    g = rng.standard_normal((5, 4 * 6 * 6)).astype("float32")
    shape = np.array([-1, 4 * 6 * 6], "int64")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Reshape", ["r", "shape"], ["f"]),
             helper.make_node("Gemm", ["f", "g"], ["y"], transB=1)]
    graph = helper.make_graph(
        nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(g, "g"),
         numpy_helper.from_array(shape, "shape")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(TVMError, match="dynamic dimension 0"):
        relay.frontend.from_onnx(model)  # relay.build's rule: shapes must be given
    mod, params = relay.frontend.from_onnx(model, shape={"x": (A(), 3, 6, 6)},
                                           freeze_params=True)
    exe = relay.vm.compile(mod, "llvm", params=params)
    vm = rvm.VirtualMachine(exe, tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString())
    for n in (1, 5):
        xn = rng.standard_normal((n, 3, 6, 6)).astype("float32")
        want = sess.run(None, {"x": xn})[0]
        np.testing.assert_allclose(vm.run(xn).numpy(), want, rtol=1e-4, atol=1e-4)
    assert onnx is not None


def test_while_loop_growing_a_tensor_types_and_runs():
    from tvmlite.relay.loops import while_loop
    i = relay.var("i", shape=(), dtype="int32")
    st = relay.var("st", shape=(A(), 1), dtype="int32")
    loop = while_loop(lambda i, st: relay.less(i, relay.const(10)), [i, st],
                      lambda i, st: [i + relay.const(1),
                                     relay.concatenate([st, relay.reshape(i, (1, 1))], 0)])
    start = relay.var("start", shape=(), dtype="int32")
    f = relay.Function([start], relay.TupleGetItem(
        loop(start, relay.reshape(relay.const(0), (1, 1))), 1))
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(f))
    assert mod["main"].body.checked_type == relay.TensorType((A(), 1), "int32")
    run = relay.create_executor("vm", mod=mod).evaluate()
    for s in (3, 8):
        want = np.array([0] + list(range(s, 10)), "int32").reshape(-1, 1)
        np.testing.assert_array_equal(run(np.int32(s)).numpy(), want)


def test_arange_of_a_runtime_length():
    x = relay.var("x", shape=(A(), 3))
    n = relay.take(relay.shape_of(x), relay.const(0))
    f = relay.Function([x], relay.arange(n, dtype="int32") * relay.const(2))
    assert _type(f) == relay.TensorType((A(),), "int32")
    run = relay.create_executor("vm", mod=tvm.IRModule.from_expr(f)).evaluate()
    for rows in (4, 9):
        np.testing.assert_array_equal(run(rng.random((rows, 3)).astype("float32")).numpy(),
                                      2 * np.arange(rows))


def test_argwhere_rows_come_from_the_values():
    x = relay.var("x", shape=(A(), 3))
    f = relay.Function([x], relay.argwhere(relay.greater(x, relay.const(0.5))))
    assert _type(f) == relay.TensorType((A(), 2), "int32")
    run = relay.create_executor("vm", mod=tvm.IRModule.from_expr(f)).evaluate()
    for n in (4, 7):
        xn = rng.random((n, 3)).astype("float32")
        np.testing.assert_array_equal(run(xn).numpy(), np.argwhere(xn > 0.5))
    assert run(np.zeros((2, 3), "float32")).numpy().shape == (0, 2)


def test_pad_upsampling_squeeze_resize_of_runtime_attrs():
    x = relay.var("x", shape=(1, 2, A(), A()))
    pw = relay.var("pw", shape=(4, 2), dtype="int64")
    sh = relay.var("sh", shape=(), dtype="float32")
    ax = relay.var("ax", shape=(1,), dtype="int64")
    size = relay.var("size", shape=(2,), dtype="int64")
    f = relay.Function([x, pw, sh, ax, size], relay.Tuple([
        relay.nn.pad(x, pw, 1.5), relay.nn.upsampling(x, sh, 2.0),
        relay.squeeze(x, ax), relay.image.resize2d(x, size, method="nearest_neighbor",
                                                   coordinate_transformation_mode="asymmetric")]))
    types = _type(f).fields
    assert types[1] == relay.TensorType((1, 2, A(), A()), "float32")
    assert types[2] == relay.TensorType((A(), A(), A()), "float32")
    run = relay.create_executor("vm", mod=tvm.IRModule.from_expr(f)).evaluate()
    for h, w in ((3, 4), (2, 5)):
        xn = rng.random((1, 2, h, w)).astype("float32")
        widths = np.array([[0, 0], [1, 0], [0, 2], [1, 1]], "int64")
        p, u, s, r = run(xn, widths, np.float32(3.0), np.array([0], "int64"),
                         np.array([2 * h, 2 * w], "int64"))
        np.testing.assert_allclose(p.numpy(), np.pad(xn, widths, constant_values=1.5))
        np.testing.assert_allclose(u.numpy(), xn.repeat(3, axis=2).repeat(2, axis=3))
        np.testing.assert_allclose(s.numpy(), xn[0])
        np.testing.assert_allclose(r.numpy(), xn.repeat(2, axis=2).repeat(2, axis=3))
