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


# ----------------------------------------------------------------- classic text and JSON form
def _sampled():
    sch = tvm.tir.Schedule(Mod, seed=11)
    y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(y)
    f0, f1 = sch.sample_perfect_tile(j, n=2, max_innermost_factor=8)
    sch.split(j, factors=[f0, f1])
    v = sch.sample_categorical([1, 2, 4], [0.25, 0.5, 0.25])
    sch.annotate(k, "pragma_auto_unroll_max_step", v)
    sch.annotate(y, "note", 'a "quoted"\nline')
    return sch


def test_trace_prints_classic_apply_trace_function():
    sch = _sampled()
    text = str(sch.trace)
    lines = text.splitlines()
    assert lines[:3] == ["# from tvm import tir",
                         "def apply_trace(sch: tir.Schedule) -> None:",
                         '  b0 = sch.get_block(name="Y", func_name="mm_relu")']
    assert lines[3] == "  l1, l2, l3 = sch.get_loops(block=b0)"
    assert lines[4].startswith("  v4, v5 = sch.sample_perfect_tile(loop=l2, n=2, "
                               "max_innermost_factor=8, decision=[")
    assert "l6, l7 = sch.split(loop=l2, factors=[v4, v5], preserve_unit_iters=True)" in text
    assert "v8 = sch.sample_categorical(candidates=[1, 2, 4], probs=[0.25, 0.5, 0.25], " \
           "decision=" in text
    assert 'ann_key="pragma_auto_unroll_max_step", ann_val=v8)' in text
    assert str(tvm.tir.schedule.Trace()).endswith("-> None:\n  pass")
    namespace = {"tir": tvm.tir}
    exec(text, namespace)
    replay = tvm.tir.Schedule(Mod)
    namespace["apply_trace"](replay)
    assert structural_equal(replay.mod["mm_relu"], sch.mod["mm_relu"])
    assert str(replay.trace) == text
    _run(sch.mod)


def test_trace_json_round_trip_keeps_decisions():
    sch = _sampled()
    obj = sch.trace.as_json()
    kinds = [inst[0] for inst in obj[0]]
    assert kinds[:4] == ["GetBlock", "GetLoops", "SamplePerfectTile", "Split"]
    assert obj[0][0] == ["GetBlock", [], ["Y", "mm_relu"], ["b0"]]
    assert [d[0] for d in obj[1]] == [2, 4]  # the two sampling instructions
    replay = tvm.tir.Schedule(Mod, seed=999)  # another seed: the decisions decide
    tvm.tir.schedule.Trace.apply_json_to_schedule(obj, replay)
    assert structural_equal(replay.mod["mm_relu"], sch.mod["mm_relu"])
    assert replay.trace.as_json() == obj


def test_trace_with_decision_and_decision_provider():
    sch = tvm.tir.Schedule(Mod)
    y = sch.get_block("Y", func_name="mm_relu")
    j = sch.get_loops(y)[1]
    f0, f1 = sch.sample_perfect_tile(j, n=2, decision=[7, 4])
    sch.split(j, factors=[f0, f1])
    inst = sch.trace.insts[2]
    other = sch.trace.with_decision(inst, [2, 14], remove_postproc=True)
    assert sch.trace.get_decision(inst) == [7, 4] and other.get_decision(inst) == [2, 14]
    replay = tvm.tir.Schedule(Mod)
    other.apply_to_schedule(replay)
    assert [replay.get(x).extent.value for x in replay.get_loops(y)[1:3]] == [2, 14]
    seen = []
    by_provider = tvm.tir.Schedule(Mod)

    def provider(i, inputs, attrs, decision):
        seen.append(i.kind.name)
        return [14, 2] if decision is not None else None

    sch.trace.apply_to_schedule(by_provider, decision_provider=provider)
    assert seen == ["GetBlock", "GetLoops", "SamplePerfectTile", "Split"]
    assert [by_provider.get(x).extent.value
            for x in by_provider.get_loops(y)[1:3]] == [14, 2]
    _run(by_provider.mod)


def test_trace_simplified_drops_unused_queries_only():
    sch = tvm.tir.Schedule(Mod)
    y = sch.get_block("Y", func_name="mm_relu")
    sch.get_block("C", func_name="mm_relu")  # unused
    i, j, k = sch.get_loops(y)
    sch.parallel(i)
    simple = sch.trace.simplified(remove_postproc=False)
    assert [x.name for x in simple.insts] == ["get_block", "get_loops", "parallel"]
    assert len(sch.trace) == 4
    replay = tvm.tir.Schedule(Mod)
    simple.apply_to_schedule(replay)
    assert structural_equal(replay.mod["mm_relu"], sch.mod["mm_relu"])


def test_instruction_classic_construction_and_bad_input():
    from tvmlite.tir.schedule import BlockRV, Instruction, InstructionKind, LoopRV, Trace
    b, lo, l0, l1 = BlockRV(), LoopRV(), LoopRV(), LoopRV()
    assert b != BlockRV() and b == b
    get = Instruction(InstructionKind.get("GetBlock"), [], ["C", "mm_relu"], [b])
    loops = Instruction(InstructionKind.get("GetLoops"), [b], [], [lo, LoopRV()])
    split = Instruction(InstructionKind.get("Split"), [lo, None, 4], [True], [l0, l1])
    fuse = Instruction(InstructionKind.get("Fuse"), [l0, l1], [True], [LoopRV()])
    assert split.inputs[1:] == [None, 4] and split.attrs == [True]
    assert str(split) == "_, _ = sch.split(loop=_, factors=[None, 4], preserve_unit_iters=True)"
    assert str(fuse) == "_ = sch.fuse(_, _, preserve_unit_iters=True)"
    assert InstructionKind.get("RFactor").name == "RFactor"
    assert not InstructionKind.get("EnterPostproc").is_pure
    assert InstructionKind.get("GetLoops").is_pure
    trace = Trace([get, loops, split, fuse], {})
    replay = tvm.tir.Schedule(Mod)
    trace.apply_to_schedule(replay)
    direct = tvm.tir.Schedule(Mod)
    ci, cj = direct.get_loops(direct.get_block("C", func_name="mm_relu"))
    direct.fuse(*direct.split(ci, [None, 4]))
    assert structural_equal(replay.mod["mm_relu"], direct.mod["mm_relu"])
    with pytest.raises(tvm.TVMError, match="NoSuchThing"):
        InstructionKind.get("NoSuchThing")
    with pytest.raises(tvm.TVMError, match="expected"):
        Trace.apply_json_to_schedule([1], replay)
    with pytest.raises(tvm.TVMError, match="b9"):
        Trace.apply_json_to_schedule([[["GetLoops", ["b9"], [], ["l0"]]], []], replay)
    assert structural_equal(replay.mod["mm_relu"], direct.mod["mm_relu"])  # unchanged
