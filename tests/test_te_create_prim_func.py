"""te.create_prim_func: the block-level PrimFunc made from TE, structure and numerics."""
import numpy as np
import pytest

from tvmlite import te, tir
from tvmlite.error import TVMError
from tvmlite.te.create_prim_func import create_prim_func_with_info
from tvmlite.tir import (
    Block,
    BlockRealize,
    BufferLoad,
    BufferStore,
    For,
    IfThenElse,
    IterVar,
    LetStmt,
    SeqStmt,
)
from tvmlite.tir.interpreter import run

RNG = np.random.default_rng(0)


def _root(f) -> Block:
    assert isinstance(f.body, BlockRealize)
    blk = f.body.block
    assert blk.name_hint == "root" and blk.iter_vars == ()
    return blk


def _nests(f):
    body = _root(f).body
    return list(body.seq) if isinstance(body, SeqStmt) else [body]


def _loops_and_realize(stmt):
    loops = []
    while isinstance(stmt, For):
        loops.append(stmt)
        stmt = stmt.body
    assert isinstance(stmt, BlockRealize)
    return loops, stmt


def _region_str(br):
    def s(e):
        if isinstance(e, tir.IntImm):
            return str(e.value)
        if isinstance(e, tir.Var):
            return e.name
        if isinstance(e, tir.Add):
            return f"{s(e.a)} + {s(e.b)}"
        if isinstance(e, tir.Sub):
            return f"{s(e.a)} - {s(e.b)}"
        return type(e).__name__
    parts = []
    for r in br.region:
        if isinstance(r.extent, tir.IntImm) and r.extent.value == 1:
            parts.append(s(r.min))
        else:
            parts.append(f"{s(r.min)}:+{s(r.extent)}")
    return f"{br.buffer.name}[{', '.join(parts)}]"


def test_vector_add_structure():
    A = te.placeholder((128,), name="A")
    B = te.placeholder((128,), name="B")
    C = te.compute((128,), lambda i: A[i] + B[i], name="C")
    f = te.create_prim_func([A, B, C])
    assert f.attrs == {"global_symbol": "main", "tir.noalias": True}
    assert len(f.params) == 3 and all(p.dtype == "handle" for p in f.params)
    bufs = [f.buffer_map[p] for p in f.params]
    assert [b.name for b in bufs] == ["A", "B", "C"]
    assert all(b.dtype == "float32" and [int(x) for x in b.shape] == [128] for b in bufs)
    root = _root(f)
    assert root.alloc_buffers == ()
    (nest,) = _nests(f)
    loops, realize = _loops_and_realize(nest)
    assert [lp.loop_var.name for lp in loops] == ["i"] and loops[0].extent.value == 128
    blk = realize.block
    assert blk.name_hint == "C" and blk.init is None
    (iv,) = blk.iter_vars
    assert iv.var.name == "v_i" and iv.iter_type == IterVar.DataPar
    assert iv.dom.min.value == 0 and iv.dom.extent.value == 128
    assert realize.iter_values == (loops[0].loop_var,)
    assert isinstance(blk.body, BufferStore) and blk.body.buffer is bufs[2]
    assert blk.body.indices == (iv.var,)
    assert isinstance(blk.body.value.a, BufferLoad) and blk.body.value.a.buffer is bufs[0]
    assert [_region_str(r) for r in blk.reads] == ["A[v_i]", "B[v_i]"]
    assert [_region_str(r) for r in blk.writes] == ["C[v_i]"]
    a, b = RNG.standard_normal(128).astype("float32"), RNG.standard_normal(128).astype("float32")
    c = np.zeros(128, "float32")
    run(f, a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_matmul_reduction_with_init():
    k = te.reduce_axis((0, 6), name="k")
    A = te.placeholder((4, 6), name="A")
    B = te.placeholder((6, 5), name="B")
    C = te.compute((4, 5), lambda x, y: te.sum(A[x, k] * B[k, y], axis=k), name="C")
    f, info = create_prim_func_with_info([A, B, C])
    (nest,) = _nests(f)
    loops, realize = _loops_and_realize(nest)
    assert [lp.loop_var.name for lp in loops] == ["x", "y", "k"]
    blk = realize.block
    assert [iv.var.name for iv in blk.iter_vars] == ["v_x", "v_y", "v_k"]
    assert [iv.iter_type for iv in blk.iter_vars] == [IterVar.DataPar] * 2 + [IterVar.CommReduce]
    assert isinstance(blk.init, BufferStore) and blk.init.value.value == 0.0
    assert blk.init.indices == tuple(iv.var for iv in blk.iter_vars[:2])
    upd = blk.body
    assert isinstance(upd.value, tir.Add) and isinstance(upd.value.a, BufferLoad)
    assert upd.value.a.buffer is info.tensor2buffer[C]
    assert [_region_str(r) for r in blk.reads] == ["A[v_x, v_k]", "B[v_k, v_y]"]
    assert [_region_str(r) for r in blk.writes] == ["C[v_x, v_y]"]
    # the information the schedule facade needs
    assert info.op2block[C.op] == "C"
    x, y = C.op.axis
    bx, lx = info.iter_var_map[x]
    assert bx is blk.iter_vars[0] and lx is loops[0].loop_var
    assert info.iter_var_map[k][1] is loops[2].loop_var
    assert info.tensor2buffer[A] is f.buffer_map[f.params[0]]
    a = RNG.standard_normal((4, 6)).astype("float32")
    b = RNG.standard_normal((6, 5)).astype("float32")
    c = np.full((4, 5), 7, "float32")
    run(f, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_zero_dim_sum_and_symbolic_shapes():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="a")
    i = te.reduce_axis((0, n), name="i")
    j = te.reduce_axis((0, m), name="j")
    B = te.compute((), lambda: te.sum(A[i, j], axis=(i, j)), name="b")
    f = te.create_prim_func([A, B])
    ba = f.buffer_map[f.params[0]]
    assert ba.shape == (n, m)
    (nest,) = _nests(f)
    loops, realize = _loops_and_realize(nest)
    assert [lp.loop_var.name for lp in loops] == ["i", "j"] and loops[0].extent is n
    blk = realize.block
    assert blk.init.indices == () and all(iv.iter_type == IterVar.CommReduce
                                          for iv in blk.iter_vars)
    a = RNG.standard_normal((3, 4)).astype("float32")
    b = np.zeros((), "float32")
    run(f, a, b)
    np.testing.assert_allclose(b, a.sum(), rtol=1e-5)


def test_zero_dim_elementwise_gets_a_dummy_iterator():
    A = te.placeholder((3,), name="A")
    B = te.compute((), lambda: A[1] * 2.0, name="B")
    f = te.create_prim_func([A, B])
    (nest,) = _nests(f)
    assert isinstance(nest, BlockRealize)
    (iv,) = nest.block.iter_vars
    assert iv.dom.extent.value == 1 and nest.iter_values[0].value == 0
    b = np.zeros((), "float32")
    run(f, np.arange(3, dtype="float32"), b)
    assert b == 2.0


def test_argmax_tuple_reducer_one_block():
    def fcombine(x, y):
        lhs = tir.Select(x[1] >= y[1], x[0], y[0])
        rhs = tir.Select(x[1] >= y[1], x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return tir.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    idx = te.placeholder((3, 5), "int32", name="idx")
    val = te.placeholder((3, 5), "float32", name="val")
    k = te.reduce_axis((0, 5), name="k")
    T0, T1 = te.compute((3,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    f = te.create_prim_func([idx, val, T0, T1])
    (nest,) = _nests(f)
    _, realize = _loops_and_realize(nest)
    blk = realize.block
    assert blk.name_hint == "T"
    assert isinstance(blk.init, SeqStmt) and len(blk.init) == 2
    assert isinstance(blk.body, LetStmt) and isinstance(blk.body.body, LetStmt)
    assert [_region_str(r) for r in blk.writes] == ["T.v0[v_i]", "T.v1[v_i]"]
    ind = np.tile(np.arange(5, dtype="int32"), (3, 1))
    v = RNG.standard_normal((3, 5)).astype("float32")
    o0, o1 = np.zeros(3, "int32"), np.zeros(3, "float32")
    run(f, ind, v, o0, o1)
    np.testing.assert_array_equal(o0, v.argmax(axis=1))
    np.testing.assert_array_equal(o1, v.max(axis=1))


def test_two_stage_pipeline_allocates_intermediate():
    A = te.placeholder((8, 8), name="A")
    B = te.placeholder((8, 8), name="B")
    k = te.reduce_axis((0, 8), name="k")
    Y = te.compute((8, 8), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
    C = te.compute((8, 8), lambda i, j: te.max(Y[i, j], 0), name="C")
    f, info = create_prim_func_with_info([A, B, C])
    root = _root(f)
    assert root.alloc_buffers == (info.tensor2buffer[Y],)
    assert [n.block.name_hint for n in (_loops_and_realize(x)[1] for x in _nests(f))] == \
        ["Y", "C"]
    a = RNG.standard_normal((8, 8)).astype("float32")
    b = RNG.standard_normal((8, 8)).astype("float32")
    c = np.zeros((8, 8), "float32")
    run(f, a, b, c)
    np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)


def test_same_stage_names_stay_distinct():
    A = te.placeholder((4,), name="A")
    Y1 = te.compute((4,), lambda i: A[i] + 1.0, name="Y")
    Y2 = te.compute((4,), lambda i: Y1[i] * 2.0, name="Y")
    f, info = create_prim_func_with_info([A, Y2])
    assert info.op2block[Y1.op] == "Y" and info.op2block[Y2.op] == "Y_1"
    assert info.tensor2buffer[Y1] is not info.tensor2buffer[Y2]
    out = np.zeros(4, "float32")
    run(f, np.arange(4, dtype="float32"), out)
    np.testing.assert_array_equal(out, (np.arange(4) + 1.0) * 2.0)


def test_scalar_var_params_and_undefined_vars():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="a")
    bi, si = te.var("bi"), te.var("si")
    B = te.compute(((n - bi) // si, m), lambda i, j: A[i * si + bi, j], name="b")
    f = te.create_prim_func([A, B, bi, si])
    assert f.params[2] is bi and f.params[3] is si
    a = np.arange(12, dtype="float32").reshape(3, 4)
    b = np.zeros((1, 4), "float32")
    run(f, a, b, 1, 2)
    np.testing.assert_array_equal(b, a[1::2])
    with pytest.raises(TVMError, match="variable si"):
        te.create_prim_func([A, B, bi])


def test_missing_placeholder_is_an_error():
    A = te.placeholder((4,), name="Ain")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    with pytest.raises(TVMError, match="placeholder Ain"):
        te.create_prim_func([B])
    with pytest.raises(TypeError, match="Tensors or Vars"):
        te.create_prim_func([A, B, 3])


def test_reduce_condition_and_explicit_init():
    A = te.placeholder((4, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k, where=k < 3, init=10.0), name="B")
    f = te.create_prim_func([A, B])
    (nest,) = _nests(f)
    blk = _loops_and_realize(nest)[1].block
    assert isinstance(blk.body, IfThenElse) and blk.init.value.value == 10.0
    a = RNG.standard_normal((4, 6)).astype("float32")
    b = np.zeros(4, "float32")
    run(f, a, b)
    np.testing.assert_allclose(b, a[:, :3].sum(axis=1) + 10.0, rtol=1e-5)


def test_stencil_reads_are_a_bounding_region():
    A = te.placeholder((10,), name="A")
    B = te.compute((8,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
    f = te.create_prim_func([A, B])
    blk = _loops_and_realize(_nests(f)[0])[1].block
    (r,) = blk.reads
    assert r.region[0].min.name == "v_i" and r.region[0].extent.value == 3
    T = te.compute((4, 4), lambda i, j: A[i] * A[j], name="T")
    f = te.create_prim_func([A, T])
    blk = _loops_and_realize(_nests(f)[0])[1].block
    (r,) = blk.reads
    assert r.region[0].min.value == 0 and r.region[0].extent.value == 10


def test_extern_op_becomes_opaque_block():
    A = te.placeholder((6,), name="A")
    B = te.extern((6,), [A], lambda ins, outs: tir.call_packed("my_add_one", ins[0], outs[0]),
                  name="ext")
    C = te.compute((6,), lambda i: B[i] * 2.0, name="C")
    assert isinstance(B.op, te.ExternOp) and B.op.input_tensors == [A]
    assert B.dtype == "float32" and B.op.inputs == (A,)
    f, info = create_prim_func_with_info([A, C])
    ext, comp = _nests(f)
    assert isinstance(ext, BlockRealize) and ext.block.iter_vars == ()
    assert ext.block.name_hint == "ext"
    assert info.tensor2buffer[B] in _root(f).alloc_buffers
    assert [r.buffer for r in ext.block.reads] == [info.tensor2buffer[A]]
    assert [r.buffer for r in ext.block.writes] == [info.tensor2buffer[B]]
    call = ext.block.body.value
    assert call.args[1] is info.tensor2buffer[A] and call.args[2] is info.tensor2buffer[B]

    def add_one(x, y):
        y[:] = x + 1

    a = np.arange(6, dtype="float32")
    c = np.zeros(6, "float32")
    run(f, a, c, packed_funcs={"my_add_one": add_one})
    np.testing.assert_array_equal(c, (a + 1) * 2)
    with pytest.raises(ValueError, match="infer output type"):
        te.extern((2,), [], lambda ins, outs: tir.call_packed("f", outs[0]))


def test_extern_output_as_argument_keeps_its_buffer():
    A = te.placeholder((3,), name="A")
    B = te.extern((3,), [A], lambda ins, outs: tir.call_packed("cp", ins[0], outs[0]),
                  name="B", dtype="float32")
    f, info = create_prim_func_with_info([A, B])
    assert info.tensor2buffer[B] is B.op.output_placeholders[0]
    assert _root(f).alloc_buffers == ()


def test_binds_supply_buffers():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    Ab = tir.decl_buffer((4,), "float32", name="Abuf")
    f, info = create_prim_func_with_info([A, B], binds={A: Ab})
    assert f.buffer_map[f.params[0]] is Ab and info.tensor2buffer[A] is Ab


def test_index_dtype_override_int64():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    f = te.create_prim_func([A, B], index_dtype_override="int64")
    loops, realize = _loops_and_realize(_nests(f)[0])
    assert loops[0].loop_var.dtype == "int64"
    assert realize.block.iter_vars[0].var.dtype == "int64"
    store = realize.block.body
    assert store.indices[0] is realize.block.iter_vars[0].var  # no casts around indices
    assert store.value.a.indices[0] is realize.block.iter_vars[0].var
    assert [d.dtype for b in f.buffer_map.values() for d in b.shape] == ["int64", "int64"]
    out = np.zeros(4, "float32")
    run(f, np.arange(4, dtype="float32"), out)
    np.testing.assert_array_equal(out, np.arange(4) + 1.0)
    with pytest.raises(ValueError, match="int32 or int64"):
        te.create_prim_func([A, B], index_dtype_override="float32")


def test_index_dtype_override_int64_buffers_build_and_run():
    n, m, r = 13, 7, 5
    A = te.placeholder((n, r), name="A")
    B = te.placeholder((m, r), name="B")
    k = te.reduce_axis((0, r), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    f = te.create_prim_func([A, B, C], index_dtype_override="int64")
    a, b = np.random.rand(n, r).astype("float32"), np.random.rand(m, r).astype("float32")
    c = np.zeros((n, m), "float32")
    run(f, a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5)


def test_layout_free_placeholders_become_a_function_attribute():
    n = 9
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    C = te.compute((n, n), lambda i, j: A[i, j] * B[j, i], name="C",
                   attrs={"layout_free_placeholders": [B]})
    D = te.compute((n, n), lambda i, j: C[i, j] + 1, name="D",
                   attrs={"layout_free_placeholders": [C]})
    f = te.create_prim_func([A, B, D])
    assert list(f.attrs["layout_free_buffers"]) == [1]
    blocks = {}
    tir.stmt_functor.post_order_visit(f.body, lambda x: blocks.setdefault(
        getattr(x, "name_hint", None), x))
    assert blocks["C"].annotations is None  # B is a parameter: only the function says so
    kept = blocks["D"].annotations["layout_free_placeholders"]
    assert len(kept) == 1 and kept[0].name == "C"
    a, b = np.random.rand(n, n).astype("float32"), np.random.rand(n, n).astype("float32")
    d = np.zeros((n, n), "float32")
    run(f, a, b, d)
    np.testing.assert_allclose(d, a * b.T + 1, rtol=1e-6)


def test_multi_output_compute_gets_one_block_per_output():
    # classic's form: blocks B.v0 and B.v1, each with its own iterators, in one loop nest;
    # they schedule separately and the function builds
    import tvmlite as tvm
    m, n = 7, 5
    A0 = te.placeholder((m, n), name="A0")
    A1 = te.placeholder((m, n), name="A1")
    B0, B1 = te.compute((m, n), lambda i, j: (A0[i, j] + 2, A1[i, j] * A0[i, j]), name="B")
    f = te.create_prim_func([A0, A1, B0, B1])
    seq = _nests(f)[0].body.body  # inside the loops over i and j
    assert isinstance(seq, SeqStmt) and [r.block.name_hint for r in seq.seq] == ["B.v0", "B.v1"]
    ivs = [r.block.iter_vars for r in seq.seq]
    assert all(a.var is not b.var for a, b in zip(*ivs))
    s = tir.Schedule(f)
    _, j = s.get_loops(s.get_block("B.v1"))
    s.split(j, [None, 2])  # a non-divisible split of the shared nest
    a0 = RNG.standard_normal((m, n)).astype("float32")
    a1 = RNG.standard_normal((m, n)).astype("float32")
    for func in (f, s.mod["main"]):
        b0, b1 = np.zeros((m, n), "float32"), np.zeros((m, n), "float32")
        run(func, a0, a1, b0, b1)
        np.testing.assert_allclose(b0, a0 + 2, rtol=1e-6)
        np.testing.assert_allclose(b1, a1 * a0, rtol=1e-6)
    lib = tvm.build(s.mod["main"])
    outs = [tvm.nd.empty((m, n), "float32") for _ in range(2)]
    lib(tvm.nd.array(a0), tvm.nd.array(a1), *outs)
    np.testing.assert_allclose(outs[1].numpy(), a1 * a0, rtol=1e-6)
    # the TE schedule keeps the op one stage (one block) and builds the same numbers
    sch = te.create_schedule(B0.op)
    xo, xi = sch[B0].split(B0.op.axis[1], factor=2)
    lib = tvm.build(sch, [A0, A1, B0, B1])
    outs = [tvm.nd.empty((m, n), "float32") for _ in range(2)]
    lib(tvm.nd.array(a0), tvm.nd.array(a1), *outs)
    np.testing.assert_allclose(outs[0].numpy(), a0 + 2, rtol=1e-6)
    np.testing.assert_allclose(outs[1].numpy(), a1 * a0, rtol=1e-6)
