"""Passes as objects on an IRModule: module_pass, prim_func_pass, Sequential, the lowering
pipeline as a list of passes, and ``tir.add_lower_pass`` entries."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T


def _scaled(n=37, factor=8):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=factor)
    return s, A, B


def _check_scaled(f, rng, n=37):
    a = tvm.nd.array(rng.standard_normal(n).astype("float32"))
    b = tvm.nd.empty((n,), "float32")
    f(a, b)
    np.testing.assert_allclose(b.numpy(), a.numpy() * 2 + 1, rtol=1e-6)


@T.prim_func
def _add_one(a: T.Buffer((13, 7), "float32"), b: T.Buffer((13, 7), "float32")):
    for i, j in T.grid(13, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            b[vi, vj] = a[vi, vj] + T.float32(1)


def test_user_pass_exception_reaches_the_user_unchanged():
    calls = []

    @tvm.tir.transform.prim_func_pass(opt_level=0)
    def broken(func, mod, ctx):
        calls.append(1)
        raise TypeError("my own type error")

    s, A, B = _scaled()
    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(1, broken)]}):
        with pytest.raises(TypeError, match="^my own type error$"):
            tvm.lower(s, [A, B])
    assert calls == [1]  # run once, not retried on the body

    def plain(func, mod, ctx):  # a plain function: the same
        raise ValueError("plain failure")

    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(2, plain)]}):
        with pytest.raises(ValueError, match="^plain failure$"):
            tvm.build(s, [A, B])


def test_plain_function_with_default_arguments_runs_once():
    calls = []

    def spy(func, mod=None, ctx=None):
        calls.append(type(func).__name__)
        return func

    s, A, B = _scaled()
    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(3, spy)]}):
        tvm.lower(s, [A, B])
    assert calls == ["PrimFunc"]


def test_stmt_function_lower_pass_is_classified_by_signature(rng):
    seen = []

    def on_body(stmt):  # the pre-0.8 form: a statement in, a statement out
        seen.append(type(stmt).__name__)
        return stmt

    s, A, B = _scaled()
    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(1, on_body)]}):
        f = tvm.build(s, [A, B])
    assert seen == ["For"]
    _check_scaled(f, rng)

    def two(a, b):
        return a

    with pytest.raises(tvm.TVMError, match="two.*neither a Pass"):
        tvm.transform.PassContext(config={"tir.add_lower_pass": [(1, two)]})
    with pytest.raises(tvm.TVMError, match="phase must be 0, 1, 2 or 3"):
        tvm.transform.PassContext(config={"tir.add_lower_pass": [(4, on_body)]})
    with pytest.raises(tvm.TVMError, match=r"\(phase, pass\)"):
        tvm.transform.PassContext(config={"tir.add_lower_pass": [on_body]})

    def bad(stmt):
        return 3

    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(1, bad)]}):
        with pytest.raises(tvm.TVMError, match="'bad'.*returned int, expected a Stmt"):
            tvm.lower(s, [A, B])


def test_low_level_custom_pass_tutorial_vectorize8(rng):
    """The classic tutorial: a pass that splits innermost loops by 8 and vectorizes them,
    registered as ``prim_func_pass(vectorize8, opt_level=0)``."""
    loops = []

    def find_width8(op):
        if isinstance(op, tvm.tir.For) and isinstance(op.body, tvm.tir.BufferStore):
            loops.append(op)

    def vectorize8(op):
        if op in loops:
            extent = op.extent.value
            name = op.loop_var.name
            lo, li = te.var(name + ".outer"), te.var(name + ".inner")
            body = tvm.tir.stmt_functor.substitute(op.body, {op.loop_var: lo * 8 + li})
            body = tvm.tir.For(li, 0, 8, tvm.tir.ForKind.VECTORIZED, body)
            return tvm.tir.For(lo, 0, extent // 8, tvm.tir.ForKind.SERIAL, body)
        return None

    def vectorize(f, mod, ctx):
        tvm.tir.stmt_functor.post_order_visit(f.body, find_width8)
        if not loops:
            return f
        return f.with_body(tvm.tir.stmt_functor.ir_transform(f.body, None, vectorize8,
                                                             ["tir.For"]))

    n = 64
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    with tvm.transform.PassContext(config={"tir.add_lower_pass": [
            (1, tvm.tir.transform.prim_func_pass(vectorize, opt_level=0))]}):
        text = tvm.lower(s, [A, B]).script()
        f = tvm.build(s, [A, B])
    assert "T.Broadcast" in text and "i_outer" in text
    _check_scaled(f, rng, n)


def test_builtin_passes_run_on_an_irmodule_as_tvm_lower_does():
    t = tvm.tir.transform
    mod = tvm.IRModule({"main": _add_one.with_attr("global_symbol", "main")})
    seq = tvm.transform.Sequential([
        t.LowerReductionInit(), t.StorageAlign(), t.LowerBlocks(), t.LowerVirtualThread(),
        t.CompactBufferAllocation(), t.FlattenBuffer(), t.Simplify(), t.UnrollLoop(),
        t.VectorizeLoop(), t.HoistIfThenElse()])
    by_hand = seq(mod)
    assert isinstance(by_hand, tvm.IRModule) and mod["main"] is not by_hand["main"]
    tvm.ir.assert_structural_equal(by_hand, tvm.lower(mod))
    # a PrimFunc in, a PrimFunc out; nothing to do: the very same module
    flat = t.FlattenBuffer()(t.LowerBlocks()(_add_one))
    assert isinstance(flat, tvm.tir.PrimFunc)
    assert t.prim_func_pass(lambda f, m, c: f, name="noop")(by_hand) is by_hand


def test_pipeline_is_a_list_of_passes():
    ctx = tvm.transform.PassContext()
    names = [p.name for p in tvm.driver.lower_passes(ctx)]
    assert names[:3] == ["tir.LowerReductionInit", "tir.StorageAlign", "tir.LowerBlocks"]
    assert names[-3:] == ["tir.UnrollLoop", "tir.VectorizeLoop", "tir.HoistIfThenElse"]
    assert "tir.LoopPartition" in [p.name for p in tvm.driver.lower_passes(ctx, True)]
    p = tvm.tir.transform.prim_func_pass(lambda f, m, c: f, opt_level=0, name="mine")
    ctx = tvm.transform.PassContext(config={"tir.add_lower_pass": [(2, p)]})
    names = [q.name for q in tvm.driver.lower_passes(ctx)]
    assert names[names.index("tir.Simplify") + 1] == "mine"


def test_opt_level_required_and_disabled_passes(rng):
    calls = []

    @tvm.tir.transform.prim_func_pass(opt_level=3, name="late")
    def late(func, mod, ctx):
        calls.append(1)
        return func

    s, A, B = _scaled(64)
    s[B].vectorize(s[B].leaf_iter_vars[-1])
    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(1, late)]}):
        tvm.lower(s, [A, B])
    assert calls == []  # opt_level 3 > the default 2
    with tvm.transform.PassContext(required_pass=["late"],
                                   config={"tir.add_lower_pass": [(1, late)]}):
        tvm.lower(s, [A, B])
    assert calls == [1]
    with tvm.transform.PassContext(disabled_pass=["tir.VectorizeLoop"]):
        text = tvm.lower(s, [A, B]).script()
        f = tvm.build(s, [A, B])
    assert "T.vectorized(8)" in text and "T.Broadcast" not in text
    _check_scaled(f, rng, 64)
    assert "T.Broadcast" in tvm.lower(s, [A, B]).script()


def test_module_pass_function_and_class_forms():
    @tvm.transform.module_pass(opt_level=1)
    def rename(mod, ctx):
        return tvm.IRModule({"renamed": mod["main"]}, mod.attrs)

    assert rename.info.name == "rename" and rename.info.opt_level == 1
    mod = tvm.IRModule({"main": _add_one})
    assert list(rename(mod).functions) == ["renamed"]

    @tvm.transform.module_pass(opt_level=0, name="Count")
    class Count:
        def __init__(self):
            self.n = 0

        def transform_module(self, mod, ctx):
            self.n += 1
            return mod

    # the class form makes a class of passes, built with the decorated class's arguments
    count = Count()
    assert count(mod) is mod and count.info.name == "Count" and count.n == 1
    assert Count.__name__ == "Count" and isinstance(count, tvm.transform.Pass)

    @tvm.tir.transform.prim_func_pass(opt_level=0)
    class AddAttr:
        def transform_function(self, func, mod, ctx):
            return func.with_attr("tagged", True)

    assert AddAttr()(mod)["main"].attrs["tagged"] is True


def test_pass_errors_name_the_pass():
    @tvm.transform.module_pass
    def wrong(mod, ctx):
        return mod["main"]

    with pytest.raises(tvm.TVMError, match="'wrong' returned PrimFunc, expected an IRModule"):
        wrong(tvm.IRModule({"main": _add_one}))
    with pytest.raises(tvm.TVMError, match="'wrong' runs on an IRModule, got int"):
        wrong(3)

    @tvm.tir.transform.prim_func_pass
    def forgot_return(func, mod, ctx):
        pass

    with pytest.raises(tvm.TVMError, match="'forgot_return' returned NoneType for function "
                                           "'main', expected a PrimFunc"):
        forgot_return(_add_one)
    with pytest.raises(tvm.TVMError, match="not a Pass"):
        tvm.transform.Sequential([forgot_return, len])
    with pytest.raises(tvm.TVMError, match="transform_module"):
        tvm.transform.module_pass(type("NoMethod", (), {}))


def test_print_ir_pass_prints_and_returns_the_module(capsys):
    mod = tvm.IRModule({"main": _add_one})
    assert tvm.transform.PrintIR("before lowering")(mod) is mod
    err = capsys.readouterr().err
    assert err.startswith("# PrintIR: before lowering\n") and 'T.block("B")' in err


def _relay_example():
    from tvmlite import relay
    x = relay.var("x", shape=(2, 3))
    c = relay.const(np.full((2, 3), 2.0, "float32"))
    return tvm.IRModule.from_expr(relay.Function([x], relay.add(relay.add(x, c), c)))


def test_relay_function_pass_class_form_with_expr_mutator():
    from tvmlite import relay

    @relay.transform.function_pass(opt_level=1)
    class ScaleConstants:
        """Multiply every constant by ``multiplier``."""

        def __init__(self, multiplier):
            self.multiplier = multiplier

        def transform_function(self, func, mod, ctx):
            obj = self

            class Replace(tvm.relay.ExprMutator):
                def visit_constant(self, c):
                    return relay.multiply(obj.multiplier, c)

            return Replace().visit(func)

    p = ScaleConstants(multiplier=relay.const(3.0))
    assert isinstance(p, relay.transform.FunctionPass) and p.info.name == "ScaleConstants"
    assert p.info.opt_level == 1 and p.multiplier.data.numpy() == 3.0
    out = p(_relay_example())
    mults = []
    relay.analysis.post_order_visit(
        out["main"], lambda n: mults.append(n) if isinstance(n, relay.Call)
        and n.op.name == "multiply" else None)
    assert len(mults) == 1  # the shared constant is rewritten once (memoized)
    assert out["main"].body.checked_type == relay.TensorType((2, 3), "float32")

    @relay.transform.function_pass(opt_level=0, name="Wrong")
    def wrong(func, mod, ctx):
        return func.body

    with pytest.raises(tvm.TVMError, match="'Wrong' returned Call for function 'main'"):
        wrong(_relay_example())


def test_sequential_runs_required_passes_first():
    seen = []

    @tvm.transform.module_pass(opt_level=0, required=["InferType"])
    def needs_types(mod, ctx):
        seen.append(mod["main"].body._checked_type is not None)
        return mod

    tvm.transform.Sequential([needs_types])(_relay_example())
    assert seen == [True]

    @tvm.transform.module_pass(required=["NoSuchPass"])
    def needs_unknown(mod, ctx):
        return mod

    with pytest.raises(tvm.TVMError, match="'NoSuchPass'"):
        tvm.transform.Sequential([needs_unknown])(_relay_example())


def test_pass_info_prints_as_classic():
    info = tvm.relay.transform.EliminateCommonSubexpr().info
    assert str(info) == ("The meta data of the pass - pass name: EliminateCommonSubexpr, "
                         "opt_level: 3, required passes: [\nInferType, ]\n")
    assert repr(tvm.relay.transform.FuseOps().info).endswith("required passes: []\n")


def test_expr_visitor_visits_each_node_once():
    from tvmlite import relay

    class Count(relay.ExprVisitor):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def visit_call(self, call):
            self.calls += 1
            super().visit_call(call)

    v = Count()
    v.visit(_relay_example()["main"])
    assert v.calls == 2
    kinds = []
    relay.analysis.post_order_visit(_relay_example()["main"],
                                    lambda n: kinds.append(type(n).__name__))
    assert kinds[0] == "Var" and kinds[-1] == "Function" and kinds.count("Op") == 1
