"""split / fuse refuse annotated loops (classic TVM does: the annotation would have no single
loop to stay on); annotating after the split or fuse is the way, and builds the same result."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func
def scale(A: T.Buffer((5, 13), "float32"), B: T.Buffer((5, 13), "float32")):
    for i, j in T.grid(5, 13):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0


def test_annotated_loop_is_neither_split_nor_fused():
    sch = Schedule(scale)
    i, j = sch.get_loops(sch.get_block("B"))
    sch.annotate(j, "pragma_unroll_explicit", 1)
    with pytest.raises(ScheduleError, match='split.*loop "j".*annotations'):
        sch.split(j, [None, 4])
    with pytest.raises(ScheduleError, match='fuse.*loop "j".*annotations'):
        sch.fuse(i, j)
    sch.unannotate(j, "pragma_unroll_explicit")
    _, ji = sch.split(j, [None, 4])
    sch.annotate(ji, "pragma_unroll_explicit", 1)
    a = np.random.default_rng(5).random((5, 13), dtype=np.float32)
    b = tvm.nd.array(np.zeros((5, 13), "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2.0, rtol=1e-6)


@T.prim_func
def scale3(A: T.Buffer((3, 7, 5), "float32"), B: T.Buffer((3, 7, 5), "float32")):
    for i, j, k in T.grid(3, 7, 5):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * 2.0


@T.prim_func
def scale3_in_opaque(A: T.Buffer((3, 7, 5), "float32"), B: T.Buffer((3, 7, 5), "float32")):
    for i, j, k in T.grid(3, 7, 5):
        with T.block("opaque"):
            T.reads(A[i, j, k])
            T.writes(B[i, j, k])
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, vj, vk] * 2.0


def _run(mod, shape=(3, 7, 5)):
    a = np.random.default_rng(11).random(shape, dtype=np.float32)
    b = tvm.nd.array(np.zeros(shape, "float32"))
    tvm.build(mod, target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2.0, rtol=1e-6)


def _binding_texts(sch, name="B"):
    found = []
    tvm.tir.stmt_functor.post_order_visit(
        sch.mod["main"].body,
        lambda x: found.append(x) if isinstance(x, tvm.tir.BlockRealize)
        and x.block.name_hint == name else None)
    (realize,) = found
    return [str(v) for v in realize.iter_values], str(realize.predicate)


def test_fuse_bindings_are_spelled_as_classic():
    sch = Schedule(scale3)
    sch.fuse(*sch.get_loops(sch.get_block("B")))
    vals, _ = _binding_texts(sch)
    assert vals == ["i_j_k_fused // 35", "i_j_k_fused % 35 // 5", "i_j_k_fused % 5"]
    _run(sch.mod)
    # a fused unit loop contributes 0 (classic), preserve_unit_iters or not
    sch = Schedule(scale3)
    i, j, _ = sch.get_loops(sch.get_block("B"))
    _, i1 = sch.split(i, [3, 1])
    sch.fuse(i1, j)
    assert _binding_texts(sch)[0][:2] == ["i_0", "i_1_j_fused"]
    _run(sch.mod)


def test_split_keeps_unit_iterators_and_the_substituted_predicate():
    sch = Schedule(scale3)
    i, j, k = sch.get_loops(sch.get_block("B"))
    sch.split(i, [2, 1, 2])
    sch.split(j, [None, 8])
    vals, pred = _binding_texts(sch)
    # the unit loops i_1 and j_0 stay in the bindings (preserve_unit_iters), also after a
    # later split; predicates are kept as substituted, joined in order
    assert vals[:2] == ["i_0 * 2 + i_1 * 2 + i_2", "j_0 * 8 + j_1"]
    assert pred == "(i_0 + i_1) * 2 + i_2 < 3 and j_0 * 8 + j_1 < 7"
    _run(sch.mod)
    sch = Schedule(scale3)
    i, _, _ = sch.get_loops(sch.get_block("B"))
    sch.split(i, [2, 1, 2], preserve_unit_iters=False)
    assert _binding_texts(sch)[0][0] == "i_0 * 2 + i_2"
    _run(sch.mod)


@pytest.mark.parametrize("how", ["fuse", "split", "split_fuse"])
def test_loops_over_an_opaque_block_are_substituted_inside_it(how):
    sch = Schedule(scale3_in_opaque)
    i, j, k = sch.get_loops(sch.get_block("opaque"))
    if how in ("split", "split_fuse"):
        _, i1 = sch.split(i, [None, 2])
        _, j1 = sch.split(j, [2, None])
    if how in ("fuse", "split_fuse"):
        sch.fuse(*sch.get_loops(sch.get_block("opaque")))
    # no loop variable of the original nest is left anywhere in the function
    text = sch.mod.script()
    for gone in ("[i, j, k]", "remap"):
        assert gone not in text
    _run(sch.mod)


def test_unit_loop_kept_in_a_split_predicate_does_not_stop_reorder():
    """``split(j, [None, 16])`` of a loop of 7 keeps the unit loop ``j_0`` in the predicate
    ``j_0 * 16 + j_1 < 7``; a unit loop is a constant, so reordering around it is legal."""
    sch = Schedule(scale3)
    i, j, k = sch.get_loops(sch.get_block("B"))
    j0, j1 = sch.split(j, [None, 16])
    assert _binding_texts(sch)[1] == "j_0 * 16 + j_1 < 7"
    sch.reorder(j1, k, i, j0)
    _run(sch.mod)
