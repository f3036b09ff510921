"""The user-facing tir.Schedule API (seed 004 style): queries, handles, trace replay, copy,
errors, and the TVMScript features users write."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.ir.structural import structural_equal
from tvmlite.script import tir as T
from tvmlite.tir import ScheduleError


@tvm.script.ir_module
class Mod:
    @T.prim_func
    def mm_relu(a: T.handle, b: T.handle, c: T.handle):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        A = T.match_buffer(a, (32, 32), "float32")
        B = T.match_buffer(b, (32, 32), "float32")
        C = T.match_buffer(c, (32, 32), "float32")
        Y = T.alloc_buffer((32, 32), dtype="float32")
        for i, j, k in T.grid(32, 32, 32):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(32, 32):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))

    @T.prim_func
    def other(A: T.Buffer[(10,), "float32"], B: T.Buffer[(10,), "float32"]):
        for i in T.serial(10):
            with T.block("B"):
                vi = T.axis.spatial(10, i)
                T.where(i < 10)
                B[vi] = T.Select(A[vi] > T.float32(0), T.sqrt(A[vi]),
                                 T.Cast("float32", T.int32(1)))


def _run_mm(mod):
    rng = np.random.default_rng(3)
    a = rng.random((32, 32)).astype("float32") - 0.5
    b = rng.random((32, 32)).astype("float32")
    c = tvm.nd.empty((32, 32), "float32")
    tvm.build(mod, target="llvm")["mm_relu"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-5)


def test_queries():
    sch = tvm.tir.Schedule(Mod)
    y = sch.get_block("Y", func_name="mm_relu")
    c = sch.get_block("C", "mm_relu")
    assert sch.get_producers(c) == [y] and sch.get_consumers(y) == [c]
    assert sch.get_producers(y) == [] and sch.get_consumers(c) == []
    i, j, k = sch.get_loops(y)
    assert [sch.get(l).extent.value for l in (i, j, k)] == [32, 32, 32]
    assert sch.get_child_blocks(i) == [y]
    root = sch.get_block("root", "mm_relu")
    assert sch.get_child_blocks(root) == [y, c]
    with pytest.raises(ScheduleError, match='no block of that name in function "mm_relu"'):
        sch.get_block("nope", func_name="mm_relu")
    b = sch.get_block("B", func_name="other")
    assert len(sch.get_loops(b)) == 1
    with pytest.raises(ValueError, match="no function"):
        sch.get_block("B", func_name="missing")



def test_get_block_needs_a_function_when_the_module_has_no_entry():
    """Two PrimFuncs, neither ``main``: classic's get_block refuses to guess until work_on."""
    sch = tvm.tir.Schedule(Mod)
    with pytest.raises(ValueError, match="does not know which function"):
        sch.get_block("Y")
    sch.work_on("mm_relu")
    sch.split(sch.get_loops(sch.get_block("Y"))[0], [None, 5])
    _run_mm(sch.mod)
    # a single PrimFunc is the entry whatever its name
    one = tvm.tir.Schedule(tvm.IRModule({"other": Mod["other"]}))
    assert len(one.get_loops(one.get_block("B"))) == 1

def test_split_none_annotate_copy_and_trace_replay():
    sch = tvm.tir.Schedule(Mod)
    y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(y)
    j0, j1 = sch.split(j, factors=[None, 8])
    assert sch.get(j0).extent.value == 4
    sch.reorder(k, j1)
    c = sch.get_block("C", "mm_relu")
    sch.reverse_compute_at(c, j0)
    sch.parallel(i)
    sch.vectorize(j1)
    sch.annotate(k, "pragma_unroll_explicit", 0)
    sch.annotate(y, "note", "x")
    sch.unannotate(y, "note")
    with pytest.raises(ScheduleError, match="no annotation"):
        sch.unannotate(y, "note")
    forked = sch.copy()
    forked.unroll(forked.get_loops(forked.get_block("C", "mm_relu"))[-1])
    assert not structural_equal(forked.mod["mm_relu"], sch.mod["mm_relu"])
    text = str(sch.trace)
    assert "sch.split(loop=l2, factors=[None, 8], preserve_unit_iters=True)" in text
    replay = tvm.tir.Schedule(Mod)
    namespace = {"tir": tvm.tir}
    exec(text, namespace)
    namespace["apply_trace"](replay)
    assert structural_equal(replay.mod["mm_relu"], sch.mod["mm_relu"])
    _run_mm(sch.mod)
    _run_mm(forked.mod)


def test_cache_rfactor_decompose_storage_align_set_scope_on_script():
    sch = tvm.tir.Schedule(Mod)
    y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(y)
    ko, ki = sch.split(k, factors=[4, None])
    sch.cache_read(y, 0, "local")
    sch.decompose_reduction(y, ko)
    sch.storage_align(y, 0, 0, 16, 1)  # Y is allocated: its rows get padded
    _run_mm(sch.mod)
    s2 = tvm.tir.Schedule(Mod)
    y = s2.get_block("Y", func_name="mm_relu")
    i, j, k = s2.get_loops(y)
    ko, ki = s2.split(k, factors=[None, 4])
    s2.rfactor(ki, 0)
    s2.set_scope(y, 0, "global")
    _run_mm(s2.mod)


def test_schedule_errors_name_the_condition():
    sch = tvm.tir.Schedule(Mod)
    y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(y)
    with pytest.raises(ScheduleError, match="at most one factor may be None"):
        sch.split(j, factors=[None, None])
    with pytest.raises(ScheduleError, match="parallel|reduction"):
        sch.parallel(k)
    j0, j1 = sch.split(j, factors=[None, 4])
    with pytest.raises(ScheduleError, match="split, fused or removed"):
        sch.get(j)
    assert isinstance(ScheduleError("x"), tvm.error.TVMError)


def test_script_features_and_with_attr():
    f = Mod["other"]
    rng = np.random.default_rng(0)
    a = (rng.random(10).astype("float32") - 0.5)
    b = tvm.nd.empty((10,), "float32")
    tvm.build(tvm.IRModule({"other": f}), target="llvm")["other"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.where(a > 0, np.sqrt(np.abs(a)), 1.0), rtol=1e-6)
    g = f.with_attr("global_symbol", "renamed")
    h = f.with_attr({"global_symbol": "renamed2", "tir.noalias": True})
    assert g.attrs["global_symbol"] == "renamed" and h.attrs["tir.noalias"]
    lib = tvm.build(tvm.IRModule({"renamed": g}), target="llvm")
    lib["renamed"](tvm.nd.array(a), b)
    # round trip of a scheduled module
    sch = tvm.tir.Schedule(Mod)
    i, j, k = sch.get_loops(sch.get_block("Y", func_name="mm_relu"))
    sch.split(i, factors=[None, 8])
    again = tvm.script.from_source(sch.mod.script())
    assert structural_equal(again["mm_relu"], sch.mod["mm_relu"])


def test_script_error_points_at_the_line():
    src = '''
@T.prim_func
def bad(A: T.Buffer[(4,), "float32"]):
    for i in range(4):
        A[i] = undefined_name + 1
'''
    with pytest.raises(tvm.error.TVMError) as err:
        tvm.script.from_source(src)
    assert "5" in str(err.value) and "undefined_name" in str(err.value)
