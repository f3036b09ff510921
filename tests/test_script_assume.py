"""``T.assume``: parsed, printed, round-tripped, and compiled to nothing (results unchanged);
``tvm.ir.base.get_first_structural_mismatch`` names where two functions differ."""
import numpy as np

import tvmlite as tvm
from tvmlite.ir.structural import structural_equal
from tvmlite.script import tir as T


@T.prim_func
def clamp_add(A: T.Buffer((11,), "float32"), B: T.Buffer((11,), "float32")):
    for i in range(11):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            T.evaluate(T.assume(A[vi] >= 0.0))
            T.assume(vi < 11)
            B[vi] = T.max(A[vi], 0.0) + 1.0


@T.prim_func
def clamp_add_changed(A: T.Buffer((11,), "float32"), B: T.Buffer((11,), "float32")):
    for i in range(11):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            T.evaluate(T.assume(A[vi] >= 0.0))
            T.assume(vi < 10)
            B[vi] = T.max(A[vi], 0.0) + 1.0


def test_assume_prints_parses_and_compiles_to_nothing():
    text = clamp_add.script()
    assert "T.assume(A[vi] >= T.float32(0))" in text and "T.assume(vi < 11)" in text
    again = tvm.script.from_source(text)
    assert structural_equal(again, clamp_add)
    assert tvm.tir.assume(tvm.tir.const(True)).dtype == "bool"
    a = np.random.default_rng(4).random(11).astype("float32") - 0.5
    b = tvm.nd.empty((11,), "float32")
    lib = tvm.build(clamp_add, target="llvm")
    lib(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.maximum(a, 0) + 1, rtol=1e-6)
    assert "(void)(" not in lib.get_source()  # no statement left for the assumptions


def test_first_structural_mismatch():
    assert tvm.ir.base.get_first_structural_mismatch(clamp_add, clamp_add) is None
    where = tvm.ir.base.get_first_structural_mismatch(clamp_add, clamp_add_changed)
    assert where is not None and "body" in where[0]
