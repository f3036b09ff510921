"""Regressions from the random-schedule hunt (issue 12): each root cause that gave a wrong
answer or a crash, rebuilt from its small reproduction. Every case is compared with numpy AND
with the unscheduled build of the same program, through ``te.create_schedule`` and
``tir.Schedule`` where both apply; outputs start from garbage so a missed write shows. A
schedule that cannot be computed correctly must raise a ScheduleError, never run wrongly."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.error import TVMError
from tvmlite.tir.schedule import Schedule
from tvmlite.tir.schedule.error import ScheduleError

GARBAGE = 12345.0


def _run(mod, ins, out_shapes, dtype="float32", shape_vars=None):
    f = tvm.build(mod, target="llvm")
    outs = [tvm.nd.array(np.full(s, GARBAGE, dtype)) for s in out_shapes]
    f(*[tvm.nd.array(x) for x in ins], *outs)
    return [o.numpy() for o in outs]


def _te_pair(make, schedule):
    """(unscheduled, scheduled) outputs of a TE program ``make() -> (args, n_in)``."""
    args, n_in = make()
    base = te.create_schedule([a.op for a in args[n_in:]])
    args2, _ = make()
    s = te.create_schedule([a.op for a in args2[n_in:]])
    schedule(s, args2)
    return (tvm.lower(base, args), args), (tvm.lower(s, args2), args2)


def _check_te(make, schedule, ref, seed=0):
    (m0, args), (m1, _) = _te_pair(make, schedule)
    n_in = make()[1]
    ins = _inputs(args[:n_in], seed)
    shapes = [tuple(int(x) for x in a.shape) for a in args[n_in:]]
    want = ref(*ins)
    got0 = _run(m0, ins, shapes)[0]
    got1 = _run(m1, ins, shapes)[0]
    np.testing.assert_allclose(got0, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got1, got0, rtol=1e-5, atol=1e-4)


def _check_tir(make, schedule, ref, seed=0):
    args, n_in = make()
    func = te.create_prim_func(args)
    sch = Schedule(func)
    schedule(sch)
    ins = _inputs(args[:n_in], seed)
    shapes = [tuple(int(x) for x in a.shape) for a in args[n_in:]]
    want = ref(*ins)
    got0 = _run(tvm.IRModule({"main": func}), ins, shapes)[0]
    got1 = _run(sch.mod, ins, shapes)[0]
    np.testing.assert_allclose(got0, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got1, got0, rtol=1e-5, atol=1e-4)


def _inputs(tensors, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, tuple(int(x) for x in t.shape)).astype(t.dtype)
            for t in tensors]


# ---- rfactor of a reduction with init= / where=

def _sum_init(n=17, init=2.0):
    def make():
        A = te.placeholder((n,), name="A")
        k = te.reduce_axis((0, n), "k")
        B = te.compute((1,), lambda i: te.sum(A[k], axis=k, init=init), name="B")
        return [A, B], 1
    return make, lambda a: np.array([a.sum() + init], "float32")


def _rows_where(n=5, m=10):
    def make():
        A = te.placeholder((n, m), name="A")
        k = te.reduce_axis((0, m), "k")
        B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k, where=k % 3 == 0), name="B")
        return [A, B], 1
    return make, lambda a: a[:, ::3].sum(axis=1)


@pytest.mark.parametrize("factor", [4, 5, 17])
def test_te_rfactor_init_on_final_stage(factor):
    make, ref = _sum_init()

    def sched(s, args):
        B = args[1]
        _, ki = s[B].split(B.op.reduce_axis[0], factor=factor)
        s.rfactor(B, ki)
    _check_te(make, sched, ref)


@pytest.mark.parametrize("factor", [4, 5, 17])
def test_tir_rfactor_init_is_not_identity(factor):
    make, ref = _sum_init()

    def sched(sch):
        (i, k) = sch.get_loops(sch.get_block("B"))
        _, ki = sch.split(k, factors=[None, factor])
        sch.rfactor(ki, 0)
    _check_tir(make, sched, ref)


def test_tir_rfactor_max_with_init():
    def make():
        A = te.placeholder((3, 11), name="A")
        k = te.reduce_axis((0, 11), "k")
        B = te.compute((3,), lambda i: te.max(A[i, k], axis=k, init=0.5), name="B")
        return [A, B], 1

    def sched(sch):
        (i, k) = sch.get_loops(sch.get_block("B"))
        _, ki = sch.split(k, factors=[None, 4])
        sch.rfactor(ki, 1)
    _check_tir(make, sched, lambda a: np.maximum(a.max(axis=1), 0.5))


def test_te_rfactor_where_without_reduction_left():
    make, ref = _rows_where()

    def sched(s, args):
        B = args[1]
        s.rfactor(B, B.op.reduce_axis[0])
    _check_te(make, sched, ref)


def test_te_rfactor_where_with_split():
    make, ref = _rows_where()

    def sched(s, args):
        B = args[1]
        ko, ki = s[B].split(B.op.reduce_axis[0], factor=4)
        s.rfactor(B, ko)
    _check_te(make, sched, ref)


# ---- reverse_compute_at: padding consumers, partial producers

def _pad_chain(n=7, m=11):
    def make():
        A = te.placeholder((n,), name="A")
        B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
        C = te.compute((m,), lambda i: tir.if_then_else(
            tir.all(1 <= i, i < n + 1), B[i - 1], 0.5), name="C")
        return [A, C], 1

    def ref(a):
        out = np.full(m, 0.5, "float32")
        out[1:n + 1] = 2 * a
        return out
    return make, ref


def test_reverse_compute_at_padding_consumer_is_refused():
    make, _ = _pad_chain()
    args, _ = make()
    sch = Schedule(te.create_prim_func(args))
    (i,) = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match=r'reverse_compute_at.*"C".*cover'):
        sch.reverse_compute_at(sch.get_block("C"), i)


def test_te_compute_at_padding_producer():
    make, ref = _pad_chain()

    def sched(s, args):
        C = args[1]
        B = C.op.input_tensors[0]
        xo, _ = s[C].split(C.op.axis[0], factor=4)
        s[B].compute_at(s[C], xo)
    _check_te(make, sched, ref)


def test_reverse_compute_at_under_producer_reduction_loop_is_refused():
    def make():
        A = te.placeholder((4, 5), name="A")
        k = te.reduce_axis((0, 5), "k")
        B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
        C = te.compute((4,), lambda i: B[i] * 2.0, name="C")
        return [A, C], 1
    args, _ = make()
    sch = Schedule(te.create_prim_func(args))
    _, k = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match=r'reverse_compute_at.*"C".*"k".*partial'):
        sch.reverse_compute_at(sch.get_block("C"), k)
    # at the spatial loop it is legal and right
    _check_tir(make, lambda s: s.reverse_compute_at(
        s.get_block("C"), s.get_loops(s.get_block("B"))[0]), lambda a: 2 * a.sum(axis=1))


@pytest.mark.parametrize("factor", [1, 3])
def test_reverse_compute_at_reduction_consumer(factor):
    def make():
        A = te.placeholder((7,), name="A")
        k = te.reduce_axis((0, 7), "k")
        B = te.compute((7,), lambda i: A[i] * 2.0, name="B")
        C = te.compute((1,), lambda i: te.sum(B[k], axis=k), name="C")
        return [A, C], 1

    def sched(s):
        (i,) = s.get_loops(s.get_block("B"))
        io, _ = s.split(i, factors=[None, factor])
        s.reverse_compute_at(s.get_block("C"), io)
    _check_tir(make, sched, lambda a: np.array([2 * a.sum()], "float32"))


def test_reverse_compute_at_symbolic_split():
    n = tir.Var("n", "int32")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n,), lambda i: B[i] + 1.0, name="C")
    func = te.create_prim_func([A, C])
    sch = Schedule(func)
    (i,) = sch.get_loops(sch.get_block("B"))
    io, _ = sch.split(i, factors=[None, 4])
    sch.reverse_compute_at(sch.get_block("C"), io)
    for size in (1, 9, 13):
        a = np.random.default_rng(size).random(size, dtype=np.float32)
        for mod in (tvm.IRModule({"main": func}), sch.mod):
            (got,) = _run(mod, [a], [(size,)])
            np.testing.assert_allclose(got, 2 * a + 1, rtol=1e-6)


# ---- symbolic extents

def _sym_sizes():
    return (1, 6, 13)


def _run_sym(mods, make_inputs, ref):
    for m in _sym_sizes():
        ins = make_inputs(m)
        want = ref(*ins)
        outs = [_run(mod, ins, [want.shape])[0] for mod in mods]
        np.testing.assert_allclose(outs[0], want, rtol=1e-5, atol=1e-5)
        for o in outs[1:]:
            np.testing.assert_allclose(o, outs[0], rtol=1e-5, atol=1e-5)


def _sym_row_sum():
    n = tir.Var("n", "int32")
    A = te.placeholder((5, n), name="A")
    k = te.reduce_axis((0, n), "k")
    B = te.compute((5,), lambda i: te.sum(A[i, k], axis=k), name="B")
    C = te.compute((5,), lambda i: B[i] * 2.0, name="C")
    return A, B, C


def test_compute_at_symbolic_reduction_extent():
    A, B, C = _sym_row_sum()
    func = te.create_prim_func([A, C])
    sch = Schedule(func)
    sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])
    assert "2147483647" not in sch.mod.script()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    assert "2147483647" not in str(tvm.lower(s, [A, C]))
    base = te.create_schedule(C.op)
    rng = np.random.default_rng(1)
    _run_sym([tvm.lower(base, [A, C]), sch.mod, tvm.lower(s, [A, C])],
             lambda m: [rng.random((5, m), dtype=np.float32)], lambda a: 2 * a.sum(axis=1))


def _sym_scale():
    n = tir.Var("n", "int32")
    A = te.placeholder((3, n), name="A")
    B = te.compute((3, n), lambda i, j: A[i, j] * 2.0, name="B")
    return A, B


def test_fuse_symbolic_extent_with_caches():
    A, B = _sym_scale()
    func = te.create_prim_func([A, B])
    sch = Schedule(func)
    fo, _ = sch.split(sch.fuse(*sch.get_loops(sch.get_block("B"))), factors=[None, 8])
    sch.compute_at(sch.cache_read(sch.get_block("B"), 0, "global"), fo)
    sch.cache_write(sch.get_block("B"), 0, "global")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "global", [B])
    BB = s.cache_write(B, "global")
    fo2, _ = s[B].split(s[B].fuse(*s[B].op.axis), factor=8)
    s[BB].compute_at(s[B], fo2)
    s[AA].compute_at(s[B], fo2)
    lowered = [tvm.lower(sch.mod), tvm.lower(s, [A, B])]
    for m in lowered:
        assert "2147483648" not in str(m) and "allocate([0]" not in str(m)
    base = te.create_schedule(B.op)
    rng = np.random.default_rng(2)
    _run_sym([tvm.lower(base, [A, B])] + lowered,
             lambda m: [rng.random((3, m), dtype=np.float32)], lambda a: 2 * a)


def test_fuse_extent_beyond_int32_is_refused():
    A = te.placeholder((1 << 16, 1 << 16), name="A", dtype="int8")
    B = te.compute(A.shape, lambda i, j: A[i, j] + tir.const(1, "int8"), name="B")
    sch = Schedule(te.create_prim_func([A, B]))
    with pytest.raises(ScheduleError, match=r'fuse.*"i".*does not fit'):
        sch.fuse(*sch.get_loops(sch.get_block("B")))


# ---- reduction init hoisting keeps the spatial part of the block predicate

def _guarded_row_sum():
    from tvmlite.script import tir as T

    @T.prim_func
    def func(A: T.Buffer((5, 4), "float32"), B: T.Buffer((4,), "float32")):
        for io, k in T.grid(5, 4):
            with T.block("B"):
                vi = T.axis.spatial(4, io)
                vk = T.axis.reduce(4, k)
                T.where(io * 4 + k < 16)  # excludes io == 4 at every k, also at k == 0
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
    return func


@pytest.mark.parametrize("decompose", [False, True])
def test_reduction_init_keeps_predicate_over_outer_loops(decompose):
    func = _guarded_row_sum()
    mod = tvm.IRModule({"main": func})
    if decompose:
        sch = Schedule(func)
        sch.decompose_reduction(sch.get_block("B"), sch.get_loops(sch.get_block("B"))[1])
        mod = sch.mod
    a = np.random.default_rng(3).random((5, 4), dtype=np.float32)
    with tvm.transform.PassContext(config={"tir.instrument_bound_checkers": True}):
        f = tvm.build(mod, target="llvm")
    b = tvm.nd.array(np.full(4, GARBAGE, "float32"))
    f(tvm.nd.array(a), b)  # an init of B[4] is out of bounds: TVMError
    np.testing.assert_allclose(b.numpy(), a[:4].sum(axis=1), rtol=1e-6)


def test_split_rfactor_compute_at_matches_unscheduled():
    def make():
        A = te.placeholder((13, 17), name="A")
        k = te.reduce_axis((0, 17), "k")
        B = te.compute((13,), lambda i: te.sum(A[i, k], axis=k, init=0.25), name="B")
        return [A, B], 1

    def ref(a):
        return a.sum(axis=1) + 0.25

    def te_sched(s, args):
        B = args[1]
        _, ki = s[B].split(B.op.reduce_axis[0], factor=4)
        BF = s.rfactor(B, ki, factor_axis=1)
        io, _ = s[B].split(s[B].op.axis[0], factor=3)
        s[BF].compute_at(s[B], io)

    def tir_sched(s):
        i, k = s.get_loops(s.get_block("B"))
        ko, ki = s.split(k, factors=[None, 4])
        s.reorder(ko, ki, i)
        rf = s.rfactor(ki, 1)
        io, _ = s.split(s.get_loops(s.get_block("B"))[0], factors=[None, 3])
        s.compute_at(rf, io)
    _check_te(make, te_sched, ref)
    _check_tir(make, tir_sched, ref)


# ---- TE reorder, then cache_write of a reduction

def _row_sum(n=7, m=9):
    def make():
        A = te.placeholder((n, m), name="A")
        k = te.reduce_axis((0, m), "k")
        B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k, init=0.5), name="B")
        return [A, B], 1
    return make, lambda a: a.sum(axis=1) + 0.5


@pytest.mark.parametrize("order", ["identity", "reduce_outer"])
def test_reorder_then_cache_write(order):
    make, ref = _row_sum()

    def te_sched(s, args):
        B = args[1]
        i, k = B.op.axis[0], B.op.reduce_axis[0]
        s[B].reorder(*((i, k) if order == "identity" else (k, i)))
        BC = s.cache_write(B, "global")
        io, _ = s[B].split(s[B].op.axis[0], factor=3)
        if order == "identity":
            s[BC].compute_at(s[B], io)

    def tir_sched(s):
        i, k = s.get_loops(s.get_block("B"))
        s.reorder(*((i, k) if order == "identity" else (k, i)))
        s.cache_write(s.get_block("B"), 0, "global")
    _check_te(make, te_sched, ref)
    _check_tir(make, tir_sched, ref)


def test_cache_write_after_a_reduction_split_is_a_clear_error():
    # a data-parallel split is re-laid out as classic TE does
    # (tests/test_te_cache_write_relayout.py); a split reduction cannot be, in classic TE too
    make, _ = _row_sum()
    args, _ = make()
    B = args[1]
    s = te.create_schedule(B.op)
    s[B].split(B.op.reduce_axis[0], factor=2)
    with pytest.raises(TVMError, match="cache_write"):
        s.cache_write(B, "global")


@pytest.mark.parametrize("symbolic", [False, True])
@pytest.mark.parametrize("at", [0, 1, 2])
def test_reverse_compute_at_2d_tiles_still_allowed(symbolic, at):
    """The coverage check must not refuse ordinary tiles (constant or symbolic shapes)."""
    n = tir.Var("n", "int32") if symbolic else 13
    m = tir.Var("m", "int32") if symbolic else 11
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + 1.0, name="C")
    sch = Schedule(te.create_prim_func([A, C]))
    i, j = sch.get_loops(sch.get_block("B"))
    io, ii = sch.split(i, factors=[None, 4])
    jo, ji = sch.split(j, factors=[None, 3])
    sch.reorder(io, jo, ii, ji)
    sch.reverse_compute_at(sch.get_block("C"), [io, jo, ii][at])
    a = np.random.default_rng(at).random((13, 11), dtype=np.float32)
    (got,) = _run(sch.mod, [a], [(13, 11)])
    np.testing.assert_allclose(got, 2 * a + 1, rtol=1e-6)


@pytest.mark.parametrize("n,m", [(2, 1), (5, 3)])
@pytest.mark.parametrize("order", ["bind_first", "copy_first"])
def test_write_at_shared_and_a_virtual_thread_in_either_order(order, n, m):
    """Fuzz seed 11 case 8699 and seed 12 (7 cases): a read_at/write_at copy under a loop bound
    to a virtual thread computed wrong results (the shared copy was compacted to one virtual
    thread's part and shared by all of them); in either order the result is right."""
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    C = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    if order == "bind_first":
        sch.bind(sch.get_loops(sch.get_block("C"))[0], "vthread.x")
        sch.write_at(sch.get_loops(sch.get_block("C"))[0], sch.get_block("C"), 0, "shared")
    else:
        sch.write_at(sch.get_loops(sch.get_block("C"))[0], sch.get_block("C"), 0, "shared")
        sch.bind(sch.get_loops(sch.get_block("C_shared"))[0], "vthread.x")
    f = tvm.build(sch.mod)
    a = np.random.default_rng(n).standard_normal((n, m)).astype("float32")
    c = tvm.nd.array(np.full(n, 7.0, "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a.sum(1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n, m", [(2, 1), (5, 3)])
def test_shared_cache_sized_for_one_virtual_thread_is_replicated(n, m):
    """Fuzz seed 15 case 5551: a shared cache allocated inside a block under a virtual-thread
    loop holds one virtual thread's element (stored at ``i - i``); injection kept one copy for
    all virtual threads, so every one read the last one's value."""
    A = te.placeholder((n, m), name="A")
    C = te.compute((n, m), lambda i, j: A[i, j] * 2.0 + 1.0, name="C")
    sch = Schedule(te.create_prim_func([A, C]))
    sch.blockize(sch.get_loops(sch.get_block("C"))[1])
    sch.cache_write(sch.get_block("C"), 0, "shared")
    sch.cache_write(sch.get_block("C_o"), 0, "global")
    sch.bind(sch.get_loops(sch.get_block("C_o"))[0], "vthread.x")
    f = tvm.build(sch.mod, target="llvm")
    a = np.random.default_rng(n).uniform(-1, 1, (n, m)).astype("float32")
    c = tvm.nd.array(np.full((n, m), np.nan, "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2.0 + 1.0, rtol=1e-6)
