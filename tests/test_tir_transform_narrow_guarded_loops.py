"""NarrowGuardedLoops: a serial loop whose whole body is an ``if`` bounding the loop variable
by invariant values runs those bounds; every other loop is left as it is. Each case is built
and compared with numpy (or with the function before the pass)."""
import numpy as np

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import tir as T
from tvmlite.tir.transform import NarrowGuardedLoops


def _loops(func):
    found = []
    tvm.tir.stmt_functor.post_order_visit(
        func.body, lambda x: found.append(x) if isinstance(x, tvm.tir.For) else None)
    return {lp.loop_var.name: lp for lp in found}


def test_a_data_dependent_reduction_runs_its_length():
    X = te.placeholder((10,), name="X")
    L = te.placeholder((5,), "int32", name="L")

    def f(i):
        k = te.reduce_axis((0, L[i]), name="k")
        return te.sum(X[k], axis=k)

    C = te.compute((5,), f, name="C")
    s = te.create_schedule(C.op)
    text = str(tvm.lower(s, [X, L, C], simple_mode=True))
    assert "for k in range(T.max(L[i], 0)):" in text and "2147483647" not in text
    fn = tvm.build(s, [X, L, C])
    x = np.random.rand(10).astype("float32")
    lens = np.array([0, 3, 10, 1, -2], "int32")  # a negative length is an empty range
    c = tvm.nd.array(np.full(5, 9, "float32"))
    fn(tvm.nd.array(x), tvm.nd.array(lens), c)
    np.testing.assert_allclose(c.numpy(), [x[:max(n, 0)].sum() for n in lens], rtol=1e-5)


@T.prim_func
def guarded(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"),
            lo: T.int32, hi: T.int32):
    for i in range(2, 14):
        if lo <= i and i < hi and i % 3 != 0:
            B[i] = A[i] * 2.0
    for j in range(16):
        if j < hi:
            B[j] = B[j] + 1.0
        else:
            B[j] = B[j] - 1.0
    for k in range(16):
        if k < T.Cast("int32", B[0]):  # B is written in the loop: the bound is not invariant
            B[k] = B[k] + 3.0
    for m in T.parallel(16):
        if m < hi:
            B[m] = B[m] * 0.5


def test_bounds_become_the_range_and_other_loops_stay():
    after = NarrowGuardedLoops()(tvm.IRModule({"main": guarded}))["main"]
    loops = _loops(after)
    assert str(loops["i"].min) == "T.max(2, lo)"
    assert str(loops["i"].extent) == "T.max(T.min(14, hi) - T.max(2, lo), 0)"
    assert isinstance(loops["i"].body, tvm.tir.IfThenElse)  # i % 3 != 0 stays a guard
    for name in ("j", "k", "m"):  # an else branch, a bound written inside, a parallel loop
        assert loops[name].extent.value == 16 and loops[name].min.value == 0
    rng = np.random.default_rng(0)
    for lo, hi in [(0, 16), (5, 9), (9, 5), (-3, 40), (13, 14)]:
        a = rng.random(16, dtype=np.float32)
        outs = []
        for func in (guarded, after):
            b = tvm.nd.array(np.full(16, 4.0, "float32"))
            tvm.build(func, target="llvm")(tvm.nd.array(a), b, lo, hi)
            outs.append(b.numpy())
        np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
