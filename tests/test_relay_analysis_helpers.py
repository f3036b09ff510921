"""relay.analysis helpers: list_op_freqs, count_layers, well_formed, the (type) variable
lists in classic visit order."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay import analysis


def _net():
    x = relay.var("x", shape=(1, 2, 6, 5), dtype="float32")
    w1 = relay.var("w1", shape=(2, 2, 3, 3), dtype="float32")
    w2 = relay.var("w2", shape=(2, 2, 3, 3), dtype="float32")
    y = relay.nn.conv2d(x, w1, padding=(1, 1))
    z = relay.nn.relu(relay.nn.conv2d(y, w2, padding=(1, 1)))
    return tvm.IRModule.from_expr(relay.Function([x, w1, w2], relay.add(y, z)))


def test_list_op_freqs_counts_fused_functions_too():
    mod = _net()
    want = {"nn.conv2d": 2, "nn.relu": 1, "add": 1}
    assert analysis.list_op_freqs(mod) == want
    fused = relay.transform.FuseOps(2)(relay.transform.InferType()(mod))
    assert analysis.list_op_freqs(fused) == want
    assert analysis.extract_operators(mod) == want


def test_count_layers_is_the_deepest_chain():
    mod = _net()
    assert analysis.count_layers(mod, ["nn.conv2d"]) == 2
    x = relay.var("x", shape=(4, 4), dtype="float32")
    w = relay.var("w", shape=(4, 4), dtype="float32")
    a = relay.nn.dense(x, w)
    par = relay.add(relay.nn.dense(a, w), relay.nn.dense(a, w))  # parallel: one layer
    assert analysis.count_layers(par, ["nn.dense"]) == 2
    assert analysis.count_layers(par, ["nn.conv2d"]) == 0


def test_well_formed():
    x = relay.Var("x")
    v = relay.const(np.float32(1.0))
    let = relay.Let(x, v, x)
    assert analysis.well_formed(x) and analysis.well_formed(let)
    assert not analysis.well_formed(relay.Let(x, v, let))  # x bound twice
    f = relay.Function([x], x)
    assert analysis.well_formed(relay.Let(relay.Var("y"), f, relay.Let(relay.Var("z"), f, v)))
    assert not analysis.well_formed(relay.Tuple([let, relay.Let(x, v, x)]))
    y = relay.Var("y")
    assert not analysis.well_formed(relay.Tuple([relay.Let(y, v, y), y]))  # used out of scope


def test_call_graph_counts_calls_and_recursion():
    mod = tvm.IRModule({})
    a, b = relay.var("a", shape=(2,)), relay.var("b", shape=(2,))
    g0, g1, rec = relay.GlobalVar("g0"), relay.GlobalVar("g1"), relay.GlobalVar("rec")
    mod[g0] = relay.Function([a, b], a + b)
    c, d = relay.var("c", shape=(2,)), relay.var("d", shape=(2,))
    mod[g1] = relay.Function([c, d], g0(c, d) * g0(d, c))  # two call sites
    i = relay.var("i", shape=(), dtype="int32")
    mod[rec] = relay.Function([i], rec(i - relay.const(1)))
    p = relay.var("p", shape=(2,))
    mod["main"] = relay.Function([p], g1(p, p))
    cg = analysis.CallGraph(mod)
    assert cg.module is mod
    assert cg.ref_count(g0) == 2 and cg.ref_count("g1") == 1 and cg.ref_count("main") == 0
    assert cg.global_call_count(g1) == 2 and cg.global_call_count(g0) == 0
    assert cg.is_recursive(rec) and not cg.is_recursive(g1)
    assert "#refs = 2" in cg.print_var(g0)
    order = cg.topo_order()
    assert order.index("main") < order.index("g1") < order.index("g0")
    with pytest.raises(tvm.TVMError, match="not in the module"):
        cg.ref_count("nope")


def test_op_registry_from_python():
    from tvmlite.relay.op import registry
    generation = registry.generation()
    try:
        _check_op_registry_from_python()
    finally:  # leave the registry as it was (relay.build's network cache keys on it)
        registry._OPS.pop("helpers_custom_op", None)
        relay.op.get("exp").reset_attr("ftest_helpers")
        registry.restore_generation(generation)


def _check_op_registry_from_python():
    from tvmlite.relay.op import op as _op
    from tvmlite.relay.testing.temp_op_attr import TempOpAttr
    assert relay.op.get("log").support_level == 1 and relay.op.get("abs").support_level == 3
    tvm.ir.register_op_attr("exp", "ftest_helpers", lambda v: v + 1)
    assert relay.op.get("exp").get_attr("ftest_helpers")(1) == 2
    with TempOpAttr("exp", "ftest_helpers", lambda v: v + 2):
        assert relay.op.get("exp").get_attr("ftest_helpers")(1) == 3
    assert relay.op.get("exp").get_attr("ftest_helpers")(1) == 2
    relay.op.get("exp").reset_attr("ftest_helpers")
    _op.register("helpers_custom_op", "an op for this test")
    op = _op.get("helpers_custom_op")
    x = relay.var("x", shape=(2, 3), dtype="float32")
    call = relay.Call(op, [x, x])
    with pytest.raises(tvm.TVMError, match="no type relation"):
        relay.transform.InferType()(tvm.IRModule.from_expr(call))
    op.set_num_inputs(2)
    op.add_type_rel("Broadcast")
    op.set_support_level(1)
    typed = relay.transform.InferType()(tvm.IRModule.from_expr(relay.Call(op, [x, x])))
    assert tuple(typed["main"].body.checked_type.shape) == (2, 3)
    assert op.num_inputs == 2 and op.support_level == 1


def test_variable_lists_follow_classic_visit_order():
    x, y, z, a = (relay.Var(n) for n in "xyza")
    f1 = relay.Function([x, y, z], relay.Let(a, x, relay.Tuple([])))
    assert analysis.bound_vars(f1) == [x, y, z, a]
    assert analysis.all_vars(relay.Function([x], relay.Let(y, relay.Tuple([]), z))) == [x, y, z]
    assert analysis.free_vars(relay.Function([x], relay.Tuple([y, x, z]))) == [y, z]
    p = relay.prelude.Prelude(tvm.IRModule({}))
    _, cons, nil = p.mod.get_type("List")
    pv, pc = relay.PatternVar, relay.PatternConstructor
    m = relay.Match(nil(), [relay.Clause(pc(nil), z),
                            relay.Clause(pc(cons, [pv(x), pv(y)]), cons(x, y))])
    assert analysis.bound_vars(m) == [x, y] and analysis.free_vars(m) == [z]
    assert analysis.all_vars(m) == [z, x, y]
    # a pattern variable bound twice is not well formed
    assert analysis.well_formed(m)
    twice = relay.Match(nil(), [relay.Clause(pc(cons, [pv(x), relay.PatternWildcard()]), x),
                                relay.Clause(pv(x), x)])
    assert not analysis.well_formed(twice)


def test_type_variable_lists():
    a, b, c = relay.TypeVar("a"), relay.TypeVar("b"), relay.TypeVar("c")
    ft = relay.FuncType([b], c, [a])
    assert analysis.all_type_vars(ft) == [a, b, c]
    assert analysis.bound_type_vars(ft) == [a] and analysis.free_type_vars(ft) == [b, c]
    x, y, z = relay.Var("x", a), relay.Var("y", b), relay.Var("z", c)
    f = relay.Function([x], relay.Let(y, x, z), None, [a])
    assert analysis.all_type_vars(f) == [a, b, c]
    assert analysis.free_type_vars(f) == [b, c]
    assert analysis.bound_type_vars(relay.Let(x, relay.Function([], relay.Tuple([]), None,
                                                                [b, c]), x)) == [b, c]
    assert analysis.all_type_vars(relay.Function([relay.Var("w")], relay.Tuple([]))) == []
    # kinds: a shape variable and a type variable are not interchangeable
    s = relay.TypeVar("s", relay.TypeKind.ShapeVar)
    assert relay.FuncType([], a, [a]) == relay.FuncType([], b, [b])
    assert relay.FuncType([], a, [a]) != relay.FuncType([], s, [s])


def test_check_kind():
    k = relay.TypeKind
    tp, shp = relay.TypeVar("tp"), relay.TypeVar("s", k.ShapeVar)
    tt = relay.TensorType((1, 2, 3))
    rel = relay.TypeRelation(None, [tt, tp], 1, None)
    ft = relay.FuncType([tp, tt], relay.TupleType([tp, tt]), [tp], [rel])
    assert analysis.check_kind(ft) == k.Type and analysis.check_kind(rel) == k.Constraint
    assert analysis.check_kind(shp) == k.ShapeVar
    gtv = relay.GlobalTypeVar("box")
    mod = tvm.IRModule()
    mod[gtv] = relay.TypeData(gtv, [relay.TypeVar("a")], [])
    assert analysis.check_kind(gtv) == k.AdtHandle
    assert analysis.check_kind(gtv(tt), mod) == k.Type
    for bad in (relay.TupleType([tt, shp]), relay.RefType(shp), relay.FuncType([], shp, [shp]),
                relay.TypeCall(relay.GlobalTypeVar("v", k.Type), [])):
        with pytest.raises(tvm.error.TVMError, match="check_kind"):
            analysis.check_kind(bad)
    with pytest.raises(tvm.error.TVMError, match="takes 1 type argument"):
        analysis.check_kind(gtv(), mod)
    # a function type with constraints is kept, but inference does not solve them
    f = relay.Var("f", ft)
    call = f(relay.var("x", shape=(1, 2, 3)), relay.var("y", shape=(1, 2, 3)))
    with pytest.raises(tvm.error.TVMError, match="type constraints"):
        relay.transform.InferTypeLocal(call)
