"""blockize follows classic TVM's iterator rule: an iterator with no inner part (or only unit
inner loops) moves to the outer block as it is, every other one splits into an outer iterator
(kept even at extent 1, bound to 0) and an inner one. Each case is built and compared with
numpy on random inputs at odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule
from tvmlite.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def scale(A: T.Buffer((13, 11), "float32"), B: T.Buffer((13, 11), "float32")):
    for i, j in T.grid(13, 11):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def rowsum_k_outer(A: T.Buffer((13, 11), "float32"), B: T.Buffer((13,), "float32")):
    for k, i in T.grid(11, 13):
        with T.block("B"):
            vk, vi = T.axis.remap("RS", [k, i])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def _outer(sch, name):
    found = []
    tvm.tir.post_order_visit(sch.mod["main"].body, lambda n: found.append(n) if (
        isinstance(n, tvm.tir.BlockRealize) and n.block.name_hint == name) else None)
    (realize,) = found
    return [(iv.var.name, int(iv.dom.extent), str(v))
            for iv, v in zip(realize.block.iter_vars, realize.iter_values)]


def _run(mod, *arrays):
    nd = [tvm.nd.array(a) for a in arrays]
    tvm.build(mod, target="llvm")(*nd)
    return nd[-1].numpy()


def test_blockize_whole_nest_keeps_unit_outer_iterators():
    sch = Schedule(scale, debug_mask="all")
    i, _ = sch.get_loops(sch.get_block("B"))
    sch.blockize(i)
    assert _outer(sch, "B_o") == [("vi_o", 1, "0"), ("vj_o", 1, "0")]
    a = np.random.default_rng(1).random((13, 11), dtype=np.float32)
    np.testing.assert_allclose(_run(sch.mod, a, np.zeros((13, 11), "float32")), a * 2)
    verify_trace_roundtrip(sch, scale)


def test_blockize_inner_loop_moves_the_outer_iterator_out_as_it_is():
    sch = Schedule(scale)
    _, j = sch.get_loops(sch.get_block("B"))
    sch.blockize(j)
    assert _outer(sch, "B_o") == [("vi", 13, "i"), ("vj_o", 1, "0")]
    a = np.random.default_rng(2).random((13, 11), dtype=np.float32)
    np.testing.assert_allclose(_run(sch.mod, a, np.zeros((13, 11), "float32")), a * 2)


def test_blockize_reduction_outermost_initialises_every_row_once():
    sch = Schedule(rowsum_k_outer, debug_mask="all")
    k, _ = sch.get_loops(sch.get_block("B"))
    sch.blockize(k)
    assert _outer(sch, "B_o") == [("vk_o", 1, "0"), ("vi_o", 1, "0")]
    init = sch.get(sch.get_block("B_o")).init
    assert isinstance(init, tvm.tir.For) and int(init.extent) == 13
    a = np.random.default_rng(3).random((13, 11), dtype=np.float32)
    out = _run(sch.mod, a, np.full((13,), 9, "float32"))  # garbage: the init must run
    np.testing.assert_allclose(out, a.sum(1), rtol=1e-5)
    verify_trace_roundtrip(sch, rowsum_k_outer)


@T.prim_func
def scale_unit_outer(A: T.Buffer((13, 11), "float32"), B: T.Buffer((13, 11), "float32")):
    for i_0, i_1, j in T.grid(1, 13, 11):
        with T.block("B"):
            vi = T.axis.spatial(13, i_0 * 13 + i_1)
            vj = T.axis.spatial(11, j)
            B[vi, vj] = A[vi, vj] * T.float32(2)


@pytest.mark.parametrize("preserve", [True, False])
def test_blockize_unit_outer_loop_binding(preserve):
    sch = Schedule(scale_unit_outer)
    _, i1, _ = sch.get_loops(sch.get_block("B"))
    sch.blockize(i1, preserve_unit_iters=preserve)
    # vi = i_0 * 13 + i_1 over a unit i_0: bound to i_0 when unit iterators are preserved
    assert _outer(sch, "B_o")[0] == ("vi_o", 1, "i_0" if preserve else "0")
    a = np.random.default_rng(4).random((13, 11), dtype=np.float32)
    np.testing.assert_allclose(_run(sch.mod, a, np.zeros((13, 11), "float32")), a * 2)
