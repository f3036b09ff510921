"""The relay VM (relay.vm.compile, runtime.vm.VirtualMachine, create_executor "vm"/"debug"):
results against numpy, dynamic shapes through one executable, control flow, recursion,
closures, references, serialization and bad input."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.relay.loops import while_loop
from tvmlite.runtime import vm as rvm
from tvmlite.runtime.container import ADT

rng = np.random.default_rng(7)


def _vm(mod_or_func, params=None):
    mod = mod_or_func if isinstance(mod_or_func, tvm.IRModule) else \
        tvm.IRModule.from_expr(mod_or_func)
    exe = relay.vm.compile(mod, "llvm", params=params)
    return exe, rvm.VirtualMachine(exe, tvm.cpu())


def test_static_dataflow_is_one_region():
    x = relay.var("x", shape=(5, 7))
    w = relay.var("w", shape=(3, 7))
    f = relay.Function([x, w], relay.nn.relu(relay.nn.dense(x, w)) + relay.const(1.0))
    exe, vm = _vm(f)
    xn, wn = rng.random((5, 7), "float32"), rng.random((3, 7), "float32")
    out = vm.invoke("main", xn, wn)
    np.testing.assert_allclose(out.numpy(), np.maximum(xn @ wn.T, 0) + 1, rtol=1e-5)
    out = vm.run(xn, wn)
    np.testing.assert_allclose(out.numpy(), np.maximum(xn @ wn.T, 0) + 1, rtol=1e-5)
    assert exe.cache_stats == {"hits": 1, "misses": 1}


def test_any_shapes_share_one_executable():
    x = relay.var("x", shape=(relay.Any(), 3))
    y = relay.var("y", shape=(relay.Any(), 3))
    f = relay.Function([x, y], relay.exp(x) * y - relay.const(2.0))
    exe, vm = _vm(f)
    for n in (1, 4, 9, 4, 1):
        a, b = rng.random((n, 3), "float32"), rng.random((n, 3), "float32")
        np.testing.assert_allclose(vm.run(a, b).numpy(), np.exp(a) * b - 2, rtol=1e-5)
    assert exe.cache_stats == {"hits": 2, "misses": 3}


def test_tuple_result_and_tuple_input():
    x = relay.var("x", shape=(6, 5))
    f = relay.Function([x], relay.split(x, 3, axis=0).astuple())
    _, vm = _vm(f)
    xn = rng.random((6, 5), "float32")
    out = vm.run(xn)
    assert isinstance(out, ADT) and out.tag == 0 and len(out) == 3
    for got, want in zip(out, np.split(xn, 3)):
        np.testing.assert_allclose(got.numpy(), want)
    t = relay.var("t", relay.TupleType([relay.TensorType((3,)), relay.TensorType((4,))]))
    g = relay.Function([t], relay.concatenate([relay.TupleGetItem(t, 1),
                                               relay.TupleGetItem(t, 0)], 0))
    _, vm = _vm(g)
    a, b = rng.random(3, "float32"), rng.random(4, "float32")
    np.testing.assert_allclose(vm.run((a, b)).numpy(), np.concatenate([b, a]))


def test_if_let_and_closure():
    x = relay.var("x", shape=(4,))
    y = relay.var("y", shape=(4,))
    c = relay.var("c", shape=(), dtype="bool")
    v = relay.var("v")
    body = relay.Let(v, x * y, relay.If(c, v + x, v - y))
    _, vm = _vm(relay.Function([c, x, y], body))
    a, b = rng.random(4, "float32"), rng.random(4, "float32")
    np.testing.assert_allclose(vm.run(np.array(True), a, b).numpy(), a * b + a, rtol=1e-6)
    np.testing.assert_allclose(vm.run(np.array(False), a, b).numpy(), a * b - b, rtol=1e-6)
    # a closure over y, returned and applied
    p = relay.var("p", shape=())
    q = relay.var("q", shape=())
    adder = relay.Function([q], relay.Function([p], p + q))
    main = relay.Function([], adder(relay.const(1.5))(relay.const(2.0)))
    _, vm = _vm(main)
    assert vm.run().numpy() == pytest.approx(3.5)


def _sum_loop_module():
    mod = tvm.IRModule()
    sum_up = relay.GlobalVar("sum_up")
    i = relay.var("i", shape=(), dtype="int32")
    acc = relay.var("acc", shape=(), dtype="int32")
    body = relay.If(relay.equal(i, relay.const(0)), acc,
                    sum_up(i - relay.const(1), acc + i))
    mod[sum_up] = relay.Function([i, acc], body, relay.TensorType((), "int32"))
    ii = relay.var("i", shape=(), dtype="int32")
    mod["main"] = relay.Function([ii], sum_up(ii, relay.const(0)))
    return mod


def test_recursion_through_global_var_10000_deep():
    exe, vm = _vm(_sum_loop_module())
    for n in (0, 7, 2000):
        assert int(vm.run(np.array(n, "int32")).numpy()) == n * (n + 1) // 2
    # non-tail recursion: 1 + length(rest) keeps 10,000 frames open
    p = relay.prelude.Prelude()
    _, cons, nil = p.mod.get_type("List")
    lst = nil()
    for k in range(10000):
        lst = cons(relay.const(k), lst)
    p.mod["main"] = relay.Function([], p.length(lst))
    _, vm = _vm(p.mod)
    assert int(vm.run().numpy()) == 10000


def test_while_loop_and_let_recursion():
    i = relay.var("i", shape=(), dtype="int32")
    s = relay.var("s", shape=(2, 3))
    loop = while_loop(lambda i, s: relay.less(i, relay.const(5)), [i, s],
                      lambda i, s: [i + relay.const(1), s * relay.const(2.0)])
    ii = relay.var("i0", shape=(), dtype="int32")
    ss = relay.var("s0", shape=(2, 3))
    _, vm = _vm(relay.Function([ii, ss], relay.TupleGetItem(loop(ii, ss), 1)))
    sn = rng.random((2, 3), "float32")
    np.testing.assert_allclose(vm.run(np.array(2, "int32"), sn).numpy(), sn * 8)


def test_references():
    x = relay.var("x", shape=(3,))
    r = relay.var("r")
    body = relay.Let(r, relay.RefCreate(x), relay.Let(
        relay.var("u"), relay.RefWrite(r, relay.RefRead(r) * relay.const(3.0)),
        relay.RefRead(r) + x))
    _, vm = _vm(relay.Function([x], body))
    xn = rng.random(3, "float32")
    np.testing.assert_allclose(vm.run(xn).numpy(), 4 * xn, rtol=1e-6)


def test_params_bound_at_compile():
    x = relay.var("x", shape=(2, relay.Any()))
    w = relay.var("w", shape=(2, 1))
    exe, vm = _vm(relay.Function([x, w], x + w), params={"w": np.ones((2, 1), "float32")})
    xn = rng.random((2, 5), "float32")
    np.testing.assert_allclose(vm.run(xn).numpy(), xn + 1)
    assert vm.get_input_index("x") == 0 and vm.get_input_index("w") == -1


def test_set_input_invoke_stateful_and_benchmark():
    x = relay.var("x", shape=(3,))
    exe, vm = _vm(relay.Function([x], relay.Tuple([x + x, x * x])))
    xn = rng.random(3, "float32")
    vm.set_input("main", x=xn)
    vm.invoke_stateful("main")
    outs = vm.get_outputs()
    np.testing.assert_allclose(outs[0].numpy(), 2 * xn)
    np.testing.assert_allclose(outs[1].numpy(), xn * xn)
    assert exe.cache_stats == {"hits": 0, "misses": 1}  # the tuple of calls: one build
    res = vm.benchmark(tvm.cpu(), xn, repeat=2, number=1)
    assert len(res.results) == 2 and res.mean > 0


def test_save_and_load_exec():
    x = relay.var("x", shape=(relay.Any(),), dtype="float64")
    c = rng.random(1)
    exe, _ = _vm(relay.Function([x], x * relay.const(c, "float64")))
    code, lib = exe.save()
    loaded = rvm.Executable.load_exec(code, lib)
    vm = rvm.VirtualMachine(loaded, tvm.cpu())
    xn = rng.random(6)
    np.testing.assert_allclose(vm.run(xn).numpy(), xn * c)
    assert "main" in exe.bytecode and "Functions" in exe.stats


def test_create_executor_vm_and_debug():
    x = relay.var("x", shape=(relay.Any(), 2))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.sum(x * x, axis=1)))
    for kind in ("vm", "debug"):
        f = relay.create_executor(kind, mod=mod, target="llvm").evaluate()
        for n in (3, 8):
            xn = rng.random((n, 2), "float32")
            np.testing.assert_allclose(f(xn).numpy(), (xn * xn).sum(1), rtol=1e-5)
    # a closed expression is evaluated at once
    val = relay.create_executor("debug", mod=mod).evaluate(relay.const(2.0) + relay.const(3.0))
    assert float(val.numpy()) == 5.0


def test_bad_input_gives_tvm_error():
    x = relay.var("x", shape=(relay.Any(), 3))
    _, vm = _vm(relay.Function([x], x + x))
    with pytest.raises(TVMError, match="expects Tensor"):
        vm.run(np.zeros((2, 4), "float32"))  # known dim 3
    with pytest.raises(TVMError, match="expects Tensor"):
        vm.run(np.zeros((2, 3), "float64"))  # dtype
    with pytest.raises(TVMError, match="expects Tensor"):
        vm.run(np.zeros((3,), "float32"))  # rank
    with pytest.raises(TVMError, match="no function 'nope'"):
        vm.invoke("nope", np.zeros((1, 3), "float32"))
    with pytest.raises(TVMError, match="takes 1 input"):
        vm.run(np.zeros((1, 3), "float32"), np.zeros((1, 3), "float32"))
    y = relay.var("y", shape=(2,))
    _, vm = _vm(relay.Function([y], relay.If(relay.const(True), y, y + y)))
    np.testing.assert_allclose(vm.run(np.ones(2, "float32")).numpy(), np.ones(2))


def test_shape_of_and_dynamic_ops_on_host():
    x = relay.var("x", shape=(relay.Any(), relay.Any()))
    flat = relay.reshape(x, (-1,))
    shp = relay.var("shp", shape=(2,), dtype="int64")
    f = relay.Function([x, shp], relay.Tuple([
        relay.shape_of(x), relay.reshape(x, shp), relay.zeros(shp, "float32"), flat]))
    exe, vm = _vm(f)
    for rows, cols in ((2, 6), (3, 5)):
        xn = rng.random((rows, cols), "float32")
        s, r, z, fl = vm.run(xn, np.array([cols, rows], "int64"))
        np.testing.assert_array_equal(s.numpy(), [rows, cols])
        np.testing.assert_allclose(r.numpy(), xn.reshape(cols, rows))
        np.testing.assert_array_equal(z.numpy(), np.zeros((cols, rows)))
        np.testing.assert_allclose(fl.numpy(), xn.reshape(-1))


def test_synthetic_workload_matches_graph_executor():
    mod, params = relay.testing.synthetic.get_workload(input_shape=(1, 2, 5, 7))
    exe = relay.vm.compile(mod, "llvm", params=params)
    xn = rng.random((1, 2, 5, 7), "float32")
    got = rvm.VirtualMachine(exe, tvm.cpu()).run(xn).numpy()
    want = relay.create_executor("graph", mod=mod, params=params).evaluate()(xn).numpy()
    assert got.shape == (1, 2, 5, 7)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_vm_compiler_optimize_binds_params():
    mod, params = relay.testing.synthetic.get_workload(input_shape=(1, 2, 3, 4))
    opt_mod, rest = relay.vm.VMCompiler().optimize(mod, target="llvm", params=params)
    assert rest == {}
    assert [v.name_hint for v in relay.analysis.free_vars(opt_mod["main"].body)] == ["data"]
    comp = relay.vm.VMCompiler()
    comp.set_params(params)
    comp.lower(mod, "llvm")
    xn = rng.random((1, 2, 3, 4), "float32")
    got = rvm.VirtualMachine(comp.get_exec(), tvm.cpu()).run(xn).numpy()
    want = relay.create_executor("graph", mod=mod, params=params).evaluate()(xn).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_debug_op_calls_its_function_in_the_vm_and_is_identity_when_built():
    x = relay.var("x", shape=(3, 5))
    seen = []
    prog = relay.op.debug(x * relay.const(2.0), debug_func=lambda v: seen.append(v.numpy()))
    f = relay.Function([x], prog + relay.const(1.0))
    xn = rng.random((3, 5), "float32")
    _, vm = _vm(f)
    np.testing.assert_allclose(vm.run(xn).numpy(), 2 * xn + 1, rtol=1e-6)
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], 2 * xn, rtol=1e-6)
    val = relay.create_executor().evaluate(relay.op.debug(relay.const(4, "int32")))
    assert int(val.numpy()) == 4
    built = relay.create_executor("graph", mod=tvm.IRModule.from_expr(f)).evaluate()
    np.testing.assert_allclose(built(xn).numpy(), 2 * xn + 1, rtol=1e-6)
    assert len(seen) == 1  # compiled, it does not call back
    with pytest.raises(TVMError, match="debug_func must be callable"):
        relay.op.debug(x, debug_func=3)


def test_regions_with_empty_inputs_and_one_field_tuple_input():
    data = relay.var("data", shape=(1, relay.Any(), 5))
    f = relay.Function([data], relay.vision.get_valid_counts(data, 0.5, 0, 0).astuple())
    _, vm = _vm(f)
    for n in (0, 7):
        xn = rng.random((1, n, 5), "float32")
        count, boxes, ids = vm.run(xn)
        keep = xn[0, :, 0] > 0.5
        assert int(count.numpy()[0]) == int(keep.sum())
        assert boxes.numpy().shape == (1, n, 5) and ids.numpy().shape == (1, n)
        np.testing.assert_allclose(boxes.numpy()[0, :keep.sum()], xn[0, keep])
    # classic's kernels take a tuple's fields: invoke("main", [x]) runs as invoke("main", x)
    y = relay.var("y", shape=(4,))
    _, vm = _vm(relay.Function([y], y + relay.const(1.0)))
    yn = rng.random(4, "float32")
    np.testing.assert_allclose(vm.invoke("main", [yn]).numpy(), yn + 1)
    with pytest.raises(TVMError, match="expects Tensor"):
        vm.invoke("main", [yn, yn])


def test_export_library_and_late_bound_constants(tmp_path):
    x = relay.var("x", shape=(relay.Any(), 33))
    big = rng.random((5, 33), "float32")[1:4].sum(0)  # 132 bytes
    small = rng.random(1, "float32")
    f = relay.Function([x], x * relay.const(big) + relay.const(small))
    exe = relay.vm.compile(tvm.IRModule.from_expr(f), "llvm")
    consts = str(tmp_path / "consts")
    exe.move_late_bound_consts(consts, byte_limit=100)
    path = str(tmp_path / "vm.so")
    exe.mod.export_library(path)
    xn = rng.random((7, 33), "float32")
    want = xn * big + small
    # loaded without its constants, the program refuses to run
    lib = tvm.runtime.load_module(path)
    vm = rvm.VirtualMachine(lib, tvm.cpu())
    with pytest.raises(TVMError, match="late-bound constants"):
        vm.run(xn)
    lib["load_late_bound_consts"](consts)
    np.testing.assert_allclose(vm.run(xn).numpy(), want, rtol=1e-6)
    # through the Executable wrapper, from a map
    consts_map = exe.get_late_bound_consts(byte_limit=100)
    assert list(consts_map) == ["const_0"]
    loaded = rvm.Executable(tvm.runtime.load_module(path))
    loaded.load_late_bound_consts_from_map(consts_map)
    np.testing.assert_allclose(rvm.VirtualMachine(loaded, tvm.cpu()).run(xn[:2]).numpy(),
                               want[:2], rtol=1e-6)
    with pytest.raises(TVMError, match="no late-bound constant 'nope'"):
        loaded.load_late_bound_consts_from_map({"nope": np.zeros(1)})
    with pytest.raises(TVMError, match="holds no VM executable"):
        rvm.Executable(exe.lib)


def test_reshape_only_regions_are_views_and_the_listing_names_the_steps():
    x = relay.var("x", shape=(relay.Any(), 16))
    shp = relay.var("shp", shape=(3,), dtype="int64")
    f = relay.Function([x, shp], relay.Tuple([
        relay.reshape(relay.reshape(x, (-1, 4)), (0, 2, -1)),   # one reshape-only region
        relay.reshape(x, shp),                                  # dyn.reshape on the host
        relay.copy(relay.reshape(x, (-1,)))]))                  # a kernel
    exe, vm = _vm(f)
    code = exe.bytecode
    assert code.count("reshape_tensor") == 2 and "alloc_tensor_reg" in code
    assert "invoke_packed" in code and code.startswith("VM Function[0]: main(x, shp)")
    for n in (2, 5):
        xn = rng.random((n, 16), "float32")
        a = tvm.nd.array(xn)
        r, d, c = vm.run(a, np.array([n, 8, 2], "int64"))
        np.testing.assert_array_equal(r.numpy(), xn.reshape(n * 4, 2, 2))
        np.testing.assert_array_equal(d.numpy(), xn.reshape(n, 8, 2))
        np.testing.assert_array_equal(c.numpy(), xn.reshape(-1))
        # reshapes share the input's memory (classic reshape_tensor); copy does not
        assert np.shares_memory(r._arr, a._arr) and np.shares_memory(d._arr, a._arr)
        assert not np.shares_memory(c._arr, a._arr)
    y = relay.var("y", shape=(1, 1))
    exe, _ = _vm(relay.Function([y], relay.copy(relay.reshape(y, [0, 1]))))
    assert "alloc_tensor " in exe.bytecode and "alloc_tensor_reg" not in exe.bytecode
