"""tir.ScheduleState as classic TVM's public API: construction from a PrimFunc or an IRModule,
get_sref, and replace (a new function and module every time; the nodes the user holds stay as
they were; references to removed nodes get ``stmt`` None, reused blocks keep theirs)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import tir
from tvmlite.ir import IRModule
from tvmlite.script import tir as T
from tvmlite.tir.schedule import ScheduleError, ScheduleState


@T.prim_func
def two_stages(A: T.Buffer((7, 9), "float32"), C: T.Buffer((7, 9), "float32")):
    B = T.alloc_buffer((7, 9))
    for i, j in T.grid(7, 9):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(7, 9):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + 1.0


@T.prim_func
def three_times(A: T.Buffer((7, 9), "float32"), C: T.Buffer((7, 9), "float32")):
    for i, j in T.grid(7, 9):
        with T.block("C3"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * 3.0


def _run(func):
    a = np.random.default_rng(9).random((7, 9), dtype=np.float32)
    c = tvm.nd.array(np.full((7, 9), -5.0, "float32"))
    tvm.build(func, target="llvm")(tvm.nd.array(a), c)
    return a, c.numpy()


def _seq(func):
    return func.body.block.body


def test_state_from_a_prim_func_or_a_module():
    s = ScheduleState(two_stages, debug_mask="all")
    assert s.mod["main"] is two_stages
    mod = IRModule({"other": three_times, "main": two_stages})
    s = ScheduleState(mod, debug_mask="none", enable_check=False)
    assert s.mod["main"] is two_stages
    with pytest.raises(TypeError, match="IRModule or a PrimFunc"):
        ScheduleState(42)


def test_get_sref_gives_one_reference_per_node():
    s = ScheduleState(two_stages)
    loop = _seq(s.mod["main"])[1]
    assert s.get_sref(loop) is s.get_sref(loop)
    assert s.get_sref(loop).stmt is loop


def test_replace_a_loop_nest_keeps_the_old_function():
    """The second nest (C = B + 1) becomes an opaque block wrapping the first one moved there
    (C's nest is removed): the module and function are new, the held ones unchanged."""
    s = ScheduleState(two_stages)
    old_mod, old_func = s.mod, s.mod["main"]
    first, second = _seq(old_func)
    target = tir.BlockRealize(iter_values=[], predicate=True, block=tir.Block(
        iter_vars=[], reads=[], writes=[], name_hint="wrap", body=first, init=None,
        alloc_buffers=None, match_buffers=None, annotations=None))
    kept, gone = s.get_sref(first), s.get_sref(second)
    s.replace(gone, target)
    assert s.mod is not old_mod and s.mod["main"] is not old_func
    assert _seq(old_func)[1] is second  # what the user holds is unchanged
    tvm.ir.assert_structural_equal(_seq(s.mod["main"])[1], target)
    assert gone.stmt is None  # removed from the function
    assert kept.stmt is first  # still in it (inside the target)
    assert "wrap" in s.mod["main"].script()
    with pytest.raises(ScheduleError, match="replace.*removed"):
        s.replace(gone, target)


def test_replace_computes_what_the_new_statement_says():
    """C's block body ``C = B + 1`` replaced by ``C = B * 5``: the function computes A * 10,
    the original still A * 2 + 1."""
    s = ScheduleState(two_stages)
    realize = _seq(s.mod["main"])[1].body.body
    block = realize.block
    store = block.body
    load = store.value.a
    new_body = tir.BufferStore(store.buffer, tir.BufferLoad(load.buffer, load.indices) * 5.0,
                               store.indices)
    new_block = tir.Block(block.iter_vars, block.reads, block.writes, block.name_hint,
                          new_body)
    s.replace(s.get_sref(block), new_block, {block: new_block})
    a, c = _run(s.mod["main"])
    np.testing.assert_allclose(c, a * 10.0, rtol=1e-6)
    a, c = _run(two_stages)
    np.testing.assert_allclose(c, a * 2.0 + 1.0, rtol=1e-6)


def test_replace_with_block_reuse_moves_the_reference():
    s = ScheduleState(two_stages)
    realize = _seq(s.mod["main"])[0].body.body
    sref = s.get_sref(realize.block)
    new_block = three_times.body.block.body.body.body.block
    s.replace(sref, new_block, {sref.stmt: new_block})
    assert sref.stmt is new_block
    assert s.get_sref(_seq(s.mod["main"])[0].body.body.block) is sref


def test_replace_the_root_block_of_one_function_of_a_module():
    mod = IRModule({"main": two_stages, "other": three_times})
    s = ScheduleState(mod)
    functions = s.mod.functions
    root = s.mod["main"].body.block
    target = tir.Block([], [], [], "root", _seq(two_stages)[1], None, [two_stages.body.block
                                                                       .alloc_buffers[0]])
    s.replace(s.get_sref(root), target)
    assert s.mod.functions is not functions and hash(s.mod.functions) != hash(functions)
    assert s.mod["other"] is three_times
    tvm.ir.assert_structural_equal(s.mod["main"].body.block, target)
    assert mod["main"] is two_stages


def test_replace_refuses_a_statement_of_the_wrong_kind():
    s = ScheduleState(two_stages)
    realize = _seq(s.mod["main"])[0].body.body
    with pytest.raises(TypeError, match="Block must be replaced by a Block"):
        s.replace(s.get_sref(realize.block), _seq(two_stages)[1])
    with pytest.raises(TypeError, match="loop must be replaced"):
        s.replace(s.get_sref(_seq(s.mod["main"])[1]), realize.block)
