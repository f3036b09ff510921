"""Illegal schedules raise ScheduleError naming the primitive, the block or loop, and the
violated condition."""
import pytest

from tvmlite import te
from tvmlite.tir.schedule import Schedule, ScheduleError


def _funcs():
    A = te.placeholder((8, 6), name="A")
    B = te.compute((8, 6), lambda i, j: A[i, j] * 2.0, name="B")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((8,), lambda i: te.sum(B[i, k], axis=k), name="C")
    return te.create_prim_func([A, C])


def _err(fn, *parts):
    with pytest.raises(ScheduleError) as e:
        fn()
    for p in parts:
        assert p in str(e.value), str(e.value)


def test_loop_errors():
    s = Schedule(_funcs())
    b, c = s.get_block("B"), s.get_block("C")
    i, j = s.get_loops(b)
    ci, ck = s.get_loops(c)
    _err(lambda: s.split(i, [None, None]), "split", 'loop "i"', "at most one factor")
    _err(lambda: s.split(i, [2, 3]), "split", 'loop "i"', "smaller than the loop extent")
    _err(lambda: s.split(i, [0, None]), "split", "positive")
    _err(lambda: s.fuse(j, i), "fuse", "not consecutive")
    _err(lambda: s.reorder(i, ci), "reorder", "not in the same loop nest")
    _err(lambda: s.parallel(ck), "parallel", 'loop "k"', "reduction iterator")
    _err(lambda: s.vectorize(ck), "vectorize", "reduction iterator")
    _err(lambda: s.bind(i, "threadIdx.w"), "bind", 'loop "i"', "not a thread axis")
    _err(lambda: s.unannotate(i, "x"), "unannotate", 'loop "i"', "no annotation")
    _err(lambda: s.get_block("nope"), "get_block", 'block "nope"')
    s.split(i, [2, 4])
    _err(lambda: s.get(i), 'loop "i"', "not in the function")


def test_compute_location_errors():
    s = Schedule(_funcs())
    b, c = s.get_block("B"), s.get_block("C")
    i, j = s.get_loops(b)
    ci, ck = s.get_loops(c)
    _err(lambda: s.compute_at(c, i), "compute_at", 'block "C"', "function output")
    _err(lambda: s.compute_at(b, j), "compute_at", "ancestor")
    _err(lambda: s.reverse_compute_at(b, ci), "reverse_compute_at", 'block "B"',
         "no producer of the block is under the loop")
    _err(lambda: s.compute_inline(c), "compute_inline", 'block "C"', "reduction")
    _err(lambda: s.reverse_compute_inline(c), "reverse_compute_inline", "reduction")


def test_consumer_outside_loop():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    D = te.compute((8,), lambda i: B[i] + C[i], name="D")
    s = Schedule(te.create_prim_func([A, D]))
    (ci,) = s.get_loops(s.get_block("C"))
    _err(lambda: s.compute_at(s.get_block("B"), ci), "compute_at", 'block "B"',
         'consumer block "D" is not under the loop')


def test_buffer_errors():
    s = Schedule(_funcs())
    b, c = s.get_block("B"), s.get_block("C")
    _err(lambda: s.cache_read(b, 3, "shared"), "cache_read", 'block "B"', "out of range")
    _err(lambda: s.cache_write(b, 0, "nowhere"), "cache_write", "not a storage scope")
    _err(lambda: s.set_scope(c, 0, "shared"), "set_scope", "function parameter")
    _err(lambda: s.storage_align(b, 0, 5, 16, 0), "storage_align", "axis 5")
    _err(lambda: s.storage_align(b, 0, 0, 16, 16), "storage_align", "offset")


def test_reduction_errors():
    s = Schedule(_funcs())
    b, c = s.get_block("B"), s.get_block("C")
    ci, ck = s.get_loops(c)
    bi, bj = s.get_loops(b)
    _err(lambda: s.decompose_reduction(b, bi), "decompose_reduction", 'block "B"', "no init")
    _err(lambda: s.decompose_reduction(c, bi), "decompose_reduction", "not an ancestor")
    s.reorder(ck, ci)
    _err(lambda: s.decompose_reduction(c, ci), "decompose_reduction",
         'loop "k" above the decomposition point')
    _err(lambda: s.rfactor(ci, 0), "rfactor", 'block "C"', "does not iterate over a reduction")
    _err(lambda: s.rfactor(ck, 3), "rfactor", "factor_axis 3")
    _err(lambda: s.rfactor(bi, 0), "rfactor", 'block "B"', "not a reduction block")
