"""Expressions nested thousands deep: no RecursionError from construction, visitors,
simplifier, printer or codegen (tvmlite.deep_recursion); 10,000 deep is the documented
command ``TVMLITE_DEEP=10000 python -m pytest tests/test_deep_expressions.py``."""
import os
import sys

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import deep_recursion, te, tir
from tvmlite.tir.stmt_functor import post_order_visit

DEPTH = int(os.environ.get("TVMLITE_DEEP", "1500"))


@pytest.fixture(autouse=True)
def default_recursion_limit():
    """Python's default limit, whatever other tests set: the deep path must be taken."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(old)


def _chain(x, depth):
    e = x
    for k in range(depth):
        e = e + x * 0.5 if k % 2 else e * 0.999
    return e


def _reference(a, depth):
    e = a.astype("float64")
    for k in range(depth):
        e = e + a * 0.5 if k % 2 else e * 0.999
    return e


def test_deep_expression_lowers_prints_builds_and_is_right():
    assert DEPTH > sys.getrecursionlimit()
    A = te.placeholder((5,), name="A")
    C = te.compute((5,), lambda i: _chain(A[i], DEPTH), name="C")
    s = te.create_schedule(C.op)
    text = tvm.lower(s, [A, C]).script()
    assert text.count("0.999") >= DEPTH // 2
    f = tvm.build(s, [A, C])
    a = np.random.uniform(0.1, 0.2, 5).astype("float32")
    c = tvm.nd.empty((5,))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), _reference(a, DEPTH), rtol=1e-3)
    assert sys.getrecursionlimit() == 1000  # restored


def test_deep_expression_keeps_the_pass_context():
    A = te.placeholder((5,), name="A")
    C = te.compute((5,), lambda i: _chain(A[i], DEPTH), name="C")
    seen = []

    def spy(func, mod, ctx):
        seen.append(1)
        return func

    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(1, spy)]}):
        tvm.lower(te.create_schedule(C.op), [A, C])
    assert seen


def test_dtype_and_post_order_visit_are_iterative():
    x = tir.Var("x", "int32")
    e = x
    for _ in range(20000):
        e = e + 1
    assert e.dtype == "int32"
    count = []
    post_order_visit(e, lambda n: count.append(n))
    assert len(count) == 2 * 20000 + 1


def test_beyond_the_raised_limit_is_a_tvmerror_naming_it(monkeypatch):
    monkeypatch.setattr(deep_recursion, "RECURSION_LIMIT", 3000)
    A = te.placeholder((5,), name="A")
    C = te.compute((5,), lambda i: _chain(A[i], 3000), name="C")
    with pytest.raises(tvm.TVMError, match="nested too deeply.*RECURSION_LIMIT"):
        tvm.lower(te.create_schedule(C.op), [A, C])


def test_deep_tvmscript_parses_prints_builds_and_is_right():
    from tvmlite.script import from_source

    expr = " + ".join(["A[i]"] * DEPTH)
    f = from_source(f'''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = {expr}
''')
    assert f.script().count("A[i]") == DEPTH
    m = tvm.build(f)
    a, b = np.random.rand(4).astype("float32"), tvm.nd.empty((4,))
    m(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.astype("float64") * DEPTH, rtol=1e-3)
