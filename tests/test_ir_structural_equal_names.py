"""structural_equal / structural_hash: block names are labels, not structure (as in TVM)."""
from tvmlite.ir import structural_equal, structural_hash
from tvmlite.script import tir as T


@T.prim_func
def named_b(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
    for i in range(6):
        with T.block("B"):
            vi = T.axis.spatial(6, i)
            B[vi] = A[vi] + 1.0


@T.prim_func
def named_x(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
    for i in range(6):
        with T.block("X"):
            vi = T.axis.spatial(6, i)
            B[vi] = A[vi] + 1.0


@T.prim_func
def other_body(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
    for i in range(6):
        with T.block("B"):
            vi = T.axis.spatial(6, i)
            B[vi] = A[vi] + 2.0


def test_block_names_do_not_matter():
    assert structural_equal(named_b.body, named_x.body)
    assert structural_hash(named_b.body) == structural_hash(named_x.body)


def test_block_bodies_still_matter():
    assert not structural_equal(named_b.body, other_body.body)
    assert not structural_equal(named_x.body, other_body.body)
