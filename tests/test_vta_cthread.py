"""VTA virtual threads (``cthread``): the code generator interleaves the threads' instruction
streams (one thread's loads overlap the other's compute), results still equal numpy."""
import re

import pytest
from test_vta_conv2d import _conv, _run

from tvmlite import vta
from tvmlite.error import TVMError
from tvmlite.vta import isa
from tvmlite.vta.testing import simulator

SHAPE = dict(h=6, ic=32, oc=64)


def _build(vt):
    s, args = _conv(SHAPE["h"], SHAPE["ic"], SHAPE["oc"], 2, 3, vt)
    return vta.build(s, args, name="conv")


def _gemm_dst(f):
    """The accumulator row each non-reset GEMM starts at, in program order."""
    return [i._span[0][0] for i in f.program.insns
            if type(i) is isa.Gemm and not i.reset]


def test_vta_cthread_streams_interleave():
    dst = _gemm_dst(_build(2))
    # the two threads own different accumulator rows and alternate instruction by instruction
    assert len(set(dst)) == 2 and all(a != b for a, b in zip(dst, dst[1:]))
    assert len(set(_gemm_dst(_build(1)))) == 1


def test_vta_cthread_overlaps_queues_and_matches_numpy():
    cycles = {}
    for vt in (1, 2):
        simulator.clear_stats()
        st = _run(_build(vt), SHAPE["h"], SHAPE["ic"], SHAPE["oc"], seed=vt)
        u = simulator.utilisation()
        cycles[vt] = u["total_cycles"]
        assert u["total_cycles"] <= u["serial_cycles"]
        assert st["gemm_counter"] == 4 * 2 * 9 * 36
    # thread 1 loads while thread 0 computes: fewer cycles for the same work
    assert cycles[2] < cycles[1]


def test_vta_inp_buffer_over_sram_is_an_error():
    # 33 x 64 padded pixels of a 62 x 62 map: 2112 rows, over the 2048-row inp buffer
    s, args = _conv(62, 16, 16, 1, 31, 1)
    with pytest.raises(TVMError, match="data_buf needs .* local.inp_buffer.*limit 2048"):
        vta.build(s, args, name="conv")


def test_vta_wgt_buffer_over_sram_is_an_error():
    # 128 input-channel tiles x 9 taps: 1152 weight rows, over the 1024-row wgt buffer
    s, args = _conv(7, 2048, 16, 1, 7, 1, ic_block=128)
    with pytest.raises(TVMError, match="kernel_buf needs 1152 rows of local.wgt_buffer.*1024"):
        vta.build(s, args, name="conv")


def test_vta_lower_simple_mode_prints_runtime_calls():
    s, args = _conv(6, 32, 64, 2, 3, 2)
    text = str(vta.lower(s, args, simple_mode=True))
    for call in ("VTALoadBuffer2D", "VTAStoreBuffer2D", "VTAUopPush", "VTAPushGEMMOp",
                 "VTAPushALUOp", "coproc_scope", "coproc_sync", "vta.cthread"):
        assert call in text, call
    # the padded input load: rows past the map's edge become SRAM padding, not DRAM reads
    assert "T.max(1 - " in text and "pragma_dma_copy" not in text


def _call_order(text):
    """The dependence tokens, micro-op kernels and their loop markers, DMA calls and the
    final sync of a printed VTA program, in order (each virtual thread's view)."""
    pats = [(r"coproc_dep_(push|pop)\((\d), (\d)\)", lambda m: f"{m[1]}{m[2]}{m[3]}"),
            (r'coproc_uop_scope", "VTAPush(GEMM|ALU)Op"', lambda m: m[1]),
            (r'"VTAUopLoop(Begin|End)"', lambda m: m[1]),
            (r'"VTA(Load|Store)Buffer2D"', lambda m: m[1].lower()),
            (r"coproc_sync\(\)", lambda m: "sync")]
    out = []
    for line in text.splitlines():
        for pat, name in pats:
            m = re.search(pat, line)
            if m:
                out.append(name(m))
                break
    return out


def test_vta_lower_simple_mode_has_the_seed_structure():
    # seed 002's conv2d (its printed program, read per virtual thread): tokens between the
    # queues' regions, GEMM kernels with two VTAUopLoopBegin/End, the ALU nests fused to one
    s, args = _conv(14, 256, 256, 8, 7, 2)  # the seed's shapes and schedule
    text = str(vta.lower(s, args, simple_mode=True))
    gemm = ["GEMM", "Begin", "Begin", "End", "End"]
    alu = ["ALU", "Begin", "End"]
    assert _call_order(text) == (
        ["push32", "pop32"] + gemm + ["push21"]  # i2_outer: reset the accumulators
        + ["pop21", "load", "load", "push12", "pop12"] + gemm + ["push21"]  # ic_outer
        + ["pop21"] + alu * 3 + ["push23", "pop23", "store", "push32"]
        + ["pop32", "sync"])
    assert 'VTAUopLoopBegin", 8, 98, 0, 9)' in text and 'VTAUopLoopBegin", 7, 14, 16, 0)' in text
    assert text.count('VTAUopLoopBegin", 784, 1, 1, 0)') == 3
