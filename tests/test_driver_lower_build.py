"""tvm.lower / tvm.build and the PassContext options."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T


def _vadd(n=64):
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    return A, B, C


def test_lower_returns_irmodule_and_roundtrips():
    A, B, C = _vadd()
    s = te.create_schedule(C.op)
    mod = tvm.lower(s, [A, B, C], simple_mode=True)
    assert isinstance(mod, tvm.IRModule)
    f = mod["main"]
    assert f.attrs["from_legacy_te_schedule"] and f.attrs["tir.noalias"]
    back = tvm.script.from_source(mod.script())
    tvm.ir.assert_structural_equal(back, mod)


def test_lower_expected_ir_for_a_reduction():
    A = te.placeholder((16, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((16,), lambda i: te.sum(A[i, k], axis=k), name="B")
    mod = tvm.lower(te.create_schedule(B.op), [A, B], name="main")

    @T.prim_func
    def expected(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "from_legacy_te_schedule": True,
                     "tir.noalias": True})
        A_1 = T.Buffer((128,), data=A.data)
        for i in range(16):
            B[i] = T.float32(0)
            for k in range(8):
                B[i] = B[i] + A_1[i * 8 + k]

    tvm.ir.assert_structural_equal(mod["main"], expected)


def test_build_irmodule_from_tvmscript_and_lookup_by_name():
    @tvm.script.ir_module
    class Mod:
        @T.prim_func
        def add_one(a: T.Buffer((10,), "float32"), b: T.Buffer((10,), "float32")):
            T.func_attr({"global_symbol": "add_one", "tir.noalias": True})
            for i in range(10):
                with T.block("b"):
                    vi = T.axis.spatial(10, i)
                    b[vi] = a[vi] + T.float32(1)

    rt = tvm.build(Mod, target="llvm")
    a = tvm.nd.array(np.arange(10, dtype="float32"))
    b = tvm.nd.empty((10,), "float32")
    rt["add_one"](a, b)
    np.testing.assert_equal(b.numpy(), np.arange(10) + 1)


def test_pass_context_add_lower_pass_and_print(capsys):
    seen = []

    @tvm.tir.transform.prim_func_pass(opt_level=0)
    def spy(func, mod, ctx):
        seen.append(type(func.body).__name__)
        return func

    A, B, C = _vadd()
    s = te.create_schedule(C.op)
    with tvm.transform.PassContext(opt_level=3, config={"tir.add_lower_pass": [(1, spy)],
                                                        "tvmlite.print_ir_after_all": True}):
        tvm.lower(s, [A, B, C])
    assert seen == ["For"]
    assert "# IR after tir.FlattenBuffer" in capsys.readouterr().err


def test_pass_context_rejects_unknown_option():
    with pytest.raises(tvm.TVMError, match="Invalid config option"):
        tvm.transform.PassContext(config={"tir.no_such_thing": 1})


def test_bound_checker_turns_out_of_bounds_into_tvmerror():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n + 2,), lambda i: A[i], name="B")  # reads past the end of A
    s = te.create_schedule(B.op)
    with tvm.transform.PassContext(config={"tir.instrument_bound_checkers": True}):
        f = tvm.build(s, [A, B])
    a, b = tvm.nd.array(np.ones(4, "float32")), tvm.nd.empty((6,), "float32")
    with pytest.raises(tvm.TVMError, match="Out-of-bounds"):
        f(a, b)


def test_bound_checker_allows_guarded_padding_reads():
    A = te.placeholder((6,), name="A")
    B = te.compute((8,), lambda i: te.if_then_else(te.all(i >= 1, i < 7), A[i - 1], 0.0),
                   name="B")
    s = te.create_schedule(B.op)
    with tvm.transform.PassContext(config={"tir.instrument_bound_checkers": True}):
        f = tvm.build(s, [A, B])
    a, b = tvm.nd.array(np.arange(6, dtype="float32")), tvm.nd.empty((8,), "float32")
    f(a, b)
    np.testing.assert_equal(b.numpy(), np.pad(np.arange(6, dtype="float32"), 1))


def test_build_gpu_bound_function_for_cpu_names_the_loop():
    @T.prim_func
    def kernel(a: T.Buffer((64,), "float32")):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            a[tx] = T.float32(1)

    with pytest.raises(tvm.TVMError, match="tx"):
        tvm.build(kernel, target="llvm")


def test_build_rejects_unknown_target():
    A, B, C = _vadd()
    with pytest.raises(tvm.TVMError):
        tvm.build(te.create_schedule(C.op), [A, B, C], target="no_such_target")


def test_build_default_name_and_entry():
    A, B, C = _vadd(8)
    mod = tvm.build(te.create_schedule(C.op), [A, B, C])
    f = mod[mod.entry_name]
    a, b, c = (tvm.nd.array(np.random.rand(8).astype("float32")) for _ in range(3))
    f(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
    assert "default_function" in mod.get_source()


@pytest.mark.parametrize("target", ["llvm", "c", "llvm -mcpu=x86-64", tvm.target.Target("llvm")])
def test_build_schedule_target_strings_and_name(target):
    A, B, C = _vadd(37)
    s = te.create_schedule(C.op)
    mod = tvm.build(s, [A, B, C], target=target, name="vadd")
    assert "vadd" in mod.get_source()
    rng = np.random.default_rng(5)
    a, b = (tvm.nd.array(rng.standard_normal(37).astype("float32")) for _ in range(2))
    for f in (mod, mod["vadd"], mod[mod.entry_name]):
        c = tvm.nd.empty((37,))
        f(a, b, c)
        np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())


@pytest.mark.parametrize("opt_level", [0, 3])
def test_build_under_each_opt_level(opt_level):
    A, B, C = _vadd(21)
    s = te.create_schedule(C.op)
    _, xi = s[C].split(C.op.axis[0], factor=8)
    s[C].vectorize(xi)
    with tvm.transform.PassContext(opt_level=opt_level):
        assert tvm.transform.PassContext.current().opt_level == opt_level
        f = tvm.build(s, [A, B, C])
    a, b = (tvm.nd.array(np.random.default_rng(i).random(21, dtype="float32")) for i in (1, 2))
    c = tvm.nd.empty((21,))
    f(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())


def test_lower_irmodule_of_blocks_gives_flat_loops():
    A, B, C = _vadd(13)
    mod = tvm.lower(tvm.IRModule({"main": te.create_prim_func([A, B, C])}))

    @T.prim_func
    def expected(A: T.Buffer((13,), "float32"), B: T.Buffer((13,), "float32"),
                 C: T.Buffer((13,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(13):
            C[i] = A[i] + B[i]

    tvm.ir.assert_structural_equal(mod["main"], expected)


def test_build_te_schedule_bound_to_gpu_threads_for_cpu_names_the_loop():
    A, B, C = _vadd(64)
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=16)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    for target in ("llvm", "c"):
        with pytest.raises(tvm.TVMError, match=r"i\.outer.*blockIdx\.x"):
            tvm.build(s, [A, B, C], target=target)


def test_custom_lower_pass_with_stmt_functor():
    """The classic custom-pass recipe: find loops with post_order_visit, rewrite them with
    ir_transform, and register the pass with tir.add_lower_pass."""
    inner = []

    def unroll_inner(func, mod, ctx):
        tvm.tir.stmt_functor.post_order_visit(
            func.body, lambda n: inner.append(n.loop_var) if isinstance(n, tvm.tir.For)
            and isinstance(n.body, tvm.tir.BufferStore) else None)

        def post(n):
            if n.loop_var in inner:
                return tvm.tir.For(n.loop_var, n.min, n.extent, tvm.tir.ForKind.UNROLLED,
                                   n.body)
            return None

        return func.with_body(tvm.tir.stmt_functor.ir_transform(func.body, None, post,
                                                                ["tir.For"]))

    A, B, C = _vadd(40)
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=8)
    p = tvm.tir.transform.prim_func_pass(unroll_inner, opt_level=0, name="unroll_inner")
    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(1, p)]}):
        text = tvm.lower(s, [A, B, C], simple_mode=True).script()
        f = tvm.build(s, [A, B, C])
    assert [v.name for v in inner] == ["i.inner", "i.inner"]  # once by lower, once by build
    # the later unroll pass expands the loop the custom pass marked
    assert "i_inner" not in text and "C[i_outer * 8 + 7] = A[i_outer * 8 + 7]" in text
    rng = np.random.default_rng(2)
    a, b = (tvm.nd.array(rng.standard_normal(40).astype("float32")) for _ in range(2))
    c = tvm.nd.empty((40,))
    f(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())


def test_ir_transform_preorder_replaces_without_descending():
    @T.prim_func
    def func(a: T.Buffer((4,), "float32")):
        for i in range(4):
            a[i] = T.float32(1)

    seen = []
    tvm.tir.stmt_functor.pre_order_visit(func.body, lambda n: seen.append(type(n).__name__)
                                         or not isinstance(n, tvm.tir.For))
    assert seen == ["For"]
    stub = tvm.tir.Evaluate(tvm.tir.const(0))
    out = tvm.tir.stmt_functor.ir_transform(
        func.body, lambda n: stub if isinstance(n, tvm.tir.For) else None,
        lambda n: pytest.fail("postorder must not run below a replaced node"))
    assert out is stub
    same = tvm.tir.stmt_functor.ir_transform(func.body, None, lambda n: None)
    assert same is func.body


def test_bound_checker_in_a_vectorized_parallel_schedule():
    A = te.placeholder((16,), name="A")
    B = te.compute((18,), lambda i: A[i] * 2, name="B")  # the last two read past A
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    s[B].parallel(xo)
    s[B].vectorize(xi)
    with tvm.transform.PassContext(config={"tir.instrument_bound_checkers": True}):
        f = tvm.build(s, [A, B])
    with pytest.raises(tvm.TVMError, match="Out-of-bounds"):
        f(tvm.nd.array(np.ones(16, "float32")), tvm.nd.empty((18,), "float32"))


def _copy_twice():
    @T.prim_func
    def copy_twice(a: T.handle, b: T.handle) -> None:
        A = T.match_buffer(a, (19,))
        B = T.match_buffer(b, (19,))
        for i in range(19):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2)
    return copy_twice


def test_lowering_a_prim_func_promises_unaliased_arguments_unless_configured():
    f = _copy_twice()
    assert "tir.noalias" not in f.attrs
    assert tvm.lower(f)["copy_twice"].attrs["tir.noalias"] is True
    with tvm.transform.PassContext(config={"tir.noalias": False}):
        assert "tir.noalias" not in tvm.lower(f)["copy_twice"].attrs
        A = te.placeholder((19,), name="A")
        B = te.compute((19,), lambda i: A[i] * 2, name="B")
        assert "tir.noalias" not in tvm.lower(te.create_schedule(B.op), [A, B])["main"].attrs
    # a module is lowered as given
    assert "tir.noalias" not in tvm.lower(tvm.IRModule({"main": f}))["main"].attrs
    m = tvm.build(f, target="llvm")
    a = np.random.rand(19).astype("float32")
    b = tvm.nd.array(np.zeros(19, "float32"))
    m(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2)
