"""Relay IR: construction, type inference (and its errors), the text printer, deep graphs."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay.ty import TensorType, TupleType


def _infer(expr_or_func):
    func = expr_or_func
    if not isinstance(func, relay.Function):
        func = relay.Function(sorted(_free_vars(func), key=lambda v: v.name_hint), func)
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(func))
    return mod["main"]


def _free_vars(e):
    from tvmlite.relay.expr import post_order
    return {n for n in post_order(e) if isinstance(n, relay.Var)}


def test_var_const_and_types():
    x = relay.var("x", shape=(2, 3), dtype="float32")
    assert x.type_annotation == TensorType((2, 3), "float32")
    assert relay.var("s", "int32").type_annotation == TensorType((), "int32")
    c = relay.const(1.5)
    assert c.data.dtype == "float32" and c.data.shape == ()
    assert relay.const(3).data.dtype == "int32"
    arr = np.arange(6, dtype="float64").reshape(2, 3)
    # as classic: 64-bit numpy arrays narrow to float32 / int32 unless a dtype is given
    assert relay.const(arr).data.dtype == "float32"
    assert relay.const(arr, "float64").data.dtype == "float64"
    assert relay.const(np.arange(3)).data.dtype == "int32"
    with pytest.raises(tvm.TVMError, match="shape"):
        relay.var("y", shape=(2, "n"))
    with pytest.raises(tvm.TVMError, match="relay expression"):
        relay.add(x, 1.0)  # constructors take expressions; operators convert scalars
    assert isinstance(x + 1.0, relay.Call)


def test_infer_type_network():
    x = relay.var("x", shape=(1, 3, 10, 12))
    w = relay.var("w", shape=(8, 3, 3, 3))
    b = relay.var("b", shape=(8,))
    y = relay.nn.conv2d(x, w, strides=(2, 2), padding=(1, 1), channels=8, kernel_size=(3, 3))
    y = relay.nn.relu(relay.nn.bias_add(y, b))
    p = relay.nn.max_pool2d(y, (3, 3), (2, 2), padding=(1, 1), ceil_mode=True)
    q = relay.nn.avg_pool2d(y, (2, 2), (2, 2))
    g = relay.nn.batch_flatten(relay.nn.global_avg_pool2d(y))
    d = relay.nn.dense(g, relay.var("wd", shape=(5, 8)))
    f = _infer(relay.Tuple([p, q, relay.nn.softmax(d)]))
    assert y.checked_type == TensorType((1, 8, 5, 6), "float32")
    assert p.checked_type.shape == (1, 8, 3, 4)  # ceil mode: (6 + 2 - 3) / 2 rounded up + 1
    assert q.checked_type.shape == (1, 8, 2, 3)
    assert d.checked_type.shape == (1, 5)
    assert isinstance(f.body.checked_type, TupleType)
    assert f.checked_type.ret_type == f.body.checked_type


def test_infer_type_transforms():
    x = relay.var("x", shape=(2, 3, 4))
    r = relay.reshape(x, (0, -1))
    t = relay.transpose(x, (2, 0, 1))
    t2 = relay.transpose(x)
    c = relay.concatenate([x, x, relay.var("z", shape=(2, 5, 4))], axis=1)
    bn = relay.nn.batch_norm(x, *[relay.var(n, shape=(3,)) for n in "gbmv"])
    a = relay.add(relay.var("u", shape=(3, 1)), relay.var("v", shape=(4,)))
    _infer(relay.Tuple([r, t, t2, c, bn[0], bn.astuple(), a]))
    assert r.checked_type.shape == (2, 12)
    assert t.checked_type.shape == (4, 2, 3)
    assert t2.checked_type.shape == (4, 3, 2)
    assert c.checked_type.shape == (2, 11, 4)
    assert bn[0].tuple_value.checked_type.fields[1] == TensorType((3,), "float32")
    assert a.checked_type.shape == (3, 4)


def test_let_if_function_types():
    x = relay.var("x", shape=(3,))
    v = relay.var("v")
    cond = relay.var("c", "bool")
    body = relay.Let(v, relay.nn.relu(x), relay.If(cond, v * 2.0, v + x))
    f = _infer(relay.Function([x, cond], body))
    assert f.body.checked_type == TensorType((3,), "float32")
    inner = relay.Function([relay.var("a", shape=(3,))], relay.var("a", shape=(3,)))
    with pytest.raises(tvm.TVMError, match="no type annotation|parameter"):
        _infer(relay.Function([x], relay.Call(inner, [relay.var("q", shape=(4,))])))


@pytest.mark.parametrize("make, match", [
    (lambda: relay.nn.conv2d(relay.var("x", shape=(1, 3, 8, 8)),
                             relay.var("w", shape=(4, 2, 3, 3))),
     r"nn.conv2d: weight \(4, 2, 3, 3\).* expects 2 input channels.*data \(1, 3, 8, 8\)"
     r".* has 3"),
    (lambda: relay.nn.conv2d(relay.var("x", shape=(1, 3, 8)), relay.var("w", shape=(4, 3, 3, 3))),
     r"nn.conv2d: data must be 4-D \(NCHW\), got shape \(1, 3, 8\)"),
    (lambda: relay.nn.conv2d(relay.var("x", shape=(1, 3, 2, 2)),
                             relay.var("w", shape=(4, 3, 3, 3))),
     "window 3 .* larger than the padded input 2"),
    (lambda: relay.add(relay.var("a", shape=(2, 3)), relay.var("b", shape=(4, 3))),
     r"add: shapes \(2, 3\) and \(4, 3\) do not broadcast \(dimension 0: 2 vs 4\)"),
    (lambda: relay.multiply(relay.var("a", shape=(2,)), relay.var("b", shape=(2,), dtype="int32")),
     "multiply: operands have different dtypes float32 and int32"),
    (lambda: relay.nn.dense(relay.var("a", shape=(2, 5)), relay.var("w", shape=(3, 4))),
     r"nn.dense: .* disagree on the reduction dimension \(5 vs 4\)"),
    (lambda: relay.reshape(relay.var("a", shape=(2, 5)), (3, -1)), r"cannot reshape \(2, 5\)"),
    (lambda: relay.transpose(relay.var("a", shape=(2, 5)), (0, 0)), "not a permutation"),
    (lambda: relay.concatenate([relay.var("a", shape=(2, 5)), relay.var("b", shape=(3, 4))], 1),
     r"field 1 has shape \(3, 4\)"),
    (lambda: relay.nn.bias_add(relay.var("a", shape=(1, 4, 2)), relay.var("b", shape=(3,))),
     "bias of length 3 does not match"),
    (lambda: relay.nn.softmax(relay.var("a", shape=(2, 5)), axis=2), "axis 2 is out of range"),
    (lambda: relay.TupleGetItem(relay.Tuple([relay.var("a", shape=(1,))]), 3), "out of range"),
    (lambda: relay.If(relay.var("c", shape=(2,), dtype="bool"), relay.var("a", shape=(1,)),
                      relay.var("b", shape=(1,))), "condition of If must be a scalar bool"),
    (lambda: relay.nn.relu(relay.var("untyped")), "%untyped has no type annotation"),
])
def test_type_errors_are_clear(make, match):
    with pytest.raises(tvm.TVMError, match=match):
        _infer(make())


def test_printer_classic_form():
    x = relay.var("x", shape=(1, 3, 224, 224))
    w = relay.var("w", shape=(16, 3, 3, 3))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    f = relay.Function([x, w], relay.add(y, relay.const(1.0)))
    assert f.astext() == (
        '#[version = "0.0.5"]\n'
        "fn (%x: Tensor[(1, 3, 224, 224), float32], %w: Tensor[(16, 3, 3, 3), float32]) {\n"
        "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);\n"
        "  %1 = nn.relu(%0);\n"
        "  add(%1, 1f)\n"
        "}")
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(f))
    text = mod.astext()
    assert text == '#[version = "0.0.5"]\n' + str(mod)  # str: no header, as classic
    x_ty, w_ty = "Tensor[(1, 3, 224, 224), float32]", "Tensor[(16, 3, 3, 3), float32]"
    assert str(mod).startswith(f"def @main(%x: {x_ty} /* ty={x_ty} */, %w: {w_ty} /* ty={w_ty} "
                               "*/) -> Tensor[(1, 16, 224, 224), float32] {\n")
    assert "%1 = nn.relu(%0) /* ty=Tensor[(1, 16, 224, 224), float32] */;" in text


def test_printer_shared_nodes_let_if_tuple():
    x = relay.var("x", shape=(2,))
    r = relay.nn.relu(x)
    v = relay.var("v", shape=(2,))
    c = relay.var("c", "bool")
    f = relay.Function([x, c], relay.Let(v, r + r, relay.If(
        c, relay.TupleGetItem(relay.Tuple([v, relay.const(np.ones(2, "float32"))]), 0), v)))
    text = f.astext()
    assert text.count("nn.relu") == 1  # a shared node is bound once
    assert "let %v: Tensor[(2), float32] = add(%0, %0);" in text
    assert "if (%c) {" in text and "} else {" in text
    assert "= (%v, meta[relay.Constant][0]);" in text and ".0" in text


def test_op_registry():
    op = relay.op.get("nn.conv2d")
    assert op.name == "nn.conv2d"
    assert op.get_attr("TOpPattern") == relay.op.OpPattern.OUT_ELEMWISE_FUSABLE
    assert set(op.get_attr("FTVMStrategy")) >= {"cpu", "generic"}
    for name in ["nn.conv2d", "nn.dense", "nn.bias_add", "nn.relu", "nn.max_pool2d",
                 "nn.avg_pool2d", "nn.global_avg_pool2d", "nn.batch_flatten", "nn.softmax",
                 "nn.batch_norm", "add", "subtract", "multiply", "divide", "reshape",
                 "transpose", "concatenate"]:
        assert name in relay.op.list_op_names()
        assert relay.op.get(name).strategies
    with pytest.raises(tvm.TVMError, match="'nn.nope' is not registered"):
        relay.op.get("nn.nope")
    with pytest.raises(tvm.TVMError, match="unknown attribute"):
        relay.op.registry.make_call("nn.relu", [relay.var("x", shape=(1,))], alpha=1)


@pytest.mark.slow
def test_deep_chain_infer_print_fuse():
    """A chain of 100,000 operators: every walk is iterative (no RecursionError)."""
    x = relay.var("x", shape=(4,))
    y = x
    for i in range(100_000):
        y = relay.nn.relu(y) if i % 2 else relay.add(y, x)
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Function([x], y)))
    assert mod["main"].body.checked_type == TensorType((4,), "float32")
    text = mod.astext()
    assert text.count("\n") > 100_000
    with tvm.transform.PassContext(opt_level=3):
        fused = relay.transform.FuseOps()(mod)
    assert fused["main"].body.op.attrs["Primitive"] == 1


def test_analysis_free_and_all_vars():
    x, y, v = relay.var("x", shape=(2,)), relay.var("y", shape=(2,)), relay.var("v")
    body = relay.Let(v, relay.add(x, y), relay.multiply(v, x))
    assert relay.analysis.free_vars(body) == [x, y]
    f = relay.Function([x], body)
    assert relay.analysis.free_vars(f) == [y]
    assert set(map(id, relay.analysis.all_vars(f))) == {id(x), id(y), id(v)}


def test_var_identity_and_span_identity():
    x = relay.var("x", shape=(3,))
    y = relay.var("x", shape=(3,))
    e = relay.add(x, x)
    assert e.args[0].vid.same_as(x.vid) and e.args[1].vid == x.vid
    assert not y.vid.same_as(x.vid) and y.vid.name_hint == "x"
    span = relay.Span(None, 1, 2, 3, 4)
    assert span.same_as(span) and not span.same_as(relay.Span(None, 1, 2, 3, 4))
    assert relay.base.Span is relay.Span and ":1:3" in str(span)


def test_module_add_with_and_without_update():
    x = relay.var("x", shape=(2,))
    mod = tvm.IRModule()
    mod._add("main", relay.Function([x], x + x))
    y = relay.var("y", shape=(2,))
    with pytest.raises(tvm.error.TVMError, match="already in the module"):
        mod._add("main", relay.Function([y], y))
    mod._add("main", relay.Function([y], y * y), True)
    data = np.arange(2, dtype="float32") + 3
    out = relay.create_executor("debug", mod=mod, target="llvm").evaluate()(data)
    np.testing.assert_allclose(out.numpy(), data * data)


def test_functions_with_attributes_keyed_by_variable_ids_compare_structurally():
    def fn():
        x = relay.var("x", shape=(10,))
        return relay.Function([x], x).with_attr("dict", {x.vid: 1})
    assert tvm.ir.structural_equal(fn(), fn())
    assert tvm.ir.structural_hash(fn()) == tvm.ir.structural_hash(fn())
    x = relay.var("x", shape=(10,))
    other = relay.Function([x], x).with_attr("dict", {relay.var("y").vid: 1})
    assert not tvm.ir.structural_equal(fn(), other, map_free_vars=False)
