"""tir.Schedule traces: for every primitive, the trace printed as Python and
``Trace.apply_to_schedule`` both replay to a structurally equal module."""
import numpy as np
import pytest
from programs import matmul_desc, matmul_relu_module

import tvmlite as tvm
from tvmlite.ir.structural import structural_equal
from tvmlite.script import tir as T
from tvmlite.tir import TensorIntrin

Mod = matmul_relu_module(24, 20, 28)
tile_desc = matmul_desc(4, 4, 4)


@T.prim_func
def tile_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1, strides=[20, 1])
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1, strides=[28, 1])
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1, strides=[28, 1])
    for i, j, k in T.grid(4, 4, 4):
        C[i, j] = C[i, j] + A[i, k] * B[k, j]


TensorIntrin.register("test_trace_tile4", tile_desc, tile_impl, override=True)


def _run(mod):
    rng = np.random.default_rng(5)
    a = rng.random((24, 20)).astype("float32") - 0.5
    b = rng.random((20, 28)).astype("float32")
    c = tvm.nd.empty((24, 28), "float32")
    tvm.build(mod, target="llvm")["mm_relu"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-5)


def _replays(sch):
    text = str(sch.trace)
    by_text = tvm.tir.Schedule(Mod)
    namespace = {"tir": tvm.tir}
    exec(text, namespace)  # defines apply_trace(sch), as classic TVM prints it
    namespace["apply_trace"](by_text)
    assert structural_equal(by_text.mod["mm_relu"], sch.mod["mm_relu"]), text
    by_api = tvm.tir.Schedule(Mod)
    sch.trace.apply_to_schedule(by_api, remove_postproc=False)
    assert structural_equal(by_api.mod["mm_relu"], sch.mod["mm_relu"]), text
    assert str(by_api.trace) == text
    _run(sch.mod)
    return text


def _loops_and_kinds(sch):
    root = sch.get_block("root", func_name="mm_relu")
    y, c = sch.get_child_blocks(root)
    i, j, k = sch.get_loops(y)
    j0, j1 = sch.split(j, factors=[None, 8])
    sch.reorder(k, j1)
    sch.reverse_compute_at(c, j0)
    sch.parallel(i)
    sch.vectorize(j1)
    sch.annotate(k, "pragma_unroll_explicit", 0)
    sch.annotate(y, "note", "x")
    sch.unannotate(y, "note")
    ci, cj = sch.get_loops(c)[-2:]
    sch.unroll(cj)


def _inline_and_compute_at(sch):
    c = sch.get_block("C", func_name="mm_relu")
    (y,) = sch.get_producers(c)
    assert sch.get_consumers(y) == [c]
    i, j = sch.get_loops(c)
    f = sch.fuse(i, j)
    f0, f1 = sch.split(f, factors=[None, 5])
    sch.compute_at(y, f0)


def _reverse_inline(sch):
    copy = sch.cache_write(sch.get_block("C", func_name="mm_relu"), 0, "local")
    sch.reverse_compute_inline(copy)
    y = sch.get_block("Y", func_name="mm_relu")
    k = sch.get_loops(y)[2]
    ko, ki = sch.split(k, factors=[None, 3])
    sch.decompose_reduction(y, ko)


def _caches(sch):
    y = sch.get_block("Y", func_name="mm_relu")
    c = sch.get_block("C", func_name="mm_relu")
    sch.cache_read(c, 0, "local", consumer_blocks=[c])
    sch.cache_read(y, 1, "shared")
    sch.cache_write(c, 0, "local")
    sch.storage_align(y, 0, 0, 16, 1)
    sch.set_scope(y, 0, "local")


def _rfactor(sch):
    y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(y)
    ko, ki = sch.split(k, factors=[None, 4])
    sch.rfactor(ki, 0)


def _blockize_tensorize(sch, by_name):
    y = sch.get_block("Y", func_name="mm_relu")
    sch.decompose_reduction(y, sch.get_loops(y)[0])
    i, j, k = sch.get_loops(y)
    i0, i1 = sch.split(i, factors=[None, 4])
    j0, j1 = sch.split(j, factors=[None, 4])
    k0, k1 = sch.split(k, factors=[None, 4])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    intrin = "test_trace_tile4" if by_name else TensorIntrin.get("test_trace_tile4")
    sch.tensorize(i1, intrin)
    sch.blockize(sch.get_loops(sch.get_block("C", func_name="mm_relu"))[1])


@pytest.mark.parametrize("steps", [
    _loops_and_kinds, _inline_and_compute_at, _reverse_inline, _caches, _rfactor,
    lambda s: _blockize_tensorize(s, True), lambda s: _blockize_tensorize(s, False),
], ids=["loops", "compute_at", "reverse_inline", "caches", "rfactor", "tensorize_name",
        "tensorize_object"])
def test_trace_replays_every_primitive(steps):
    sch = tvm.tir.Schedule(Mod)
    before = sch.mod["mm_relu"]
    steps(sch)
    assert not structural_equal(before, sch.mod["mm_relu"])
    _replays(sch)


def test_trace_names_queries_and_registered_intrinsics():
    sch = tvm.tir.Schedule(Mod)
    _loops_and_kinds(sch)
    text = str(sch.trace)
    assert "b1, b2 = sch.get_child_blocks(b0)" in text
    sch2 = tvm.tir.Schedule(Mod)
    _caches(sch2)
    assert "consumer_blocks=[b1]" in str(sch2.trace)
    sch3 = tvm.tir.Schedule(Mod)
    _blockize_tensorize(sch3, by_name=False)
    assert 'tensor_intrin="test_trace_tile4"' in str(sch3.trace)


def test_bind_replays():
    sch = tvm.tir.Schedule(Mod)
    c = sch.get_block("C", func_name="mm_relu")
    i, j = sch.get_loops(c)
    sch.bind(i, "blockIdx.x")
    sch.bind(j, "threadIdx.x")
    replay = tvm.tir.Schedule(Mod)
    sch.trace.apply_to_schedule(replay)
    assert structural_equal(replay.mod["mm_relu"], sch.mod["mm_relu"])
    assert 'thread_axis="threadIdx.x"' in str(sch.trace)
