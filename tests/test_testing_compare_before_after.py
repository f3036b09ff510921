"""``tvm.testing.CompareBeforeAfter`` in its classic forms: a Pass, a transform method, a
fixture; undecorated or decorated functions; an expected exception."""
import pytest

import tvmlite as tvm
from tvmlite import tir
from tvmlite.script import tir as T


class TestSimplifyRemovesDeadBranch(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.Simplify()

    def before(A: T.Buffer((1,), "int32")):
        if T.bool(True):
            A[0] = 42
        else:
            A[0] = 5

    def expected(A: T.Buffer((1,), "int32")):
        A[0] = 42


class TestScheduleMethodTransform(tvm.testing.CompareBeforeAfter):
    def transform(self):
        def split(mod):
            sch = tir.Schedule(mod)
            (i,) = sch.get_loops("B")
            sch.split(i, [None, 4])
            return sch.mod
        return split

    @T.prim_func
    def before(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2)

    @T.prim_func
    def expected(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i_0, i_1 in T.grid(2, 4):
            with T.block("B"):
                vi = T.axis.spatial(8, i_0 * 4 + i_1)
                B[vi] = A[vi] * T.float32(2)


class TestFixtureTransformExpectingAnError(tvm.testing.CompareBeforeAfter):
    @pytest.fixture
    def transform(self):
        def inline_output(mod):
            sch = tir.Schedule(mod)
            sch.compute_inline(sch.get_block("B"))
            return sch.mod
        return inline_output

    def before(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float32(1)

    expected = tvm.TVMError


def test_a_mismatch_fails_with_the_three_functions():
    class Wrong(tvm.testing.CompareBeforeAfter):
        transform = tvm.tir.transform.Simplify()

        def before(A: T.Buffer((1,), "int32")):
            A[0] = 1 + 2

        def expected(A: T.Buffer((1,), "int32")):
            A[0] = 4

    w = Wrong()
    before = Wrong.__dict__["before"].__wrapped__(w) if hasattr(
        Wrong.__dict__["before"], "__wrapped__") else None
    if before is None:  # pytest keeps the function behind the fixture definition
        pytest.skip("this pytest hides fixture functions")
    expected = Wrong.__dict__["expected"].__wrapped__(w)
    transform = Wrong.__dict__["transform"].__wrapped__(w)
    with pytest.raises(ValueError, match="does not match"):
        w.test_compare(before, expected, transform)
