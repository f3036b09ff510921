"""rfactor: classic TVM's layout (the rfactor nest under copies of all the block's loops, then
the write-back under the original loops that do not feed only the reduction), blocks whose
only reduction loop is the factored one, and the refusals classic makes. Each accepted case
is built and compared with the unscheduled function on random inputs at odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func
def matmul(A: T.Buffer((13, 11), "float32"), B: T.Buffer((9, 11), "float32"),
           C: T.Buffer((13, 9), "float32")):
    for i, j, k in T.grid(13, 9, 11):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


@T.prim_func
def rowsum_1d(A: T.Buffer((19,), "float32"), B: T.Buffer((), "float32")):
    for k in range(19):
        with T.block("B"):
            vk = T.axis.R(19, k)
            with T.init():
                B[()] = T.float32(0)
            B[()] = B[()] + A[vk]


@T.prim_func
def rowsum_unit_loop(A: T.Buffer((5, 21), "float32"), B: T.Buffer((5,), "float32")):
    for i, k, _u in T.grid(5, 21, 1):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def rowsum_unbound_outer(A: T.Buffer((5, 21), "float32"), B: T.Buffer((5,), "float32")):
    for _x, i, k in T.grid(3, 5, 21):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def rowsum_parallel(A: T.Buffer((5, 21), "float32"), B: T.Buffer((5,), "float32")):
    for i in range(5):
        for k in T.parallel(21):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def rowsum_square_index(A: T.Buffer((5, 64), "float32"), B: T.Buffer((5,), "float32")):
    for i, k in T.grid(5, 8):
        with T.block("B"):
            vi = T.axis.S(5, i)
            vk = T.axis.R(64, k * k)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def reduce_index_in_output(A: T.Buffer((5, 7), "float32"), B: T.Buffer((5, 7), "float32")):
    for i, k in T.grid(5, 7):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi, vk] = T.float32(0)
            B[vi, vk] = B[vi, vk] + A[vi, vk]


def _run(func, args):
    f = tvm.build(tvm.IRModule({"main": func}), target="llvm")
    nd = [tvm.nd.array(a) for a in args]
    f(*nd)
    return nd[-1].numpy()


def _same_as_unscheduled(func, sch, in_shapes, out_shape):
    rng = np.random.default_rng(7)
    ins = [rng.random(s, dtype=np.float32) for s in in_shapes]
    want = _run(func, ins + [np.zeros(out_shape, "float32")])
    got = _run(sch.mod["main"], ins + [np.zeros(out_shape, "float32")])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _top_level(sch):
    body = sch.mod["main"].body.block.body
    return list(body.seq) if isinstance(body, tvm.tir.SeqStmt) else [body]


def test_rfactor_classic_layout_non_divisible():
    s = Schedule(matmul)
    i, j, k = s.get_loops(s.get_block("C"))
    k0, k1 = s.split(k, [None, 4])
    rf = s.rfactor(k1, 1)
    # two nests side by side: the rfactor block under copies of i, j, k0, k1, the write-back
    # under the original i, j, k1
    rf_nest, wb_nest = _top_level(s)
    assert [lp.loop_var.name for lp in _loops_of(rf_nest)] == ["i", "j", "k_0", "k_1"]
    assert [lp.loop_var.name for lp in _loops_of(wb_nest)] == ["i", "j", "k_1"]
    wb = s.get(s.get_block("C"))
    assert [iv.iter_type for iv in wb.iter_vars][0] == tvm.tir.IterVar.CommReduce
    assert s.get(rf).name_hint == "C_rf"
    _same_as_unscheduled(matmul, s, [(13, 11), (9, 11)], (13, 9))


def _loops_of(stmt):
    out = []
    while isinstance(stmt, tvm.tir.For):
        out.append(stmt)
        stmt = stmt.body
    return out


def test_rfactor_of_the_only_reduction_loop_has_no_init():
    s = Schedule(rowsum_1d)
    (k,) = s.get_loops(s.get_block("B"))
    rf = s.rfactor(k, 0)
    assert s.get(rf).init is None
    _same_as_unscheduled(rowsum_1d, s, [(19,)], ())


def test_rfactor_of_an_unbound_unit_loop():
    s = Schedule(rowsum_unit_loop)
    _, _, u = s.get_loops(s.get_block("B"))
    s.rfactor(u, 0)
    _same_as_unscheduled(rowsum_unit_loop, s, [(5, 21)], (5,))


def test_rfactor_keeps_an_unbound_outer_loop():
    s = Schedule(rowsum_unbound_outer)
    _, _, k = s.get_loops(s.get_block("B"))
    _, k1 = s.split(k, [None, 5])
    s.rfactor(k1, 0)
    _same_as_unscheduled(rowsum_unbound_outer, s, [(5, 21)], (5,))


@pytest.mark.parametrize("func, pick, reason", [
    (rowsum_unbound_outer, 0, "does not iterate over a reduction iterator"),
    (rowsum_parallel, 1, "serial"),
    (rowsum_square_index, 1, "not quasi-affine"),
    (reduce_index_in_output, 1, "uses a reduction iterator"),
    (matmul, 0, "binds a spatial one"),
])
def test_rfactor_refusals(func, pick, reason):
    s = Schedule(func)
    block = s.get_block("C" if func is matmul else "B")
    loop = s.get_loops(block)[pick]
    before = s.mod["main"]
    with pytest.raises(ScheduleError) as e:
        s.rfactor(loop, 0)
    assert "rfactor" in str(e.value) and reason in str(e.value)
    tvm.ir.assert_structural_equal(s.mod["main"], before)


@T.prim_func
def scaled_rowsum(A: T.Buffer((7, 13), "float32"), B: T.Buffer((7,), "float32"),
                  D: T.Buffer((7,), "float32")):
    P = T.alloc_buffer((7, 13))
    for i in range(7):
        for k in range(13):
            with T.block("P"):
                vi, vk = T.axis.remap("SS", [i, k])
                P[vi, vk] = A[vi, vk] * T.float32(2) + T.float32(1)
        for k in range(13):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + P[vi, vk]
        with T.block("D"):
            vi = T.axis.S(7, i)
            D[vi] = B[vi] * T.float32(3)


def test_rfactor_refused_when_its_producer_shares_the_outermost_loop():
    """Fuzz seed 11 case 3653: the rfactor nest goes before the block's outermost loop (classic
    TVM's layout), so it read ``P`` before the block ``P`` under that loop wrote it."""
    s = Schedule(scaled_rowsum)
    before = s.mod["main"]
    with pytest.raises(ScheduleError, match=r'rfactor: block "B".*block "P" under loop "i".*'
                       r'writes "P"'):
        s.rfactor(s.get_loops(s.get_block("B"))[1], 0)
    tvm.ir.assert_structural_equal(s.mod["main"], before)


def test_rfactor_beside_a_consumer_in_the_outermost_loop():
    # only a block writing what the reduction reads is a hazard: with P inlined, D may stay
    s = Schedule(scaled_rowsum)
    s.compute_inline(s.get_block("P"))
    _, k = s.get_loops(s.get_block("B"))
    _, k1 = s.split(k, [None, 4])
    s.rfactor(k1, 0)
    rng = np.random.default_rng(3)
    a = rng.random((7, 13), dtype=np.float32)
    b, d = np.full(7, np.nan, "float32"), np.full(7, np.nan, "float32")
    f = tvm.build(s.mod, target="llvm")
    nd = [tvm.nd.array(x) for x in (a, b, d)]
    f(*nd)
    np.testing.assert_allclose(nd[2].numpy(), (a * 2 + 1).sum(axis=1) * 3, rtol=1e-5)


# --------------------------------------------------------------------------- let-bound updates
@T.prim_func
def matmul_let(A: T.Buffer((13, 11), "float32"), B: T.Buffer((9, 11), "float32"),
               C: T.Buffer((13, 9), "float32")):
    for i, j, k in T.grid(13, 9, 11):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            v_C: T.float32 = C[vi, vj] + A[vi, vk] * B[vj, vk]
            C[vi, vj] = v_C


def test_rfactor_of_a_let_bound_update():
    s = Schedule(matmul_let)
    _, _, k = s.get_loops(s.get_block("C"))
    _, k1 = s.split(k, [None, 4])
    s.rfactor(k1, 0)
    assert isinstance(s.get(s.get_block("C_rf")).body, tvm.tir.BufferStore)
    _same_as_unscheduled(matmul_let, s, [(13, 11), (9, 11)], (13, 9))


# --------------------------------------------------------------------------- tuple reducers
def _argmax_func(n, k, op="argmax"):
    A = tvm.te.placeholder((n, k), dtype="int32", name="A")
    B = getattr(tvm.topi, op)(A, axis=1)
    return tvm.te.create_prim_func([A, B])


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("factor, axis", [(4, 0), (3, 1)])
def test_rfactor_of_argmax_breaks_ties_as_unscheduled(op, factor, axis):
    n, k = 7, 13
    func = _argmax_func(n, k, op)
    s = Schedule(func, debug_mask="all")
    block = next(b for b in ("A_red_temp", "placeholder_red_temp") if _has_block(s, b))
    _, r = s.get_loops(s.get_block(block))
    _, r1 = s.split(r, [None, factor])
    rf = s.rfactor(r1, axis)
    assert len(s.get(rf).writes) == 2
    a = np.random.default_rng(5).integers(-3, 3, (n, k)).astype("int32")  # many ties
    want = _run(func, [a, np.zeros((n,), "int32")])
    got = _run(s.mod["main"], [a, np.zeros((n,), "int32")])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, getattr(np, op)(a, axis=1))


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_topi_argmax_takes_the_index_in_a_stage_of_its_own(op):
    n, k = 5, 11
    func = _argmax_func(n, k, op)
    s = Schedule(func, debug_mask="all")
    assert _has_block(s, "A_red_temp") and _has_block(s, "A_red")  # classic TOPI's stages
    _, r = s.get_loops(s.get_block("A_red_temp"))
    _, r1 = s.split(r, [None, 4])
    s.rfactor(r1, 1)
    wb = s.get(s.get_block("A_red_temp"))
    # the write-back reads the partial results in the reducer's order (index, then value)
    assert [x.buffer.name for x in wb.reads] == ["A_red_temp.v0_rf", "A_red_temp.v1_rf"]
    a = np.random.default_rng(9).integers(-2, 2, (n, k)).astype("int32")  # many ties
    got = _run(s.mod["main"], [a, np.zeros((n,), "int32")])
    np.testing.assert_array_equal(got, getattr(np, op)(a, axis=1))


def _has_block(s, name):
    try:
        s.get_block(name)
        return True
    except ScheduleError:
        return False


@T.prim_func
def argmax_first_of_ties(idx: T.Buffer((7, 12), "int32"), val: T.Buffer((7, 12), "float32"),
                         out_i: T.Buffer((7,), "int32"), out_v: T.Buffer((7,), "float32")):
    for i0, k0, k1 in T.grid(7, 3, 4):
        with T.block("argmax"):
            i = T.axis.spatial(7, i0)
            k = T.axis.reduce(12, k0 * 4 + k1)
            with T.init():
                out_i[i] = -1
                out_v[i] = T.min_value("float32")
            v_i: T.int32 = T.Select(out_v[i] >= val[i, k], out_i[i], idx[i, k])
            v_v: T.float32 = T.Select(out_v[i] >= val[i, k], out_v[i], val[i, k])
            out_i[i] = v_i
            out_v[i] = v_v


def test_rfactor_of_an_order_dependent_tuple_reducer_is_refused():
    s = Schedule(argmax_first_of_ties)
    _, _, k1 = s.get_loops(s.get_block("argmax"))
    with pytest.raises(ScheduleError, match=r'rfactor: block "argmax".*keeps the first of '
                       r"equal values"):
        s.rfactor(k1, 0)


@T.prim_func
def argmax_classic_topi(A: T.Buffer((7, 13), "int32"), out_i: T.Buffer((7,), "int32"),
                        out_v: T.Buffer((7,), "int32")):
    for i0, k0 in T.grid(7, 13):
        with T.block("argmax"):
            i, k = T.axis.remap("SR", [i0, k0])
            with T.init():
                out_i[i] = -1
                out_v[i] = -2147483648
            v_i: T.int32 = T.Select(out_v[i] > A[i, k] or out_v[i] == A[i, k] and out_i[i] < k,
                                    out_i[i], k)
            v_v: T.int32 = T.Select(out_v[i] > A[i, k], out_v[i], A[i, k])
            out_i[i] = v_i
            out_v[i] = v_v


def test_rfactor_of_classic_topi_argmax():
    s = Schedule(argmax_classic_topi)
    _, k = s.get_loops(s.get_block("argmax"))
    _, k1 = s.split(k, [None, 5])
    s.rfactor(k1, 1)
    a = np.random.default_rng(9).integers(-2, 2, (7, 13)).astype("int32")
    f = tvm.build(s.mod, target="llvm")
    i, v = tvm.nd.array(np.zeros(7, "int32")), tvm.nd.array(np.zeros(7, "int32"))
    f(tvm.nd.array(a), i, v)
    np.testing.assert_array_equal(i.numpy(), np.argmax(a, axis=1))
    np.testing.assert_array_equal(v.numpy(), a.max(axis=1))
