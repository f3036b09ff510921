"""``te.create_prim_func`` as classic v0.12 builds it: compute bodies simplified, and under the
alias the printed ``T.func_attr`` keeps ``global_symbol`` so a printed function reparses equal."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import _classic, te


def _padded_conv1d(n, k):
    A = te.placeholder((n,), name="A")
    W = te.placeholder((k,), name="W")
    P = te.compute((n + k - 1,), lambda i: tvm.tir.if_then_else(
        tvm.tir.all(i >= k // 2, i - k // 2 < n), A[i - k // 2], 0.0), name="P")
    r = te.reduce_axis((0, k), name="r")
    B = te.compute((n,), lambda i: te.sum(P[i + r] * W[r], axis=r), name="B")
    return A, W, B


def test_bodies_are_simplified_and_compute_the_same():
    n, k = 29, 5
    A, W, B = _padded_conv1d(n, k)
    func = te.create_prim_func([A, W, B])
    text = func.script()
    assert "2 <= v_i" in text and "v_i < 31" in text  # i >= 2, i - 2 < 29 simplified
    f = tvm.build(func, target="llvm")
    a, w = np.random.rand(n).astype("float32"), np.random.rand(k).astype("float32")
    b = tvm.nd.array(np.zeros(n, "float32"))
    f(tvm.nd.array(a), tvm.nd.array(w), b)
    np.testing.assert_allclose(b.numpy(), np.convolve(a, w[::-1], "same"), rtol=1e-5)


@pytest.fixture
def classic_parser():
    old = _classic.PARSER_V012
    _classic.PARSER_V012 = True
    yield
    _classic.PARSER_V012 = old


def test_printed_global_symbol_survives_a_classic_roundtrip(classic_parser):
    A, W, B = _padded_conv1d(11, 3)
    func = te.create_prim_func([A, W, B])
    text = func.script()
    assert '"global_symbol": "main"' in text
    back = tvm.script.from_source(text)
    assert back.attrs["global_symbol"] == "main"
    tvm.ir.assert_structural_equal(func, back)


def test_global_symbol_implied_by_the_name_outside_the_alias():
    A, W, B = _padded_conv1d(11, 3)
    text = te.create_prim_func([A, W, B]).script()
    assert "global_symbol" not in text and "def main(" in text
