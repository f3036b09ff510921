"""The reference interpreter (``tvmlite.tir.interpreter``): bounds checks and exact integer
semantics."""
import numpy as np
import pytest

from tvmlite.tir.interpreter import run


def test_interpreter_checks_bounds_and_shapes():
    from tvmlite import te

    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i + 1], name="B")
    f = te.create_prim_func([A, B])
    with pytest.raises(IndexError, match="out of bounds"):
        run(f, np.zeros(4, "float32"), np.zeros(4, "float32"))
    with pytest.raises(ValueError, match="shape"):
        run(f, np.zeros(5, "float32"), np.zeros(4, "float32"))


def test_interpreter_integer_semantics():
    from tvmlite import te, tir

    A = te.placeholder((4,), "int32", name="A")
    B = te.compute((4,), lambda i: tir.truncdiv(A[i], 3) + tir.truncmod(A[i], 3) * 10
                   + A[i] // 3 * 100 + A[i] % 3 * 1000, name="B")
    C = te.compute((4,), lambda i: A[i].astype("int8"), name="C")
    f = te.create_prim_func([A, B, C])
    a = np.array([-7, -1, 5, 300], "int32")
    b, c = np.zeros(4, "int32"), np.zeros(4, "int8")
    run(f, a, b, c)
    np.testing.assert_array_equal(
        b, np.trunc(a / 3).astype(int) + np.fmod(a, 3) * 10 + a // 3 * 100 + a % 3 * 1000)
    np.testing.assert_array_equal(c, a.astype("int8"))
