"""Differential tests: each schedule primitive, applied at odd sizes with non-divisible
factors, compiled with ``tvm.build`` (the C backend) and compared with numpy on random inputs;
the block-level numpy interpreter (``tvmlite.tir.interpreter``) checks the scheduled IR
itself (bounds, iterator domains, uninitialised reads)."""
import numpy as np
import pytest
from programs import matmul_desc

import tvmlite as tvm
from tvmlite import te
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule

N, M, K = 13, 11, 9


def _chain():
    A = te.placeholder((N, M), name="A")
    B = te.compute((N, M), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((N, M), lambda i, j: B[i, j] + 1.0, name="C")
    return te.create_prim_func([A, C]), lambda a: a * 2 + 1


def _stencil():
    A = te.placeholder((N + 2, M), name="A")
    B = te.compute((N + 2, M), lambda i, j: A[i, j] * 3.0, name="B")
    C = te.compute((N, M), lambda i, j: B[i, j] + B[i + 1, j] + B[i + 2, j], name="C")
    return te.create_prim_func([A, C]), lambda a: 3 * (a[:-2] + a[1:-1] + a[2:])


def _matmul():
    A = te.placeholder((N, K), name="A")
    Bm = te.placeholder((K, M), name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * Bm[k, j], axis=k), name="C")
    return te.create_prim_func([A, Bm, C]), lambda a, b: a @ b


def _check(sch, ref, shapes, out_shape):
    rng = np.random.default_rng(0)
    ins = [rng.random(s, dtype=np.float32) for s in shapes]
    want = ref(*ins)
    out = np.zeros(out_shape, "float32")
    interpret(sch.mod["main"], *ins, out)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    f = tvm.build(sch.mod, target="llvm")
    dev_out = tvm.nd.array(np.zeros(out_shape, "float32"))
    f(*[tvm.nd.array(x) for x in ins], dev_out)
    np.testing.assert_allclose(dev_out.numpy(), want, rtol=1e-5, atol=1e-5)


def _chain_sched(fn):
    func, ref = _chain()
    s = Schedule(func)
    fn(s)
    _check(s, ref, [(N, M)], (N, M))


def test_split_fuse_reorder_kinds():
    def f(s):
        i, j = s.get_loops(s.get_block("B"))
        i0, i1, i2 = s.split(i, [2, None, 3])
        j0, j1 = s.split(j, [None, 4])
        s.reorder(j1, i2, j0)
        s.parallel(i0)
        s.unroll(i2)
        ci, cj = s.get_loops(s.get_block("C"))
        fz = s.fuse(ci, cj)
        a, b = s.split(fz, [None, 8])
        s.vectorize(b)
    _chain_sched(f)


def test_compute_at_and_reverse():
    def f(s):
        i, j = s.get_loops(s.get_block("C"))
        i0, i1 = s.split(i, [None, 4])
        j0, j1 = s.split(j, [None, 5])
        s.reorder(i0, j0, i1, j1)
        s.compute_at(s.get_block("B"), j0)
    _chain_sched(f)

    def g(s):
        i, j = s.get_loops(s.get_block("B"))
        i0, i1 = s.split(i, [None, 6])
        s.reverse_compute_at(s.get_block("C"), i0, preserve_unit_loops=True)
    _chain_sched(g)


def test_compute_at_stencil_overlapping_tiles():
    func, ref = _stencil()
    s = Schedule(func)
    i, j = s.get_loops(s.get_block("C"))
    i0, i1 = s.split(i, [None, 4])
    s.compute_at(s.get_block("B"), i0)
    assert s.get(s.get_loops(s.get_block("B"))[1]).extent.value == 6  # tile + halo
    _check(s, ref, [(N + 2, M)], (N, M))


def test_inline_both_ways():
    _chain_sched(lambda s: s.compute_inline(s.get_block("B")))
    _chain_sched(lambda s: s.reverse_compute_inline(s.get_block("C")))


def test_caches_set_scope_storage_align():
    def f(s):
        s.cache_read(s.get_block("B"), 0, "shared")
        s.cache_write(s.get_block("C"), 0, "local")
        s.set_scope(s.get_block("B"), 0, "local")
        s.storage_align(s.get_block("A_shared"), 0, 0, 16, 3)
    _chain_sched(f)


def test_gemm_tiled_write_cache():
    """Book §4.6: a write cache computed at the tile, reads cached per tile."""
    func, ref = _matmul()
    s = Schedule(func)
    c = s.get_block("C")
    cw = s.cache_write(c, 0, "local")
    i, j = s.get_loops(cw)
    i0, i1 = s.split(i, [None, 4])
    j0, j1 = s.split(j, [None, 4])
    s.reorder(i0, j0, i1, j1)
    s.compute_at(c, j0)
    ci, cj, ck = s.get_loops(c)[2:]
    k0, k1 = s.split(ck, [None, 2])
    s.reorder(k0, ci, k1, cj)
    s.vectorize(cj)
    s.decompose_reduction(c, k0)
    # without its init the update reads back C_local first (tir.analysis's convention): A is 1
    ar = s.cache_read(c, 1, "local")
    s.compute_at(ar, k0)
    _check(s, ref, [(N, K), (K, M)], (N, M))


def test_reduction_order_and_rfactor():
    func, ref = _matmul()
    s = Schedule(func)
    c = s.get_block("C")
    i, j, k = s.get_loops(c)
    s.reorder(k, i, j)  # the reduce loop outermost: init must still run once per element
    _check(s, ref, [(N, K), (K, M)], (N, M))

    s = Schedule(func)
    i, j, k = s.get_loops(s.get_block("C"))
    k0, k1 = s.split(k, [None, 4])
    rf = s.rfactor(k1, 2)
    s.parallel(s.get_loops(rf)[0])
    _check(s, ref, [(N, K), (K, M)], (N, M))


def test_bind_runs_in_the_interpreter():
    """GPU-bound loops cannot be built for the CPU: the interpreter runs them (blocks x
    threads); the C backend refuses with a TVMError."""
    func, ref = _matmul()
    s = Schedule(func)
    i, j, k = s.get_loops(s.get_block("C"))
    j0, j1 = s.split(j, [None, 4])
    s.bind(i, "blockIdx.x")
    s.bind(j1, "threadIdx.x")
    rng = np.random.default_rng(2)
    a, b = rng.random((N, K), dtype=np.float32), rng.random((K, M), dtype=np.float32)
    out = np.zeros((N, M), "float32")
    interpret(s.mod["main"], a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)
    with pytest.raises(tvm.error.TVMError, match="GPU thread"):
        tvm.build(s.mod, target="llvm")


def test_annotate_unannotate_pragmas():
    func, ref = _matmul()
    s = Schedule(func)
    c = s.get_block("C")
    i, j, k = s.get_loops(c)
    s.annotate(k, "pragma_unroll_explicit", 1)
    s.annotate(j, "pragma_auto_unroll_max_step", 16)
    s.annotate(c, "note", "kept on the block")
    s.unannotate(j, "pragma_auto_unroll_max_step")
    _check(s, ref, [(N, K), (K, M)], (N, M))


def test_blockize_odd_sizes():
    func, ref = _matmul()
    s = Schedule(func)
    i, j, k = s.get_loops(s.get_block("C"))
    k0, k1 = s.split(k, [None, 3])
    s.reorder(k0, i, j, k1)
    s.blockize(j)  # the j, k1 nest of every (k0, i): a reduction block outside
    _check(s, ref, [(N, K), (K, M)], (N, M))


def test_tensorize_odd_tiles():
    """A 5x3x7 TIR intrinsic tensorizes a 15x9x7 matmul (odd tiles, odd sizes)."""
    from tvmlite.script import tir as T
    from tvmlite.tir import TensorIntrin

    desc = matmul_desc(5, 3, 7)

    @T.prim_func
    def impl(a: T.handle, b: T.handle, c: T.handle) -> None:
        A = T.match_buffer(a, (5, 7), "float32", offset_factor=1, strides=[7, 1])
        B = T.match_buffer(b, (7, 3), "float32", offset_factor=1, strides=[9, 1])
        C = T.match_buffer(c, (5, 3), "float32", offset_factor=1, strides=[9, 1])
        for i, j, k in T.grid(5, 3, 7):
            C[i, j] = C[i, j] + A[i, k] * B[k, j]

    TensorIntrin.register("test_diff_tile5x3x7", desc, impl, override=True)
    n, m, kk = 15, 9, 7
    A = te.placeholder((n, kk), name="A")
    Bm = te.placeholder((kk, m), name="B")
    r = te.reduce_axis((0, kk), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * Bm[r, j], axis=r), name="C")
    s = Schedule(te.create_prim_func([A, Bm, C]))
    c = s.get_block("C")
    i, j, k = s.get_loops(c)
    i0, i1 = s.split(i, [None, 5])
    j0, j1 = s.split(j, [None, 3])
    s.reorder(i0, j0, i1, j1, k)
    s.decompose_reduction(c, i1)
    s.tensorize(i1, "test_diff_tile5x3x7")
    assert 'T.block("C")' not in s.mod.script()  # the tile is the intrinsic's body now
    _check(s, lambda a, b: a @ b, [(n, kk), (kk, m)], (n, m))
