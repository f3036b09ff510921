"""tir.Schedule.blockize / tensorize and tir.TensorIntrin."""
import numpy as np
import pytest
from programs import matmul, matmul_desc

import tvmlite as tvm
from tvmlite.ir.structural import structural_equal
from tvmlite.script import tir as T
from tvmlite.tir import ScheduleError, TensorIntrin
from tvmlite.tir.functor import post_order_visit

gemm_desc = matmul_desc(4, 4, 4)


@T.prim_func
def gemm_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    sa = T.int32()
    sb = T.int32()
    sc = T.int32()
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1, strides=[sa, 1])
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1, strides=[sb, 1])
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1, strides=[sc, 1])
    with T.block("root"):
        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])
        T.writes(C[0:4, 0:4])
        T.evaluate(T.call_extern("int32", "gemm4x4_update", C.data, C.elem_offset, sc,
                                 A.data, A.elem_offset, sa, B.access_ptr("r"), sb))


@T.prim_func
def gemm_init_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1)
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1)
    for i, j, k in T.grid(4, 4, 4):
        with T.block("update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def gemm_init_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1, strides=[64, 1])
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1, strides=[64, 1])
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1, strides=[64, 1])
    # a TIR implementation (no extern call): zero the tile, then accumulate
    for i, j in T.grid(4, 4):
        C[i, j] = T.float32(0)
        for k in range(4):
            C[i, j] = C[i, j] + A[i, k] * B[k, j]


@T.prim_func
def compact_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1)
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1)
    T.evaluate(T.call_extern("int32", "gemm4x4_update", C.data, C.elem_offset, 4,
                             A.data, A.elem_offset, 4, B.data, 4))


KERNEL = r"""
int gemm4x4_update(float* c, int co, int sc, float* a, int ao, int sa, float* b, int sb) {
  c += co; a += ao;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float acc = c[i * sc + j];
      for (int k = 0; k < 4; ++k) acc += a[i * sa + k] * b[k * sb + j];
      c[i * sc + j] = acc;
    }
  return 0;
}
"""

TensorIntrin.register("test_gemm4x4", gemm_desc, gemm_impl, override=True)
TensorIntrin.register("test_gemm4x4_init", gemm_init_desc, gemm_init_impl, override=True)


mm = matmul(64, 64, 64)


def _tiled(tile_k=4):
    sch = tvm.tir.Schedule(mm)
    i, j, k = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 4])
    k0, k1 = sch.split(k, [None, tile_k])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    return sch, (i0, j0, k0, i1, j1, k1)


def _run(mod, name="mm"):
    rng = np.random.default_rng(0)
    a = rng.random((64, 64)).astype("float32")
    b = rng.random((64, 64)).astype("float32")
    c = tvm.nd.array(np.full((64, 64), 7, "float32"))  # garbage: init must happen
    tvm.build(mod, target="llvm")[name](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)


def _calls(func):
    out = []
    post_order_visit(func.body, lambda x: out.append(x.args[0].value) if isinstance(
        x, tvm.tir.Call) and x.op == "call_extern" else None)
    return out


def test_blockize_expected_ir_and_result():
    sch, (i0, j0, k0, i1, j1, k1) = _tiled()
    outer = sch.blockize(i1)
    blk = sch.get(outer)
    assert blk.name_hint == "C_o"
    assert [(iv.var.name, iv.dom.extent.value, int(iv.iter_type)) for iv in blk.iter_vars] == [
        ("vi_o", 16, 0), ("vj_o", 16, 0), ("vk_o", 16, 2)]
    # init moved to the outer block: a loop nest over the inner spatial loops
    text = sch.mod.script()
    assert 'with T.block("C_init")' in text
    assert "C[vi_o * 4 + vi_i, vj_o * 4 + vj_i] = C[vi_o * 4 + vi_i, vj_o * 4 + vj_i] + " \
        "A[vi_o * 4 + vi_i, vk_o * 4 + vk_i] * B[vk_o * 4 + vk_i, vj_o * 4 + vj_i]" in text
    assert sch.get_child_blocks(outer)[0].name == "C"
    assert sch.get_loops(sch.get_block("C"))[0] == i1
    _run(sch.mod)


def test_blockize_spatial_only_and_round_trip():
    sch = tvm.tir.Schedule(mm)
    i, j, k = sch.get_loops(sch.get_block("C"))
    outer = sch.blockize(j)  # the whole j, k nest inside; vi only outside
    # TVM's rule: vi moves out as it is, vj and vk leave unit outer iterators
    assert [iv.var.name for iv in sch.get(outer).iter_vars] == ["vi", "vj_o", "vk_o"]
    assert [int(iv.dom.extent) for iv in sch.get(outer).iter_vars] == [64, 1, 1]
    _run(sch.mod)
    again = tvm.script.from_source(sch.mod.script())
    assert structural_equal(again["main"].body, sch.mod["main"].body)


def test_blockize_errors():
    sch, (i0, j0, k0, i1, j1, k1) = _tiled()
    sch.fuse(i1, j1)  # binding i1*4+j1 //4 ... still divisible by the fused loop
    sch2 = tvm.tir.Schedule(mm)
    i, j, k = sch2.get_loops(sch2.get_block("C"))
    f = sch2.fuse(i, j)
    a, b = sch2.split(f, [None, 3])  # vi = (a*3+b)//64 cannot be divided at b
    with pytest.raises(ScheduleError, match="blockize"):
        sch2.blockize(b)

    @T.prim_func
    def two(A: T.Buffer[(8,), "float32"], B: T.Buffer[(8,), "float32"]):
        for i in range(8):
            with T.block("a"):
                vi = T.axis.spatial(8, i)
                A[vi] = T.float32(1)
            with T.block("b"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi]
    s3 = tvm.tir.Schedule(two)
    with pytest.raises(ScheduleError, match="exactly one block"):
        s3.blockize(s3.get_loops(s3.get_block("a"))[0])


def test_tensorize_extern_kernel_linked():
    sch, (i0, j0, k0, i1, j1, k1) = _tiled()
    sch.tensorize(i1, "test_gemm4x4")
    func = sch.mod["main"]
    assert _calls(func) == ["gemm4x4_update"]
    text = sch.mod.script()
    # classic TVM's form: the implementation's buffers are T.match_buffer views of the
    # matched tiles (lowering binds their offsets and strides: the run below checks it)
    assert ("C_1 = T.match_buffer(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4], (4, 4), "
            "strides=(sc, 1)") in text
    assert "C_1.data, C_elem_offset, sc, A_1.data, A_elem_offset, sa" in text
    assert 'with T.block("C")' not in text and 'T.block("C_init")' in text
    sch.annotate(i0, "pragma_import_c", KERNEL)
    _run(sch.mod)
    # the trace replays to the same module
    replay = tvm.tir.Schedule(mm)
    exec("\n".join(sch.trace.as_python()), {"sch": replay, "T": T})
    assert structural_equal(replay.mod["main"], sch.mod["main"])


def test_tensorize_desc_with_init_rejects_wrong_nests():
    sch2 = tvm.tir.Schedule(mm)
    i, j, k = sch2.get_loops(sch2.get_block("C"))
    i0, i1 = sch2.split(i, [None, 4])
    j0, j1 = sch2.split(j, [None, 4])
    k0, k1 = sch2.split(k, [None, 4])
    sch2.reorder(i0, j0, i1, j1, k0, k1)
    with pytest.raises(ScheduleError, match="the intrinsic has 3 loops, the block 4"):
        sch2.tensorize(i1, "test_gemm4x4_init")

    sch3 = tvm.tir.Schedule(mm)
    i, j, k = sch3.get_loops(sch3.get_block("C"))
    k0, k1 = sch3.split(k, [None, 4])
    i0, i1 = sch3.split(i, [None, 4])
    j0, j1 = sch3.split(j, [None, 4])
    sch3.reorder(i0, j0, k0, i1, j1, k1)
    with pytest.raises(ScheduleError, match="reduction continues outside"):
        sch3.tensorize(i1, "test_gemm4x4_init")


def test_tensorize_desc_with_init_whole_reduction():
    mm4 = matmul(64, 4, 64, "mm4")

    @T.prim_func
    def impl(a: T.handle, b: T.handle, c: T.handle) -> None:
        A = T.match_buffer(a, (4, 4), "float32", offset_factor=1, strides=[4, 1])
        B = T.match_buffer(b, (4, 4), "float32", offset_factor=1, strides=[64, 1])
        C = T.match_buffer(c, (4, 4), "float32", offset_factor=1, strides=[64, 1])
        for i, j in T.grid(4, 4):
            C[i, j] = T.float32(0)
            for k in range(4):
                C[i, j] = C[i, j] + A[i, k] * B[k, j]
    TensorIntrin.register("test_gemm4x4_full", gemm_init_desc, impl, override=True)
    sch = tvm.tir.Schedule(mm4)
    i, j, k = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 4])
    sch.reorder(i0, j0, i1, j1, k)
    outer = sch.blockize(i1)
    sch.tensorize(outer, "test_gemm4x4_full")
    text = sch.mod.script()
    assert "T.init()" not in text and "C_init" not in text
    rng = np.random.default_rng(1)
    a = rng.random((64, 4)).astype("float32")
    b = rng.random((4, 64)).astype("float32")
    c = tvm.nd.array(np.full((64, 64), 3, "float32"))
    tvm.build(sch.mod, target="llvm")["mm4"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)


def test_tensorize_errors_leave_schedule_unchanged():
    sch, (i0, j0, k0, i1, j1, k1) = _tiled(tile_k=8)
    before = sch.mod
    with pytest.raises(ScheduleError, match="extent"):
        sch.tensorize(i1, "test_gemm4x4")  # k tile 8, intrinsic 4
    assert sch.mod is before
    with pytest.raises(tvm.error.TVMError, match="no TensorIntrin"):
        sch.tensorize(i1, "no_such_intrin")
    with pytest.raises(tvm.error.TVMError, match="already registered"):
        TensorIntrin.register("test_gemm4x4", gemm_desc, gemm_impl)
    with pytest.raises(ValueError, match="parameters"):
        TensorIntrin(gemm_desc, mm.with_body(mm.body).__class__(
            mm.params[:2], mm.body, None, {p: mm.buffer_map[p] for p in mm.params[:2]}))

    # classic TVM's form: the compact declaration is a T.match_buffer of a strided region,
    # refused when lowering (the pointer would be read with the wrong strides)
    sch4, (i0, j0, k0, i1, j1, k1) = _tiled()
    TensorIntrin.register("test_compact", gemm_desc, compact_impl, override=True)
    sch4.tensorize(i1, "test_compact")
    with pytest.raises(tvm.error.TVMError, match=r"T.match_buffer A viewing A: the buffer "
                       r"declares a compact layout \(stride 4\) but the region it views has "
                       r"stride 64; declare the buffer with strides"):
        tvm.build(sch4.mod, target="llvm")

    mm_f64 = matmul(8, 8, 8, "mm_f64", "float64")
    s5 = tvm.tir.Schedule(mm_f64)
    i, j, k = s5.get_loops(s5.get_block("C"))
    i0, i1 = s5.split(i, [None, 4])
    j0, j1 = s5.split(j, [None, 4])
    k0, k1 = s5.split(k, [None, 4])
    s5.reorder(i0, j0, k0, i1, j1, k1)
    with pytest.raises(ScheduleError, match="float32"):
        s5.tensorize(i1, "test_gemm4x4")


@pytest.mark.parametrize("intrin_mod, name, lanes, depth, xdt, wdt", [
    ("x86", "VNNI_DOT_16x4_INTRIN", 16, 4, "uint8", "int8"),
    ("arm_cpu", "ARM_DOT_4x4_i8_SDOT_INTRIN", 4, 4, "int8", "int8"),
    ("hexagon", "VDMPY_i16i16i32_INTRIN", 32, 2, "int16", "int16"),
])
def test_tensorize_classic_dot_product_intrinsics(intrin_mod, name, lanes, depth, xdt, wdt):
    import importlib

    from tvmlite import te

    intrin = getattr(importlib.import_module(f"tvmlite.tir.tensor_intrin.{intrin_mod}"), name)
    m, n, k = 5, lanes * 3, depth * 5
    X = te.placeholder((m, k), name="X", dtype=xdt)
    W = te.placeholder((n, k), name="W", dtype=wdt)
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(
        X[i, r].astype("int32") * W[j, r].astype("int32"), axis=r), name="C")
    func = te.create_prim_func([X, W, C])
    sch = tvm.tir.Schedule(func)
    block = sch.get_block("C")
    _, j, kk = sch.get_loops(block)
    _, ji = sch.split(j, [None, lanes])
    ko, _ = sch.split(kk, [None, depth])
    sch.reorder(ko, ji)
    sch.decompose_reduction(block, ko)
    sch.tensorize(ji, intrin)
    # the implementation's own block reads and writes the scheduled buffers, or the
    # T.match_buffer views of them the tensorized block declares (classic TVM's form)
    bufs, views = set(), {}
    post_order_visit(sch.mod["main"].body, lambda n: bufs.update(
        r.buffer for r in getattr(n, "reads", ()) + getattr(n, "writes", ())))
    post_order_visit(sch.mod["main"].body, lambda n: views.update(
        (mb.buffer, mb.source.buffer.name) for mb in getattr(n, "match_buffers", ())))
    assert {views.get(b, b.name) for b in bufs} <= {"X", "W", "C"}, bufs
    assert views
    lo, hi = np.iinfo(xdt).min, np.iinfo(xdt).max
    x = np.random.randint(lo, hi, (m, k)).astype(xdt)
    w = np.random.randint(np.iinfo(wdt).min, np.iinfo(wdt).max, (n, k)).astype(wdt)
    want = x.astype("int64") @ w.astype("int64").T
    for mod in (func, sch.mod):
        c = tvm.nd.array(np.zeros((m, n), "int32"))
        tvm.build(mod, target="llvm")(tvm.nd.array(x), tvm.nd.array(w), c)
        np.testing.assert_equal(c.numpy(), want.astype("int32"))


def test_tensor_intrin_missing_name_is_a_value_error():
    from tvmlite.error import TVMError

    assert TensorIntrin.get("no_such_intrin", allow_missing=True) is None
    for exc in (ValueError, TVMError):
        with pytest.raises(exc, match="no TensorIntrin registered under 'no_such_intrin'"):
            TensorIntrin.get("no_such_intrin")


# --------------------------------------------------------------------------- match_buffer form
@T.prim_func
def compact_tir_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1)
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])
        T.writes(C[0:4, 0:4])
        for i, j, k in T.grid(4, 4, 4):
            C[i, j] = C[i, j] + A[i, k] * B[k, j]


@T.prim_func
def constant_offset_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", strides=[64, 1])
    B = T.match_buffer(b, (4, 4), "float32", strides=[64, 1])
    C = T.match_buffer(c, (4, 4), "float32", strides=[64, 1])
    T.evaluate(T.call_extern("int32", "gemm4x4_update", C.data, 0, 64, A.data, 0, 64,
                             B.data, 64))


def test_tensorize_declares_match_buffers_of_the_tiles():
    sch, (i0, j0, k0, i1, j1, k1) = _tiled()
    TensorIntrin.register("test_compact_tir", gemm_desc, compact_tir_impl, override=True)
    sch.tensorize(i1, "test_compact_tir")
    block = sch.get(sch.get_block("C_o"))
    assert [mb.source.buffer.name for mb in block.match_buffers] == ["A", "B", "C"]
    assert [[str(r.extent) for r in mb.source.region] for mb in block.match_buffers] == \
        [["4", "4"]] * 3
    # compact declarations of strided tiles are fine when only loads and stores use them
    _run(sch.mod)


def test_tensorize_view_whose_offset_cannot_be_passed_is_refused_when_built():
    sch, (i0, j0, k0, i1, j1, k1) = _tiled()
    TensorIntrin.register("test_const_offset", gemm_desc, constant_offset_impl, override=True)
    sch.tensorize(i1, "test_const_offset")
    with pytest.raises(tvm.error.TVMError, match=r"block C_o: T.match_buffer A viewing A: the "
                       r"buffer has the constant elem_offset 0 but the region starts at"):
        tvm.build(sch.mod, target="llvm")
