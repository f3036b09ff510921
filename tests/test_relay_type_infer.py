"""Relay type inference by unification: unannotated variables, polymorphic functions
(instantiated per call, let-polymorphism), higher-order functions, ADTs (constructors,
match), references, and the errors of ill-typed programs; typed programs run on the VM and
are compared with numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError

rng = np.random.default_rng(11)
I32, F32 = relay.scalar_type("int32"), relay.scalar_type("float32")


def _box(mod):
    box, tv = relay.GlobalTypeVar("box"), relay.TypeVar("tv")
    ctor = relay.Constructor("box_ctor", [tv], box)
    mod[box] = relay.TypeData(box, [tv], [ctor])
    return box, ctor


def test_function_types_are_equal_up_to_renaming_of_type_params():
    a, b = relay.TypeVar("a"), relay.TypeVar("b")
    assert relay.FuncType([a], a, [a]) == relay.FuncType([b], b, [b])
    assert relay.FuncType([a, b], a, [a, b]) != relay.FuncType([a, b], b, [a, b])
    assert relay.FuncType([a], a) != relay.FuncType([b], b)  # free: by identity
    assert relay.TupleType([relay.RefType(F32)]) == relay.TupleType([relay.RefType(F32)])


def test_unannotated_parameter_takes_the_type_it_is_called_with():
    x, f = relay.var("x", I32), relay.var("f")
    func = relay.Function([x, f], relay.Call(f, [x]), I32)
    relay.transform.InferTypeLocal(func)
    assert func.checked_type == relay.FuncType([I32, relay.FuncType([I32], I32)], I32)


def test_polymorphic_identity_passed_to_a_higher_order_function():
    a, b = relay.TypeVar("a"), relay.TypeVar("b")
    x = relay.Var("x", a)
    ident = relay.Function([x], x, a, [a])
    f, y = relay.Var("f", relay.FuncType([b], b)), relay.Var("y", b)
    apply = relay.Function([f, y], f(y), b, [b])
    call = apply(ident, relay.const(rng.standard_normal((3, 5)).astype("float32")))
    assert relay.transform.InferTypeLocal(call) == relay.TensorType((3, 5), "float32")
    assert call.type_args[0] == relay.TensorType((3, 5), "float32")


def test_let_bound_polymorphic_function_is_instantiated_per_use():
    ident, xt = relay.Var("id"), relay.TypeVar("xt")
    x = relay.Var("x", xt)
    body = relay.Tuple([ident(relay.const(1)), ident(relay.Tuple([]))])
    e = relay.Let(ident, relay.Function([x], x, xt, [xt]), body)
    relay.transform.InferTypeLocal(e)
    assert e.checked_type == relay.TupleType([I32, relay.TupleType([])])


def test_recursive_global_without_return_type():
    f, n, d = relay.GlobalVar("f"), relay.var("n", I32), relay.var("d", F32)
    body = relay.If(relay.equal(n, relay.const(0, I32)), d,
                    f(relay.subtract(n, relay.const(1, I32)), relay.log(d)))
    mod = tvm.IRModule()
    mod[f] = relay.Function([n, d], body)
    mod = relay.transform.InferType()(mod)
    assert mod["f"].checked_type == relay.FuncType([I32, F32], F32)
    assert mod["f"].ret_type == F32


def test_constructor_and_match_types():
    mod = tvm.IRModule()
    box, ctor = _box(mod)
    a = relay.TypeVar("a")
    x = relay.Var("x", a)
    mod["wrap"] = relay.Function([x], ctor(x), box(a), [a])
    # the only annotation is on the pattern variable
    y, v = relay.Var("y"), relay.Var("v", relay.TensorType((2, 3)))
    pc = relay.PatternConstructor(ctor, [relay.PatternVar(v)])
    mod["main"] = relay.Function([y], relay.Match(ctor(y), [relay.Clause(pc, v * v)]))
    mod = relay.transform.InferType()(mod)
    assert mod["wrap"].checked_type == relay.FuncType([a], box(a), [a])
    t = relay.TensorType((2, 3))
    assert mod["main"].checked_type == relay.FuncType([t], t)
    data = rng.standard_normal((2, 3)).astype("float32")
    out = relay.create_executor("vm", mod=mod, target="llvm").evaluate()(data)
    np.testing.assert_allclose(out.numpy(), data * data, rtol=1e-6)


def test_prelude_map_and_foldl_typed_and_run():
    p = relay.prelude.Prelude(tvm.IRModule({}))
    _, cons, nil = p.mod.get_type("List")
    vals = rng.standard_normal(7).astype("float32")
    xs = nil()
    for v in reversed(vals):
        xs = cons(relay.const(v), xs)
    z = relay.var("z", F32)
    acc, e = relay.var("acc", F32), relay.var("e", F32)
    total = p.foldl(relay.Function([acc, e], acc + e),
                    relay.const(np.float32(0)), p.map(relay.Function([z], z * z), xs))
    mod = p.mod
    mod["main"] = relay.Function([], total)
    mod = relay.transform.InferType()(mod)
    assert mod["main"].checked_type == relay.FuncType([], F32)
    assert mod["main"].body.type_args == [F32, F32]  # foldl[A=float32, B=float32]
    out = relay.create_executor("vm", mod=mod, target="llvm").evaluate()()
    np.testing.assert_allclose(out.numpy(), np.sum(vals * vals), rtol=1e-5)


def test_references():
    x, y = relay.var("x", "float32"), relay.var("y", "float32")
    r = relay.RefCreate(x)
    assert relay.transform.InferTypeLocal(r) == relay.RefType(F32)
    assert relay.transform.InferTypeLocal(relay.RefRead(r)) == F32
    assert relay.transform.InferTypeLocal(relay.RefWrite(r, y)) == relay.TupleType([])
    with pytest.raises(TVMError, match="RefWrite"):
        relay.transform.InferTypeLocal(relay.RefWrite(r, relay.var("i", "int32")))


def test_ill_typed_programs_are_refused():
    mod = tvm.IRModule()
    box, ctor = _box(mod)
    # a polymorphic function applied inconsistently
    a = relay.TypeVar("a")
    p, q = relay.Var("p", a), relay.Var("q", a)
    mod["pair"] = relay.Function([p, q], relay.Tuple([p, q]), None, [a])
    mod["main"] = relay.Function([], mod.get_global_var("pair")(relay.const(1),
                                                                 relay.const(1.0)))
    with pytest.raises(TVMError, match="argument 1 of @pair has type float32"):
        relay.transform.InferType()(mod)
    # a match on a box whose clause rebuilds it with an int where a float was boxed
    mod2 = tvm.IRModule()
    box, ctor = _box(mod2)
    v = relay.Var("v", I32)
    m = relay.Match(ctor(relay.const(1.0)), [
        relay.Clause(relay.PatternConstructor(ctor, [relay.PatternVar(v)]), v)])
    mod2["main"] = relay.Function([], m)
    with pytest.raises(TVMError, match="pattern variable %v"):
        relay.transform.InferType()(mod2)
    # an incomplete match that claims to be complete
    p2 = relay.prelude.Prelude(tvm.IRModule({}))
    _, cons, nil = p2.mod.get_type("List")
    xs = relay.Var("xs", p2.l(F32))
    m = relay.Match(xs, [relay.Clause(relay.PatternConstructor(nil), relay.const(0))])
    p2.mod["main"] = relay.Function([xs], m)
    with pytest.raises(TVMError, match="does not handle 1 case"):
        relay.transform.InferType()(p2.mod)


def test_unannotated_parameter_left_unknown_is_an_error():
    x = relay.var("x")
    with pytest.raises(TVMError, match="%x has no type annotation"):
        relay.transform.InferTypeLocal(relay.Function([x], x))


def test_custom_op_with_a_python_relation():
    from tvmlite.relay.op import op as _op
    name = "test_type_infer_custom_rel"
    _op.register(name, "log of a tensor")
    o = _op.get(name)
    o.set_num_inputs(1)
    o.set_attrs_type_key("DictAttrs")
    o.add_type_rel(name, lambda types, attrs: relay.TensorType(types[0].shape, "float64"))
    x = relay.var("x", shape=(4, 7))
    f = relay.Function([x], relay.Call(o, [x]))
    assert relay.transform.InferTypeLocal(f).ret_type == relay.TensorType((4, 7), "float64")
    bad = "test_type_infer_custom_rel_bad"
    _op.register(bad, "a relation that fails")
    _op.get(bad).set_num_inputs(1)

    def rel(types, attrs):
        assert len(types) == 2, "type relation arg number mismatch!"
    _op.get(bad).add_type_rel(bad, rel)
    with pytest.raises(TVMError, match="arg number mismatch"):
        relay.transform.InferTypeLocal(relay.Call(_op.get(bad), [x]))
    _op.get(bad).add_type_rel(bad, lambda types, attrs: None)
    with pytest.raises(TVMError, match="returned None"):
        relay.transform.InferTypeLocal(relay.Call(_op.get(bad), [relay.var("y", shape=(2,))]))


def test_pattern_with_the_wrong_number_of_fields_is_refused():
    mod = tvm.IRModule()
    box, ctor = _box(mod)
    x = relay.Var("x")
    pat = relay.PatternConstructor(ctor, [relay.PatternVar(x), relay.PatternWildcard()])
    mod["main"] = relay.Function([], relay.Match(ctor(relay.const(1.0)),
                                                 [relay.Clause(pat, x)]))
    with pytest.raises(TVMError, match="box_ctor: the constructor takes 1 field"):
        relay.transform.InferType()(mod)


def test_operator_determines_an_unannotated_parameter():
    x = relay.var("x", shape=(1, 3, 9, 7))
    w = relay.var("w")  # the weight: its shape follows from channels and kernel_size
    f = relay.Function([x, w], relay.nn.conv2d(x, w, channels=5, kernel_size=(3, 3)))
    relay.transform.InferTypeLocal(f)
    assert w.type_annotation == relay.TensorType((5, 3, 3, 3))
    assert f.checked_type.ret_type == relay.TensorType((1, 5, 7, 5))
