"""te.hybrid.script: Python loop nests parsed into a HybridOp, built with tvm.build and compared
with the same function run as Python on numpy arrays (the emulation)."""
import linecache

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.te.hybrid import script
from tvmlite.te.hybrid.runtime import HYBRID_GLOBALS


def _run(op_outs, args, np_args, ref):
    """Build the schedule of ``op_outs`` over ``args`` and compare with ``ref`` (numpy)."""
    outs = op_outs if isinstance(op_outs, list) else [op_outs]
    s = te.create_schedule(outs[0].op)
    f = tvm.build(s, list(args) + outs)
    refs = ref if isinstance(ref, (list, tuple)) else [ref]
    nd_outs = [tvm.nd.array(np.zeros(r.shape, r.dtype)) for r in refs]
    f(*[tvm.nd.array(a) if isinstance(a, np.ndarray) else a for a in np_args], *nd_outs)
    for got, want in zip(nd_outs, refs):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


@script
def outer_product(n, m, a, b):
    """A docstring, skipped by the parser."""
    c = output_tensor((n, m), a.dtype)
    for i in range(n):
        for j in range(m):
            assert i < n and j < m, "index out of range!"
            c[i, j] = a[i] * b[j]
    return c


def test_outer_product_symbolic_sizes(rng):
    n, m = te.size_var("n"), te.size_var("m")
    a, b = te.placeholder((n,), name="a"), te.placeholder((m,), name="b")
    c = outer_product(n, m, a, b)
    op = c.op
    assert isinstance(op, te.HybridOp) and isinstance(op, te.ExternOp)
    assert op.name == "outer_product" and op.tag == "HybridOp"
    assert isinstance(op.body, tvm.tir.For) and op.body.loop_var.name == "i"
    assert [iv.var.name for iv in op.axis] == ["i", "j"]
    an, bn = rng.random(7).astype("float32"), rng.random(9).astype("float32")
    ref = outer_product(7, 9, an, bn)
    np.testing.assert_allclose(ref, np.outer(an, bn), rtol=1e-6)
    _run(c, [n, m, a, b], [7, 9, an, bn], ref)
    for key in HYBRID_GLOBALS:  # the emulation leaves the module's globals as they were
        assert key not in globals()


def test_conv_like_nest_with_allocate(rng):
    @script
    def conv1d(x, w):
        out = output_tensor((x.shape[0] - w.shape[0] + 1,), x.dtype)
        acc = allocate((1,), x.dtype, "local")
        for i in range(x.shape[0] - w.shape[0] + 1):
            acc[0] = 0.0
            for k in range(w.shape[0]):
                acc[0] += x[i + k] * w[k]
            out[i] = acc[0]
        return out

    @script
    def blur(img):
        out = output_tensor((img.shape[0] - 2, img.shape[1] - 2), img.dtype)
        for i in range(img.shape[0] - 2):
            row = allocate((img.shape[1],), img.dtype)
            for j in range(img.shape[1]):
                row[j] = img[i, j] + img[i + 1, j] + img[i + 2, j]
            for j in range(img.shape[1] - 2):
                out[i, j] = (row[j] + row[j + 1] + row[j + 2]) / 9.0
        return out

    x = te.placeholder((23,), name="x")
    w = te.placeholder((5,), name="w")
    xn, wn = rng.random(23).astype("float32"), rng.random(5).astype("float32")
    ref = conv1d(xn, wn)
    np.testing.assert_allclose(ref, np.convolve(xn, wn[::-1], "valid"), rtol=1e-5)
    _run(conv1d(x, w), [x, w], [xn, wn], ref)

    img = te.placeholder((11, 13), name="img")
    imn = rng.random((11, 13)).astype("float32")
    _run(blur(img), [img], [imn], blur(imn))


def test_if_elif_else_min_max_abs(rng):
    @script
    def clip(a, lo, hi):
        b = output_tensor(a.shape, a.dtype)
        c = output_tensor(a.shape, "int32")
        for i in range(a.shape[0]):
            if a[i] < lo:
                c[i] = -1
            elif a[i] > hi:
                c[i] = 1
            else:
                c[i] = 0
            b[i] = max(min(a[i], hi), lo) + abs(a[i]) * 0.0
            if 0 <= i < 3 and not i == 1:
                b[i] = b[i] + 100.0
        return b, c

    a = te.placeholder((17,), name="a")
    an = rng.standard_normal(17).astype("float32")
    ref = clip(an, -0.5, 0.5)
    want_b = np.clip(an, -0.5, 0.5)
    want_b[[0, 2]] += 100
    np.testing.assert_allclose(ref[0], want_b, rtol=1e-6)
    b, c = clip(a, -0.5, 0.5)
    assert b.op is c.op and b.op.num_outputs == 2
    _run([b, c], [a], [an], ref)


def test_const_range_unrolls_at_parse_time(rng):
    @script
    def unrolled(a, coef):
        b = output_tensor((a.shape[0],), a.dtype)
        for i in range(a.shape[0]):
            s = 0.0
            for k in const_range(3):
                if k % 2 == 0:
                    s += a[i] * coef[k]
                else:
                    s -= a[i] * coef[k]
            b[i] = s
        return b

    a = te.placeholder((9,), name="a")
    b = unrolled(a, [2, 3, 5])
    fors = []
    tvm.tir.stmt_functor.post_order_visit(
        b.op.body, lambda n: fors.append(n) if isinstance(n, tvm.tir.For) else None)
    assert len(fors) == 1  # the k loop is gone
    an = rng.random(9).astype("float32")
    ref = unrolled(an, [2, 3, 5])
    np.testing.assert_allclose(ref, an * 4, rtol=1e-6)
    _run(b, [a], [an], ref)


def test_parallel_vectorize_unroll_annotations(rng):
    @script
    def looptype(a, b, c):
        d = output_tensor((16,), "int32")
        e = output_tensor((16,), "int32")
        f = output_tensor((16,), "int32")
        for i in parallel(16):
            d[i] = a[i]
        for j in vectorize(16):
            e[j] = b[j] + 1
        for k in unroll(16):
            f[k] = c[k] * 2
        return d, e, f

    a, b, c = (te.placeholder((16,), name=n, dtype="int32") for n in "abc")
    d, e, f = looptype(a, b, c)
    kinds = [s.kind for s in d.op.body]
    assert kinds == [tvm.tir.ForKind.PARALLEL, tvm.tir.ForKind.VECTORIZED,
                     tvm.tir.ForKind.UNROLLED]
    arrs = [rng.integers(-50, 50, 16).astype("int32") for _ in range(3)]
    _run([d, e, f], [a, b, c], arrs, looptype(*arrs))


def test_tuple_return_and_scalar_args_math(rng):
    @script
    def intrin(a, n, scale):
        b = output_tensor((n,), "float32")
        c = output_tensor((n,), "int32")
        for i in range(1, n + 1):
            x = a[i - 1]
            b[i - 1] = sqrt(x) + exp(x) * scale - log(x + 1.0) + sigmoid(x) + tanh(x) \
                + power(x, 2.0)
            c[i - 1] = popcount(int32(x * 100.0)) + len(a) + int32(float32(i))
        return b, c

    n = te.var("n")
    a = te.placeholder((n,), name="a")
    b, c = intrin(a, n, 0.5)
    an = rng.random(15).astype("float32") + 0.1
    ref = intrin(an, 15, 0.5)
    assert ref[0].dtype == np.float32 and ref[1].dtype == np.int32
    _run([b, c], [n, a], [15, an], ref)


def test_numpy_emulation_runs_python():
    @script
    def cumsum(a):
        b = output_tensor(a.shape, a.dtype)
        b[0] = a[0]
        for i in range(1, a.shape[0]):
            b[i] = b[i - 1] + a[i]
        return b

    an = np.arange(10, dtype="float32")
    np.testing.assert_equal(cumsum(an), np.cumsum(an))
    a = te.placeholder((10,), name="a")
    _run(cumsum(a), [a], [an], np.cumsum(an))


def test_split_of_hybrid_loops_is_refused():
    a = te.placeholder((8,), name="a")
    c = outer_product(8, 8, a, a)
    s = te.create_schedule(c.op)
    with pytest.raises(tvm.TVMError, match="hybrid script outer_product"):
        s[c].split(c.op.axis[0], factor=2)


@pytest.mark.parametrize("src, what", [
    ("while i < 3:\n        i += 1", "While"),
    ("for j in range(0, 4, 2):\n        b[j] = 1.0", "range takes"),
    ("b[0] = [x for x in range(3)][0]", "ListComp"),
    ("b[0] = foo(a[0])", "unsupported call of foo"),
    ("b[0] = a.size", "attribute .size"),
])
def test_unsupported_syntax_names_construct_and_line(src, what):
    code = ("def bad(a):\n    b = output_tensor((4,), 'float32')\n    i = 0\n"
            f"    {src}\n    return b\n")
    ns = {}
    exec(compile(code, "<hybrid-test>", "exec"), ns)
    linecache.cache["<hybrid-test>"] = (len(code), None, code.splitlines(True), "<hybrid-test>")
    a = te.placeholder((4,), name="a")
    with pytest.raises(tvm.TVMError, match="line 4") as err:
        script(ns["bad"])(a)
    assert what in str(err.value)


def _hybrid_module_roundtrip(sch, ins, outs, np_ins, ref, tmp_path):
    """hybrid.build of ``sch``: the source runs as Python (numpy), parses back into a HybridOp
    that builds, and survives save/load; every result equals ``ref``."""
    mod = te.hybrid.build(sch, ins, outs)
    src = mod.get_source()
    assert "def hybrid_func(" in src
    refs = ref if isinstance(ref, (list, tuple)) else [ref]
    got = mod(*np_ins)
    for g, r in zip(got if isinstance(got, tuple) else [got], refs):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)
    mod.save(str(tmp_path / "h"))
    again = te.hybrid.HybridModule()
    again.load(str(tmp_path / "h.py"))
    assert again.name == "hybrid_func" and again.get_source() == src
    _run(again(*ins), [x for x in ins if isinstance(x, te.Tensor)],
         [x for x in np_ins if isinstance(x, np.ndarray)], ref)
    return src


def test_hybrid_build_of_scheduled_compute(rng, tmp_path):
    # reduction + compute_at under a non-divisible split, parallel and unrolled loops
    a = te.placeholder((13, 7), name="a")
    k = te.reduce_axis((0, 7), "k")
    rs = te.compute((13,), lambda i: te.sum(a[i, k] * 2.0, axis=k), name="rs")
    c = te.compute((13,), lambda i: te.max(rs[i] - 1.0, 0.5), name="c")
    s = te.create_schedule(c.op)
    xo, xi = s[c].split(c.op.axis[0], factor=4)
    s[rs].compute_at(s[c], xo)
    s[c].parallel(xo)
    s[c].unroll(xi)
    an = rng.standard_normal((13, 7)).astype("float32")
    src = _hybrid_module_roundtrip(s, [a], [c], [an],
                                   np.maximum((an * 2).sum(1) - 1, 0.5), tmp_path)
    assert "parallel(" in src and "unroll(" in src and "allocate(" in src


def test_hybrid_build_symbolic_shape_and_script_op(rng, tmp_path):
    n, m = te.size_var("n"), te.size_var("m")
    a = te.placeholder((n,), name="a")
    b = te.placeholder((m,), name="b")
    c = outer_product(n, m, a, b)
    s = te.create_schedule(c.op)
    an = rng.standard_normal(5).astype("float32")
    bn = rng.standard_normal(3).astype("float32")
    mod = te.hybrid.build(s, [n, m, a, b], [c])
    np.testing.assert_allclose(mod(5, 3, an, bn), np.outer(an, bn), rtol=1e-6)
    out = mod(n, m, a, b)  # te arguments: a new HybridOp
    f = tvm.build(te.create_schedule(out.op), [n, m, a, b, out])
    cn = tvm.nd.empty((5, 3), "float32")
    f(5, 3, tvm.nd.array(an), tvm.nd.array(bn), cn)
    np.testing.assert_allclose(cn.numpy(), np.outer(an, bn), rtol=1e-6)


def test_script_calls_another_script(rng):
    @script
    def twice_outer(a, b):
        c = outer_product(3, 5, a, b)
        d = output_tensor(c.shape, c.dtype)
        for i in range(3):
            for j in range(5):
                d[i, j] = c[i, j] * 2.0 + i
        return d

    an = rng.standard_normal(3).astype("float32")
    bn = rng.standard_normal(5).astype("float32")
    ref = (np.outer(an, bn) * 2 + np.arange(3)[:, None]).astype("float32")
    np.testing.assert_allclose(twice_outer(an, bn), ref, rtol=1e-6)
    a, b = te.placeholder((3,), name="a"), te.placeholder((5,), name="b")
    _run(twice_outer(a, b), [a, b], [an, bn], ref)


def test_list_of_tensors_argument(rng):
    @script
    def sum_list(xs):
        out = output_tensor((7,), xs[0].dtype)
        for i in range(7):
            for j in const_range(len(xs)):
                out[i] += xs[j][i]
        return out

    xs = [te.placeholder((7,), name=f"x{i}") for i in range(3)]
    assert tvm.runtime.convert(xs)[0] is xs[0]  # tensors are objects, not callables
    arrs = [rng.standard_normal(7).astype("float32") for _ in xs]
    _run(sum_list(tvm.runtime.convert(xs)), xs, arrs, sum(arrs))
