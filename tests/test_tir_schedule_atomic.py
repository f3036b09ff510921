"""Every tir.Schedule method is all-or-nothing: a refused call raises ScheduleError and leaves
the module (its TVMScript), the trace and the handles exactly as they were, and the schedule
goes on working (a legal primitive after the refusal, built and compared with numpy). The TE
facade likewise leaves its stages unchanged when a call is refused."""
import inspect

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import InternalError
from tvmlite.script import tir as T
from tvmlite.tir import TensorIntrin
from tvmlite.tir.schedule import BlockRV, Schedule, ScheduleError
from tvmlite.tir.schedule import schedule as schedule_module
from tvmlite.tir.stmt import SeqStmt

N, M, K = 13, 11, 9


# --------------------------------------------------------------------------- programs
def _chain():
    A = te.placeholder((N, M), name="A")
    B = te.compute((N, M), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((N, M), lambda i, j: B[i, j] + 1.0, name="C")
    return te.create_prim_func([A, C]), [(N, M)], [(N, M)], lambda a: [a * 2 + 1]


def _reduce():
    A = te.placeholder((N, K), name="A")
    B = te.compute((N, K), lambda i, k: A[i, k] * 2.0, name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((N,), lambda i: te.sum(B[i, k], axis=k), name="C")
    return te.create_prim_func([A, C]), [(N, K)], [(N,)], lambda a: [(2 * a).sum(1)]


def _padded():
    A = te.placeholder((N, M), name="A")
    B = te.compute((N + 2, M), lambda i, j: tvm.tir.if_then_else(
        tvm.tir.all(i >= 1, i < N + 1), A[i - 1, j], tvm.tir.const(0.5, "float32")), name="B")
    C = te.compute((N + 2, M), lambda i, j: B[i, j] + 1.0, name="C")
    return te.create_prim_func([A, C]), [(N, M)], [(N + 2, M)], \
        lambda a: [np.pad(a, ((1, 1), (0, 0)), constant_values=0.5) + 1]


def _staged_sum():
    A = te.placeholder((N, K), name="A")
    Al = te.compute((N, K), lambda i, k: A[i, k], name="A_l")
    k = te.reduce_axis((0, K), name="k")
    Cl = te.compute((N,), lambda i: te.sum(Al[i, k], axis=k), name="C_l")
    C = te.compute((N,), lambda i: Cl[i], name="C")
    return te.create_prim_func([A, C]), [(N, K)], [(N,)], lambda a: [a.sum(1)]


def _stencil():
    A = te.placeholder((N + 2,), name="A")
    B = te.compute((N + 2,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((N,), lambda i: B[i] + B[i + 1] + B[i + 2], name="C")
    return te.create_prim_func([A, C]), [(N + 2,)], [(N,)], \
        lambda a: [2 * (a[:-2] + a[1:-1] + a[2:])]


@T.prim_func
def _sibling_func(A: T.Buffer((8,), "float32"), P: T.Buffer((9,), "float32"),
                  C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = P[vi] * T.float32(2)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi] + T.float32(1)
        with T.block("X"):  # writes what B reads, after B's consumer, directly in the loop
            vi = T.axis.spatial(8, i)
            P[vi + 1] = A[vi]


def _sibling():
    def ref(a, p):
        p_out = p.copy()
        p_out[1:] = a
        return [a, p_out, p[:8] * 2 + 1]

    return _sibling_func, [(8,), (9,)], [(8,)], ref


@T.prim_func
def _add4_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4,), "float32", offset_factor=1)
    C = T.match_buffer(c, (4,), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(A[0:4], B[0:4])
        T.writes(C[0:4])
        for i in range(4):
            with T.block("update"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]


@T.prim_func
def _add4_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4,), "float32", offset_factor=1)
    C = T.match_buffer(c, (4,), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(A[0:4], B[0:4])
        T.writes(C[0:4])
        for i in range(4):
            C[i] = A[i] + B[i]


TensorIntrin.register("test_atomic_add4", _add4_desc, _add4_impl, override=True)


def _add_mul():
    A = te.placeholder((12,), name="A")
    B = te.placeholder((12,), name="B")
    D = te.compute((12,), lambda i: A[i] + B[i], name="D")
    E = te.compute((12,), lambda i: D[i] * B[i], name="E")
    return te.create_prim_func([A, B, E]), [(12,), (12,)], [(12,)], lambda a, b: [(a + b) * b]


# --------------------------------------------------------------------------- helpers
def _build_matches(sch, shapes, out_shapes, ref):
    rng = np.random.default_rng(1)
    ins = [rng.random(s, dtype=np.float32) for s in shapes]
    want = ref(*ins)
    args = [tvm.nd.array(x) for x in ins] + [tvm.nd.array(np.zeros(s, "float32"))
                                             for s in out_shapes]
    tvm.build(sch.mod, target="llvm")(*args)
    got = [a.numpy() for a in args][-len(want):]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def _refuse(sch, call, *parts, error=ScheduleError):
    """``call`` raises ``error`` mentioning ``parts``; module, trace and blocks unchanged."""
    script, trace, n = sch.mod.script(), str(sch.trace), len(sch.trace)
    blocks = sorted(sch.state.block_names())
    with pytest.raises(error) as e:
        call()
    for p in parts:
        assert p in str(e.value), str(e.value)
    assert sch.mod.script() == script
    assert len(sch.trace) == n and str(sch.trace) == trace
    for name in blocks:  # every block is still there and reachable by a handle
        sch.get_loops(sch.get_block(name))
    return e.value


def _replays(sch, func):
    """The trace (without the refused calls) replays to the same module."""
    fresh = Schedule(func)
    sch.trace.apply_to_schedule(fresh)
    assert fresh.mod.script() == sch.mod.script()


# --------------------------------------------------------------------------- the cases
# Each case: program, then f(sch) -> (refused call, message parts, legal follow-up).
def _stale_loop(s):
    i, _ = s.get_loops(s.get_block("B"))
    s.split(i, [None, 4])
    return i


def _case_get_block(s):
    return lambda: s.get_block("nope"), ["Cannot find a block with the name: nope"], \
        lambda: s.compute_inline(s.get_block("B"))


def _case_get_loops(s):
    return lambda: s.get_loops(BlockRV("nope")), ['block "nope"'], \
        lambda: s.split(s.get_loops(s.get_block("C"))[0], [None, 5])


def _case_get_child_blocks(s):
    i = _stale_loop(s)
    return lambda: s.get_child_blocks(i), ['loop "i"', "not in the function"], \
        lambda: s.get_child_blocks(s.get_loops(s.get_block("B"))[0])


def _case_get_producers(s):
    return lambda: s.get_producers(BlockRV("gone")), ["get_producers", 'block "gone"'], \
        lambda: s.get_producers(s.get_block("C"))


def _case_get_consumers(s):
    return lambda: s.get_consumers(BlockRV("gone")), ["get_consumers", 'block "gone"'], \
        lambda: s.get_consumers(s.get_block("B"))


def _case_get_output_blocks(s):
    return lambda: s.get_output_blocks(BlockRV("gone")), ["get_output_blocks", 'block "gone"'], \
        lambda: s.get_output_blocks("root")


def _case_add_unit_loop(s):
    root = s.get_block("root")
    return lambda: s.add_unit_loop(root), ["add_unit_loop", "root block"], \
        lambda: s.add_unit_loop(s.get_loops(s.get_block("C"))[0])


def _case_get(s):
    i = _stale_loop(s)
    return lambda: s.get(i), ['loop "i"'], lambda: s.get(s.get_block("C"))


def _case_get_sref(s):
    i = _stale_loop(s)
    return lambda: s.get_sref(i), ['loop "i"'], lambda: s.get_sref(s.get_block("C"))


def _case_split(s):
    i, _ = s.get_loops(s.get_block("B"))
    return lambda: s.split(i, [2, 3]), ["split", "smaller than the loop extent"], \
        lambda: s.split(i, [None, 4])


def _case_fuse(s):
    i, j = s.get_loops(s.get_block("B"))
    return lambda: s.fuse(j, i), ["fuse", "not consecutive"], lambda: s.fuse(i, j)


def _case_reorder(s):
    i, j = s.get_loops(s.get_block("B"))
    ci, _ = s.get_loops(s.get_block("C"))
    return lambda: s.reorder(j, ci), ["reorder", "not in the same loop nest"], \
        lambda: s.reorder(j, i)


def _case_parallel(s):  # reduction program
    ci, ck = s.get_loops(s.get_block("C"))
    return lambda: s.parallel(ck), ["parallel", 'loop "k"', "reduction"], \
        lambda: s.parallel(ci)


def _case_vectorize(s):  # reduction program
    ci, ck = s.get_loops(s.get_block("C"))
    return lambda: s.vectorize(ck), ["vectorize", "reduction"], \
        lambda: s.vectorize(s.get_loops(s.get_block("B"))[1])


def _case_unroll(s):
    i = _stale_loop(s)
    return lambda: s.unroll(i), ["unroll", 'loop "i"'], \
        lambda: s.unroll(s.get_loops(s.get_block("C"))[1])


def _case_bind(s):
    i, _ = s.get_loops(s.get_block("B"))
    return lambda: s.bind(i, "threadIdx.w"), ["bind", "not a thread axis"], \
        lambda: s.unroll(i)


def _case_annotate(s):
    i = _stale_loop(s)
    return lambda: s.annotate(i, "pragma_unroll_explicit", 1), ["annotate", 'loop "i"'], \
        lambda: s.annotate(s.get_block("C"), "note", 1)


def _case_unannotate(s):
    i, _ = s.get_loops(s.get_block("B"))
    s.annotate(i, "pragma_unroll_explicit", 1)
    return lambda: s.unannotate(i, "x"), ["unannotate", "no annotation"], \
        lambda: s.unannotate(i, "pragma_unroll_explicit")


def _case_compute_at(s):  # sibling program: refused after the block was taken out
    (i,) = s.get_loops(s.get_block("C"))
    b = s.get_block("B")
    return lambda: s.compute_at(b, i), \
        ["compute_at", 'block "X"', "comes after its first consumer"], \
        lambda: s.unroll(i)


def _case_compute_at_loops(s):  # sibling program
    (i,) = s.get_loops(s.get_block("C"))
    b = s.get_block("B")
    return lambda: s.compute_at_loops(b, i), ["compute_at", 'block "X"'], \
        lambda: s.reverse_compute_inline(s.get_block("C"))


def _case_reverse_compute_at(s):
    ci, _ = s.get_loops(s.get_block("C"))
    b = s.get_block("B")
    return lambda: s.reverse_compute_at(b, ci), \
        ["reverse_compute_at", "no producer of the block is under the loop"], \
        lambda: s.reverse_compute_at(s.get_block("C"), s.get_loops(s.get_block("B"))[0])


def test_compute_at_index_outside_the_valid_positions_refused():
    # other indices than -1 are supported now (test_tir_schedule_compute_at.py); the loop
    # bodies here have one child, so position 1 (after the consumer) and 5 are invalid
    func, shapes, out_shapes, ref = _chain()
    sch = Schedule(func)
    b, c = sch.get_block("B"), sch.get_block("C")
    ci, _ = sch.get_loops(c)
    _refuse(sch, lambda: sch.compute_at(b, ci, index=1), "compute_at", "index=1")
    bi, _ = sch.get_loops(b)
    _refuse(sch, lambda: sch.reverse_compute_at(c, bi, index=5),
            "reverse_compute_at", "index=5")
    sch.compute_at(b, ci, index=-1)
    _build_matches(sch, shapes, out_shapes, ref)


def _case_reverse_compute_at_loops(s):
    ci, _ = s.get_loops(s.get_block("C"))
    b = s.get_block("B")
    return lambda: s.reverse_compute_at_loops(b, ci), ["reverse_compute_at"], \
        lambda: s.compute_at(s.get_block("B"), ci)


def _case_compute_inline(s):  # reduction program
    c = s.get_block("C")
    return lambda: s.compute_inline(c), ["compute_inline", "reduction"], \
        lambda: s.compute_inline(s.get_block("B"))


def _case_reverse_compute_inline(s):  # reduction program
    c = s.get_block("C")
    return lambda: s.reverse_compute_inline(c), \
        ["reverse_compute_inline", "reduction"], lambda: s.compute_inline(s.get_block("B"))


def _case_cache_read(s):
    b = s.get_block("B")
    return lambda: s.cache_read(b, 3, "shared"), ["cache_read", "out of range"], \
        lambda: s.cache_read(b, 0, "local")


def _case_cache_write(s):
    b = s.get_block("B")
    return lambda: s.cache_write(b, 0, "nowhere"), ["cache_write", "not a storage scope"], \
        lambda: s.cache_write(b, 0, "local")


def _case_cache_index(s):  # chain program
    b = s.get_block("B")
    return lambda: s.cache_index(b, "global", -1), ["cache_index", "non-negative"], \
        lambda: s.cache_index(b, "global")


def _case_cache_inplace(s):  # reduction program: C reads and writes C
    c = s.get_block("C")
    return lambda: s.cache_inplace(c, "B", "local"), ["cache_inplace", "does not write it"], \
        lambda: s.cache_inplace(c, "C", "local")


def _case_storage_align(s):
    b = s.get_block("B")
    return lambda: s.storage_align(b, 0, 5, 16, 0), ["storage_align", "axis 5"], \
        lambda: s.storage_align(b, 0, 0, 16, 3)


def _case_set_scope(s):
    c = s.get_block("C")
    return lambda: s.set_scope(c, 0, "shared"), \
        ["set_scope", "function parameter"], lambda: s.set_scope(s.get_block("B"), 0, "local")


def _case_unsafe_set_dtype(s):
    c = s.get_block("C")
    return lambda: s.unsafe_set_dtype(c, 0, "float16"), \
        ["unsafe_set_dtype", 'block "C"', "function parameter"], \
        lambda: s.unsafe_set_dtype(s.get_block("B"), 0, "float64")


def _case_transform_layout(s):
    return lambda: s.transform_layout("B", "B", lambda i, j: [i // 4, j, i % 4]), \
        ["transform_layout", 'block "B"', "pads"], \
        lambda: s.transform_layout("B", "B", lambda i, j: [j, i])


def _case_set_axis_separator(s):
    return lambda: s.set_axis_separator("B", ("write", 0), [5]), \
        ["set_axis_separator", 'block "B"', "increasing positions"], \
        lambda: s.set_axis_separator("B", ("write", 0), [1])


def _case_transform_block_layout(s):
    return lambda: s.transform_block_layout("B", lambda i, j: (i + j,)), \
        ["transform_block_layout", 'block "B"', "not bijective"], \
        lambda: s.transform_block_layout("B", lambda i, j: (i * M + j,))


def _case_reindex(s):
    return lambda: s.reindex("B", ("read", 2)), ["reindex", 'block "B"', "out of range"], \
        lambda: s.reindex("C", ("read", 0))


def _case_read_at(s):  # reduction program: C reads B under its loops
    c = s.get_block("C")
    ci, ck = s.get_loops(c)
    return lambda: s.read_at(ck, c, 5, "local"), ["read_at", 'block "C"', "out of range"], \
        lambda: s.read_at(ci, c, 0, "local")


def _case_write_at(s):  # reduction program: C accumulates over its k loop
    c = s.get_block("C")
    ci, ck = s.get_loops(c)
    return lambda: s.write_at(ck, c, 0, "local"), ["write_at", 'block "C"', "initialising"], \
        lambda: s.write_at(ci, c, 0, "local")


def _case_reindex_cache_read(s):  # chain program: C reads B
    return lambda: s.reindex_cache_read("C", 0, "local", lambda i, j: (i + j,)), \
        ["reindex_cache_read", 'block "C"', "not injective"], \
        lambda: s.reindex_cache_read("C", 0, "local", lambda i, j: (j, i))


def _case_reindex_cache_write(s):  # chain program: B writes what C reads
    return lambda: s.reindex_cache_write("B", 0, "local", lambda i, j: (i // 2, j)), \
        ["reindex_cache_write", 'block "B"', "not injective"], \
        lambda: s.reindex_cache_write("B", 0, "local", lambda i, j: (j, i))


def _case_decompose_reduction(s):  # reduction program
    c = s.get_block("C")
    ci, ck = s.get_loops(c)
    bi, _ = s.get_loops(s.get_block("B"))
    return lambda: s.decompose_reduction(c, bi), ["decompose_reduction", "not an ancestor"], \
        lambda: s.decompose_reduction(c, ck)


def _case_rfactor(s):  # reduction program
    ci, ck = s.get_loops(s.get_block("C"))
    return lambda: s.rfactor(ck, 3), ["rfactor", "factor_axis 3"], \
        lambda: s.rfactor(s.split(ck, [None, 4])[1], 0)


def _case_blockize(s):  # sibling program: a loop over two blocks
    (i,) = s.get_loops(s.get_block("C"))
    return lambda: s.blockize(i), ["blockize", "exactly one block"], \
        lambda: s.blockize(s.get_loops(s.get_block("B"))[0])


def _case_tensorize(s):  # add-mul program: blockize succeeds, the match fails after it
    (ei,) = s.get_loops(s.get_block("E"))
    _, ei1 = s.split(ei, [None, 4])
    (di,) = s.get_loops(s.get_block("D"))
    _, di1 = s.split(di, [None, 4])
    return lambda: s.tensorize(ei1, "test_atomic_add4"), ["tensorize", 'block "E_o"'], \
        lambda: s.tensorize(di1, "test_atomic_add4")


def _case_remove_rv(s):
    b = s.get_block("B")
    s.remove_rv(b)
    return lambda: s.compute_inline(b), ["compute_inline", "removed by remove_rv"], \
        lambda: s.compute_inline(s.get_block("B"))


def _case_sample_categorical(s):
    return lambda: s.sample_categorical([1, 2], [0.5]), ["sample_categorical", "as many"], \
        lambda: s.split(s.get_loops("B")[1], [None, s.sample_categorical([2, 4], [1, 1])])


def _case_sample_perfect_tile(s):
    i, j = s.get_loops("B")
    return lambda: s.sample_perfect_tile(i, n=2, decision=[2, 7]), \
        ["sample_perfect_tile", f'loop "{i.var.name}"', "not 2 positive factors"], \
        lambda: s.split(j, s.sample_perfect_tile(j, n=3))


def _case_sample_compute_location(s):
    return lambda: s.sample_compute_location("nope"), ["get_block", "nope"], \
        lambda: s.compute_at("B", s.sample_compute_location("B"))


def _case_merge(s):  # chain program: C reads B, so their nests are dependent
    (bi, _), (ci, _) = s.get_loops("B"), s.get_loops("C")
    return lambda: s.merge(bi, ci), ["merge", 'writes "B"', "reorder dependent"], \
        lambda: s.fuse(bi, s.get_loops("B")[1])


def _case_decompose_padding(s):  # padded program
    c = s.get_block("C")
    b = s.get_block("B")
    ci = s.get_loops(c)[0]
    return lambda: s.decompose_padding(c, ci), \
        ["decompose_padding", 'block "C"', "padding pattern"], \
        lambda: s.decompose_padding(b, s.get_loops(b)[1])


def _case_can_decompose_padding(s):  # padded program
    b = s.get_block("B")
    i = s.get_loops(b)[0]
    assert not s.can_decompose_padding(s.get_block("C"), s.get_loops("C")[0])
    return lambda: s.can_decompose_padding(BlockRV("gone"), i), \
        ["decompose_padding", 'block "gone"'], \
        lambda: s.can_decompose_padding(b, i) and s.decompose_padding(b, i)


def _case_pad_einsum(s):  # staged sum program
    return lambda: s.pad_einsum("C_l", [1]), ["pad_einsum", 'block "C_l"', "2 non-negative"], \
        lambda: s.pad_einsum("C_l", [2, 3])


def _case_rolling_buffer(s):  # stencil program
    def follow_up():
        io, _ = s.split(s.get_loops("C")[0], [None, 4])
        s.compute_at(s.get_block("B"), io)
        s.rolling_buffer("B", 0)
    return lambda: s.rolling_buffer("B", 0), ["rolling_buffer", 'block "B"', "not a loop"], \
        follow_up


CASES = {
    "get_block": (_chain, _case_get_block),
    "get_loops": (_chain, _case_get_loops),
    "get_child_blocks": (_chain, _case_get_child_blocks),
    "get_producers": (_chain, _case_get_producers),
    "get_consumers": (_chain, _case_get_consumers),
    "get_output_blocks": (_chain, _case_get_output_blocks),
    "add_unit_loop": (_chain, _case_add_unit_loop),
    "get": (_chain, _case_get),
    "get_sref": (_chain, _case_get_sref),
    "split": (_chain, _case_split),
    "fuse": (_chain, _case_fuse),
    "reorder": (_chain, _case_reorder),
    "parallel": (_reduce, _case_parallel),
    "vectorize": (_reduce, _case_vectorize),
    "unroll": (_chain, _case_unroll),
    "bind": (_chain, _case_bind),
    "annotate": (_chain, _case_annotate),
    "unannotate": (_chain, _case_unannotate),
    "compute_at": (_sibling, _case_compute_at),
    "compute_at_loops": (_sibling, _case_compute_at_loops),
    "reverse_compute_at": (_chain, _case_reverse_compute_at),
    "reverse_compute_at_loops": (_chain, _case_reverse_compute_at_loops),
    "compute_inline": (_reduce, _case_compute_inline),
    "reverse_compute_inline": (_reduce, _case_reverse_compute_inline),
    "cache_read": (_chain, _case_cache_read),
    "cache_write": (_chain, _case_cache_write),
    "cache_inplace": (_reduce, _case_cache_inplace),
    "cache_index": (_chain, _case_cache_index),
    "storage_align": (_chain, _case_storage_align),
    "set_scope": (_chain, _case_set_scope),
    "unsafe_set_dtype": (_chain, _case_unsafe_set_dtype),
    "decompose_reduction": (_reduce, _case_decompose_reduction),
    "rfactor": (_reduce, _case_rfactor),
    "blockize": (_sibling, _case_blockize),
    "tensorize": (_add_mul, _case_tensorize),
    "remove_rv": (_chain, _case_remove_rv),
    "transform_layout": (_chain, _case_transform_layout),
    "set_axis_separator": (_chain, _case_set_axis_separator),
    "transform_block_layout": (_chain, _case_transform_block_layout),
    "reindex": (_chain, _case_reindex),
    "read_at": (_reduce, _case_read_at),
    "reindex_cache_read": (_chain, _case_reindex_cache_read),
    "reindex_cache_write": (_chain, _case_reindex_cache_write),
    "write_at": (_reduce, _case_write_at),
    "merge": (_chain, _case_merge),
    "sample_categorical": (_chain, _case_sample_categorical),
    "sample_perfect_tile": (_chain, _case_sample_perfect_tile),
    "sample_compute_location": (_chain, _case_sample_compute_location),
    "decompose_padding": (_padded, _case_decompose_padding),
    "can_decompose_padding": (_padded, _case_can_decompose_padding),
    "rolling_buffer": (_stencil, _case_rolling_buffer),
    "pad_einsum": (_staged_sum, _case_pad_einsum),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_primitive_leaves_schedule_unchanged(name):
    program, case = CASES[name]
    func, shapes, out_shapes, ref = program()
    sch = Schedule(func)
    refused, parts, follow_up = case(sch)
    _refuse(sch, refused, *parts)
    follow_up()
    _build_matches(sch, shapes, out_shapes, ref)
    _replays(sch, func)


def test_every_public_method_has_a_refusal_case():
    public = {n for n, v in inspect.getmembers(Schedule, inspect.isfunction)
              if not n.startswith("_") and not getattr(v, "tvmlite_unsupported", False)}
    # seed's refusal is a ValueError (test_settings_validated...); fork_seed takes nothing
    assert public - set(CASES) == {"copy", "show", "work_on", "seed", "fork_seed"}


def test_work_on_refused_unchanged():
    func, shapes, out_shapes, ref = _chain()
    sch = Schedule(func)
    sch.get_block("B")
    _refuse(sch, lambda: sch.work_on("nope"), "not a PrimFunc", error=ValueError)
    _refuse(sch, lambda: sch.get_block("B", func_name="nope"), "no function",
            error=ValueError)
    assert sch.func_working_on.name_hint == "main"
    sch.work_on("main")
    _build_matches(sch, shapes, out_shapes, ref)


def test_wrong_argument_type_unchanged():
    func, *_ = _chain()
    sch = Schedule(func)
    i, _ = sch.get_loops(sch.get_block("B"))
    _refuse(sch, lambda: sch.get_loops(i), "expected a BlockRV", error=TypeError)
    _refuse(sch, lambda: sch.tensorize(i, 42), "TensorIntrin", error=TypeError)
    _refuse(sch, lambda: sch.remove_rv("B"), "expected a BlockRV", error=TypeError)


def test_sibling_producer_in_loop_body_refused():
    """Before the fix compute_at accepted this and B read P after X overwrote it."""
    func, shapes, out_shapes, ref = _sibling()
    sch = Schedule(func)
    (i,) = sch.get_loops(sch.get_block("C"))
    with pytest.raises(ScheduleError, match="comes after its first consumer"):
        sch.compute_at(sch.get_block("B"), i)
    _build_matches(sch, shapes, out_shapes, ref)


def test_sibling_overwrite_refused_by_compute_inline():
    func, shapes, out_shapes, ref = _sibling()
    sch = Schedule(func)
    b = sch.get_block("B")
    _refuse(sch, lambda: sch.compute_inline(b), "compute_inline", 'block "B"',
            'block "X" overwrites "P"', 'consumer "C"')
    _build_matches(sch, shapes, out_shapes, ref)


def test_trace_replay_all_or_nothing():
    func, shapes, out_shapes, ref = _chain()
    sch = Schedule(func)
    i, _ = sch.get_loops(sch.get_block("C"))
    sch.split(i, [None, 4])
    sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])
    other = Schedule(func)
    other.compute_inline(other.get_block("B"))  # the replayed get_block("B") will fail
    _refuse(other, lambda: sch.trace.apply_to_schedule(other), "get_block", 'block "B"')
    other.parallel(other.get_loops(other.get_block("C"))[0])
    _build_matches(other, shapes, out_shapes, ref)


# --------------------------------------------------------------------------- settings
def test_remove_rv_only_drops_that_handle_and_is_traced():
    func, shapes, out_shapes, ref = _chain()
    sch = Schedule(func)
    b = sch.get_block("B")
    i, j = sch.get_loops(b)
    sch.remove_rv(i)
    _refuse(sch, lambda: sch.split([i][0], [None, 4]), "split", "removed by remove_rv")
    _refuse(sch, lambda: sch.reorder(j, i), "reorder", "removed by remove_rv")
    sch.split(j, [None, 4])
    i2, _, _ = sch.get_loops(b)  # a new handle to the same loop is fine
    sch.parallel(i2)
    assert "sch.remove_rv(rv=l" in str(sch.trace)
    _build_matches(sch, shapes, out_shapes, ref)
    _replays(sch, func)
    copy = sch.copy()
    with pytest.raises(ScheduleError, match="removed"):
        copy.get(i)


@pytest.mark.parametrize("level, text", [
    ("detail", 'ScheduleError: get_block: block "nope": Cannot find a block with the name: nope'),
    ("fast", "ScheduleError: get_block: Cannot find a block with the name: nope"),
    ("none", "ScheduleError: (not rendered)"),
])
def test_error_render_level(level, text):
    func, *_ = _chain()
    sch = Schedule(func, error_render_level=level)
    err = _refuse(sch, lambda: sch.get_block("nope"))
    assert str(err).startswith(text), str(err)
    if level == "none":
        assert str(err) == text
    c = sch.get_block("C")
    err = _refuse(sch, lambda: sch.compute_inline(c))
    assert ('block "C"' in str(err)) == (level == "detail")
    assert err.primitive == "compute_inline" and err.condition


def test_settings_validated_and_removed_ones_rejected():
    func, *_ = _chain()
    with pytest.raises(ValueError, match="error_render_level"):
        Schedule(func, error_render_level="loud")
    with pytest.raises(ValueError, match="debug_mask"):
        Schedule(func, debug_mask="some")
    with pytest.raises(TypeError):
        Schedule(func, enable_check=1)
    for bad in (-2, 1.5, "1"):
        with pytest.raises(ValueError, match="seed"):
            Schedule(func, seed=bad)
        with pytest.raises(ValueError, match="seed"):
            Schedule(func).seed(bad)
    assert "seed" in Schedule.__doc__ and "enable_check" in Schedule.__doc__


def test_debug_mask_checks_and_rolls_back(monkeypatch):
    func, shapes, out_shapes, ref = _chain()
    sch = Schedule(func, debug_mask="all")
    i, j = sch.get_loops(sch.get_block("B"))
    ci, _ = sch.get_loops(sch.get_block("C"))
    sch.split(ci, [None, 4])
    sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])
    j = sch.get_loops(sch.get_block("B"))[-1]
    _build_matches(sch, shapes, out_shapes, ref)

    def broken_unroll(state, loop):  # a buggy primitive: duplicates the whole body
        state.set_body(SeqStmt((state.body, state.body)))

    monkeypatch.setattr(schedule_module._lk, "unroll", broken_unroll)
    _refuse(sch, lambda: sch.unroll(j), "debug_mask check failed", "two blocks",
            error=InternalError)
    unchecked = Schedule(func)  # without the mask the broken primitive goes through
    unchecked.unroll(unchecked.get_loops(unchecked.get_block("B"))[0])


def test_public_methods_documented_with_examples():
    for name, fn in inspect.getmembers(Schedule, inspect.isfunction):
        if name.startswith("_"):
            continue
        doc = inspect.getdoc(fn)
        assert doc, name
    for name in ("split", "fuse", "reorder", "compute_at", "reverse_compute_at",
                 "compute_inline", "reverse_compute_inline", "cache_read", "cache_write",
                 "storage_align", "set_scope", "decompose_reduction", "rfactor", "blockize",
                 "tensorize", "parallel", "vectorize", "unroll", "bind", "annotate",
                 "unannotate"):
        doc = inspect.getdoc(getattr(Schedule, name))
        assert "Examples\n--------" in doc and "Before" in doc and "After" in doc, name
        assert "Parameters\n----------" in doc, name


# --------------------------------------------------------------------------- TE facade
def _te_stage_state(stage):
    return (list(stage.leaf_iter_vars), list(stage.all_iter_vars), list(stage.relations),
            list(stage._log), {k: (v.iter_type, list(v.pragma_keys))
                               for k, v in stage.iter_var_attrs.items()},
            stage.attach_type, stage.op)


def test_te_facade_refused_calls_leave_stages_unchanged():
    A = te.placeholder((N, M, 5), name="A")
    B = te.compute((N, M, 5), lambda i, j, k: A[i, j, k] * 2.0, name="B")
    C = te.compute((N, M, 5), lambda i, j, k: B[i, j, k] + 1.0, name="C")
    s = te.create_schedule(C.op)
    i, j, k = s[C].op.axis
    s[C].pragma(k, "auto_unroll_max_step", 4)
    leaves = s[C].leaf_iter_vars
    stages = list(s.stages)

    def refused(call, text):
        before = [_te_stage_state(st) for st in s.stages]
        with pytest.raises(tvm.error.TVMError, match=text):
            call()
        assert [_te_stage_state(st) for st in s.stages] == before
        assert s.stages == stages and s[C].leaf_iter_vars is leaves

    refused(lambda: s[C].fuse(i, j, i), "cannot find IterVar i")  # fused i, j first
    refused(lambda: s[C].tile(i, j, 4, 0), "factor must be positive")  # split i first
    refused(lambda: s[C].tile(i, i, 4, 2), "cannot find IterVar i")
    refused(lambda: s.cache_read(A, "local", [C]), "does not read")
    refused(lambda: s[B].compute_at(s[C], s[B].op.axis[0]), "not an IterVar of stage C")
    xo, xi = s[C].split(i, factor=4)
    s[B].compute_at(s[C], xo)
    f = tvm.build(s, [A, C], target="llvm")
    a = np.random.default_rng(2).random((N, M, 5), dtype=np.float32)
    c = tvm.nd.array(np.zeros((N, M, 5), "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)
