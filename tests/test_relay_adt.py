"""ADTs on the relay VM: TypeData/Constructor/Match, the Prelude's List/Option/Tree and
their functions, nat.rly, against Python on random data."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.error import TVMError
from tvmlite.relay.backend.interpreter import ConstructorValue
from tvmlite.relay.prelude import Prelude
from tvmlite.relay.testing import count, make_nat_expr, make_nat_value
from tvmlite.runtime.container import ADT

rng = np.random.default_rng(5)


@pytest.fixture(scope="module")
def p():
    prelude = Prelude(tvm.IRModule({}))
    prelude.mod.import_from_std("nat.rly")
    return prelude


def _eval(p, expr):
    return relay.create_executor("debug", mod=p.mod, target="llvm").evaluate(expr)


def _rlist(p, values):
    _, cons, nil = p.mod.get_type("List")
    e = nil()
    for v in reversed(values):
        e = cons(relay.const(v), e)
    return e


def _to_list(p, v):
    _, cons, nil = p.mod.get_type("List")
    out = []
    while v.tag == cons.tag:
        out.append(v.fields[0])
        v = v.fields[1]
    assert v.tag == nil.tag
    return out


def _floats(p, v):
    return [float(x.numpy()) for x in _to_list(p, v)]


def test_list_functions(p):
    xs = rng.random(7).astype("float32").tolist()
    ys = rng.random(3).astype("float32").tolist()
    lx, ly = _rlist(p, np.float32(xs)), _rlist(p, np.float32(ys))
    assert int(_eval(p, p.length(lx)).numpy()) == 7
    assert float(_eval(p, p.hd(lx)).numpy()) == pytest.approx(xs[0])
    assert _floats(p, _eval(p, p.tl(lx))) == pytest.approx(xs[1:])
    assert float(_eval(p, p.nth(lx, relay.const(4))).numpy()) == pytest.approx(xs[4])
    upd = _eval(p, p.update(lx, relay.const(2), relay.const(np.float32(9.0))))
    assert _floats(p, upd) == pytest.approx(xs[:2] + [9.0] + xs[3:])
    assert _floats(p, _eval(p, p.concat(lx, ly))) == pytest.approx(xs + ys)
    assert _floats(p, _eval(p, p.rev(lx))) == pytest.approx(xs[::-1])
    x = relay.var("x", shape=())
    double = relay.Function([x], x * relay.const(2.0))
    assert _floats(p, _eval(p, p.map(double, lx))) == pytest.approx([2 * v for v in xs])
    a, b = relay.var("a", shape=()), relay.var("b", shape=())
    sub = relay.Function([a, b], a - b)
    # foldl: ((0 - x0) - x1) ...; foldr: x0 - (x1 - (... - 0))
    want_l, want_r = 0.0, 0.0
    for v in xs:
        want_l = want_l - v
    for v in reversed(xs):
        want_r = v - want_r
    assert float(_eval(p, p.foldl(sub, relay.const(0.0), lx)).numpy()) == pytest.approx(want_l)
    assert float(_eval(p, p.foldr(sub, relay.const(0.0), lx)).numpy()) == pytest.approx(want_r)
    big = relay.Function([x], relay.greater(x, relay.const(0.5)))
    assert _floats(p, _eval(p, p.filter(big, lx))) == pytest.approx([v for v in xs if v > 0.5])
    zipped = _to_list(p, _eval(p, p.zip(lx, ly)))
    assert len(zipped) == 3 and isinstance(zipped[0], ADT)
    assert float(zipped[2][1].numpy()) == pytest.approx(ys[2])


def test_sum_and_tensor_lists(p):
    ints = rng.integers(-50, 50, 9).astype("int32")
    assert int(_eval(p, p.sum(_rlist(p, ints))).numpy()) == int(ints.sum())
    arrs = [rng.random((2, 3)).astype("float32") for _ in range(4)]
    lst = _rlist(p, arrs)
    a, b = relay.var("a", shape=(2, 3)), relay.var("b", shape=(2, 3))
    total = _eval(p, p.foldl(relay.Function([a, b], a + b),
                             relay.const(np.zeros((2, 3), "float32")), lst))
    np.testing.assert_allclose(total.numpy(), sum(arrs), rtol=1e-6)


def test_option_tree_and_iterate(p):
    _, some, none = p.mod.get_type("Option")
    _, rose = p.mod.get_type("Tree")
    _, cons, nil = p.mod.get_type("List")
    leaf = rose(relay.const(1), nil())
    tree = rose(relay.const(2), cons(leaf, cons(rose(relay.const(3), cons(leaf, nil())),
                                                nil())))
    assert int(_eval(p, p.size(tree)).numpy()) == 4
    x = relay.var("x", shape=(), dtype="int32")
    t2 = _eval(p, p.tmap(relay.Function([x], x * relay.const(10)), tree))
    assert isinstance(t2, ConstructorValue) and int(t2.fields[0].numpy()) == 20
    s = relay.var("s", shape=(), dtype="int32")
    step = relay.Function([s], relay.If(relay.less(s, relay.const(4)),
                                        some(relay.Tuple([s + relay.const(1), s])), none()))
    got = [int(v.numpy()) for v in _to_list(p, _eval(p, p.unfoldr(step, relay.const(0))))]
    assert got == [0, 1, 2, 3]
    inc = relay.Function([x], x + relay.const(3))
    y = relay.var("y", shape=(), dtype="int32")
    it = relay.Function([y], p.iterate(inc, relay.const(5))(y))
    assert int(relay.create_executor("vm", mod=p.mod).evaluate(it)(np.int32(1)).numpy()) == 16


def test_nat_and_custom_adt(p):
    nat, z, s = p.mod.get_type("nat")
    double = p.mod.get_global_var("nat_double")
    add = p.mod.get_global_var("nat_add")
    assert count(p, _eval(p, double(make_nat_expr(p, 3)))) == 6
    assert count(p, _eval(p, add(make_nat_expr(p, 4), make_nat_expr(p, 5)))) == 9
    assert count(p, make_nat_value(p, 7)) == 7
    # a type of our own: shape = Circle(r) | Rect(w, h), area by match
    mod = tvm.IRModule()
    shape_t = relay.GlobalTypeVar("shape")
    circle = relay.Constructor("Circle", [relay.scalar_type("float32")], shape_t)
    rect = relay.Constructor("Rect", [relay.scalar_type("float32")] * 2, shape_t)
    mod[shape_t] = relay.TypeData(shape_t, [], [circle, rect])
    v = relay.var("v")
    r, w, h = relay.var("r"), relay.var("w"), relay.var("h")
    area = relay.Match(v, [
        relay.Clause(relay.PatternConstructor(circle, [relay.PatternVar(r)]),
                     r * r * relay.const(3.0)),
        relay.Clause(relay.PatternConstructor(rect, [relay.PatternVar(w), relay.PatternVar(h)]),
                     w * h)])
    f = relay.GlobalVar("area")
    mod[f] = relay.Function([v], area)
    dims = rng.random(3).astype("float32")
    mod["main"] = relay.Function([], relay.Tuple([
        f(circle(relay.const(dims[0]))), f(rect(relay.const(dims[1]), relay.const(dims[2])))]))
    out = relay.create_executor("vm", mod=mod).evaluate()()
    assert float(out[0].numpy()) == pytest.approx(3 * dims[0] ** 2, rel=1e-6)
    assert float(out[1].numpy()) == pytest.approx(dims[1] * dims[2], rel=1e-6)
    # a match with no clause for the value is a clear error
    mod["main"] = relay.Function([], relay.Match(rect(relay.const(1.0), relay.const(2.0)), [
        relay.Clause(relay.PatternConstructor(circle, [relay.PatternWildcard()]),
                     relay.const(0.0))], complete=False))
    with pytest.raises(TVMError, match="no clause of a match"):
        relay.create_executor("vm", mod=mod).evaluate()()


def test_vm_returns_adts_with_tags(p):
    _, cons, nil = p.mod.get_type("List")
    mod = p.mod.copy()
    mod["main"] = relay.Function([], _rlist(p, np.int32([4, 5])))
    exe = relay.vm.compile(mod, "llvm")
    out = tvm.runtime.vm.VirtualMachine(exe, tvm.cpu()).run()
    assert isinstance(out, ADT) and out.tag == cons.tag and len(out) == 2
    assert int(out[0].numpy()) == 4 and out[1].tag == cons.tag
    assert out[1][1].tag == nil.tag and len(out[1][1]) == 0


def test_prelude_functions_are_typed_polymorphically(p):
    mod = relay.transform.InferType()(p.mod)
    lst = p.mod.get_global_type_var("List")
    a, b = relay.TypeVar("a"), relay.TypeVar("b")
    assert mod[p.length].checked_type == relay.FuncType([lst(a)], relay.scalar_type("int32"),
                                                        [a])
    assert mod[p.map].checked_type == relay.FuncType(
        [relay.FuncType([a], b), lst(a)], lst(b), [a, b])
    assert mod[p.map].checked_type != relay.FuncType(
        [relay.FuncType([a], b), lst(b)], lst(b), [a, b])
    # a monomorphic tensor function of the same module is typed too
    x = relay.var("x", shape=(2,))
    mod["tensor_fn"] = relay.Function([x], x + x)
    mod = relay.transform.InferType()(mod)
    assert mod["tensor_fn"].checked_type == relay.FuncType([relay.TensorType((2,))],
                                                           relay.TensorType((2,)))


def test_unmatched_cases_finds_the_missing_patterns(p):
    _, cons, nil = p.mod.get_type("List")
    xs, w = relay.var("xs"), relay.PatternWildcard
    pc = relay.PatternConstructor
    # [] and [x] are covered, [x, y, ...] is not
    m = relay.Match(xs, [relay.Clause(pc(nil), relay.const(0)),
                         relay.Clause(pc(cons, [w(), pc(nil)]), relay.const(1))], False)
    missing = relay.analysis.unmatched_cases(m, p.mod)
    assert len(missing) == 1 and missing[0].constructor == cons
    assert missing[0].patterns[1].constructor == cons
    m = relay.Match(xs, [relay.Clause(pc(nil), relay.const(0)),
                         relay.Clause(pc(cons, [w(), w()]), relay.const(1))])
    assert relay.analysis.unmatched_cases(m, p.mod) == []
    assert isinstance(relay.analysis.unmatched_cases(relay.Match(xs, []))[0], w)
