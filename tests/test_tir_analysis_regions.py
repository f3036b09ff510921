"""The one access-region analysis (``tvmlite.tir.analysis``): a block built from TE, parsed from
TVMScript and produced by every schedule primitive carries the regions the analysis gives, by
one convention (a block with ``T.init()`` leaves its output out of its reads)."""
import dataclasses
import re

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.ir.structural import assert_structural_equal, structural_equal
from tvmlite.script import tir as T
from tvmlite.tir.analysis import (
    block_access_regions,
    block_regions,
    read_modify_write_buffers,
)
from tvmlite.tir.expr import Range
from tvmlite.tir.schedule import Schedule
from tvmlite.tir.stmt import Block, BlockRealize, For, Stmt


# --------------------------------------------------------------------------- helpers
def _blocks(func):
    """``(block, dom)`` for every block of ``func`` (init nests included), ``dom`` the ranges
    of the loops and block iterators around and of the block."""
    out = []

    def rec(s, dom):
        if isinstance(s, For):
            rec(s.body, {**dom, s.loop_var: Range(s.min, s.extent)})
        elif isinstance(s, BlockRealize):
            rec(s.block, dom)
        elif isinstance(s, Block):
            inner = {**dom, **{iv.var: iv.dom for iv in s.iter_vars}}
            out.append((s, inner))
            if s.init is not None:
                rec(s.init, inner)
            rec(s.body, inner)
        else:
            for name in ("seq", "body", "then_case", "else_case"):
                x = getattr(s, name, None)
                for c in x if isinstance(x, tuple) else (x,):
                    if isinstance(c, Stmt):
                        rec(c, dom)

    rec(func.body, {})
    return out


def _assert_regions_agree(func):
    """Every block except the root and init-nest blocks (whose reads primitives drop) has the
    regions the analysis computes."""
    checked = 0
    for block, dom in _blocks(func):
        if block.name_hint == "root" and not block.iter_vars:
            continue
        reads, writes = block_regions(block, dom)
        assert_structural_equal((block.reads, block.writes), (reads, writes))
        checked += 1
    assert checked


def _names(regions):
    return [r.buffer.name for r in regions]


def _te_matmul(n=7, m=5, k=9):
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return A, B, C


def _te_chain(n=10, m=7):
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + 1.0, name="C")
    return A, B, C


def _strip_regions(script: str) -> str:
    return "\n".join(ln for ln in script.splitlines()
                     if not re.match(r"\s*T\.(reads|writes)\(", ln))


@T.prim_func
def matmul(A: T.Buffer((7, 9), "float32"), B: T.Buffer((9, 5), "float32"),
           C: T.Buffer((7, 5), "float32")):
    for i, j, k in T.grid(7, 5, 9):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def chain(A: T.Buffer((10, 7), "float32"), C: T.Buffer((10, 7), "float32")):
    B = T.alloc_buffer((10, 7))
    for i, j in T.grid(10, 7):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(10, 7):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def stencil(A: T.Buffer((12,), "float32"), B: T.Buffer((10,), "float32")):
    for i in range(10):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]


# --------------------------------------------------------------------------- the convention
def test_reduction_block_leaves_its_output_out_of_reads():
    A, B, C = _te_matmul()
    func = te.create_prim_func([A, B, C])
    (block, _), = [(b, d) for b, d in _blocks(func) if b.name_hint == "C"]
    assert _names(block.reads) == ["A", "B"] and _names(block.writes) == ["C"]
    assert [b.name for b in read_modify_write_buffers(block)] == ["C"]
    # the same body without the init is an in-place update: C is read too
    reads, writes = block_access_regions(block.body, None)
    assert _names(reads) == ["C", "A", "B"] and _names(writes) == ["C"]
    assert read_modify_write_buffers(dataclasses.replace(block, init=None)) == []


def test_te_parsed_and_analysis_agree_on_a_reduction():
    A, B, C = _te_matmul()
    te_func = te.create_prim_func([A, B, C])
    _assert_regions_agree(te_func)
    parsed = matmul  # no T.reads/T.writes: the parser infers them
    (pb, _), = [(b, d) for b, d in _blocks(parsed) if b.name_hint == "C"]
    (tb, _), = [(b, d) for b, d in _blocks(te_func) if b.name_hint == "C"]
    assert _names(pb.reads) == _names(tb.reads) == ["A", "B"]
    assert _names(pb.writes) == _names(tb.writes) == ["C"]
    _assert_regions_agree(parsed)
    # TE's printed program, its regions removed, parses back to the same regions
    reparsed = tvm.script.from_source(_strip_regions(te_func.script()))
    assert_structural_equal(reparsed, te_func)


@pytest.mark.parametrize("make", [_te_matmul, _te_chain])
def test_te_printed_program_parses_back_identically(make):
    func = te.create_prim_func(list(make()))
    text = func.script()
    assert_structural_equal(tvm.script.from_source(text), func)
    assert_structural_equal(tvm.script.from_source(_strip_regions(text)), func)


def test_te_sum_printed_regions():
    A, B, C = _te_matmul()
    text = te.create_prim_func([A, B, C]).script()
    assert "T.reads(A[v_i, v_k], B[v_k, v_j])" in text
    assert "T.writes(C[v_i, v_j])" in text


def test_constant_offsets_and_inner_loops_are_covered():
    (block, dom), = [(b, d) for b, d in _blocks(stencil) if b.name_hint == "B"]
    reads, writes = block_regions(block, dom)
    (a,) = reads
    assert structural_equal(a.region[0].extent, tvm.tir.IntImm("int32", 3))
    _assert_regions_agree(stencil)


# --------------------------------------------------------------------------- primitives
def _matmul_sch():
    return Schedule(matmul)


def _chain_sch():
    return Schedule(chain)


def _loops(s, name):
    return s.get_loops(s.get_block(name))


def _split(s):
    i, j, k = _loops(s, "C")
    s.split(k, [None, 4])


def _reorder(s):
    i, j, k = _loops(s, "C")
    s.reorder(k, i)


def _fuse(s):
    i, j, k = _loops(s, "C")
    s.fuse(i, j)


def _compute_at(s):
    i, j = _loops(s, "C")
    s.compute_at(s.get_block("B"), i)


def _reverse_compute_at(s):
    i, j = _loops(s, "B")
    s.reverse_compute_at(s.get_block("C"), i)


def _cache_read(s):
    s.cache_read(s.get_block("C"), 0, "local")


def _cache_write(s):
    s.cache_write(s.get_block("C"), 0, "local")


def _rfactor(s):
    i, j, k = _loops(s, "C")
    _, k1 = s.split(k, [None, 4])
    s.rfactor(k1, 0)


def _blockize(s):
    i, j, k = _loops(s, "C")
    _, k1 = s.split(k, [None, 3])
    s.blockize(k1)


def _blockize_spatial(s):
    i, j = _loops(s, "B")
    s.blockize(j)


def _decompose_reduction(s):
    i, j, k = _loops(s, "C")
    s.decompose_reduction(s.get_block("C"), k)


def _compute_inline(s):
    s.compute_inline(s.get_block("B"))


def _reverse_compute_inline(s):
    s.reverse_compute_inline(s.get_block("C"))


@pytest.mark.parametrize("sch, apply", [
    (_matmul_sch, _split), (_matmul_sch, _reorder), (_matmul_sch, _fuse),
    (_chain_sch, _compute_at), (_chain_sch, _reverse_compute_at),
    (_matmul_sch, _cache_read), (_matmul_sch, _cache_write), (_chain_sch, _cache_read),
    (_chain_sch, _cache_write), (_matmul_sch, _rfactor), (_matmul_sch, _blockize),
    (_chain_sch, _blockize_spatial), (_matmul_sch, _decompose_reduction),
    (_chain_sch, _compute_inline), (_chain_sch, _reverse_compute_inline),
], ids=lambda x: x.__name__.strip("_"))
def test_primitive_output_has_the_analysis_regions(sch, apply):
    s = sch()
    func = s.mod["main"]
    apply(s)
    out = s.mod["main"]
    _assert_regions_agree(out)
    # and the schedule still computes the same thing
    shapes = [tuple(int(x) for x in b.shape) for b in (func.buffer_map[p]
                                                        for p in func.params)]
    rng = np.random.default_rng(11)
    args = [rng.standard_normal(sh).astype("float32") for sh in shapes]
    ref = [tvm.nd.array(a) for a in args]
    got = [tvm.nd.array(a) for a in args]
    tvm.build(func, target="llvm")(*ref)
    tvm.build(out, target="llvm")(*got)
    np.testing.assert_allclose(got[-1].numpy(), ref[-1].numpy(), rtol=1e-5, atol=1e-5)


def test_rfactor_blocks_follow_the_convention():
    s = _matmul_sch()
    _rfactor(s)
    rf = s.get(s.get_block("C_rf"))
    wb = s.get(s.get_block("C"))
    assert _names(rf.reads) == ["A", "B"] and _names(rf.writes) == ["C_rf"]
    assert _names(wb.reads) == ["C_rf"] and _names(wb.writes) == ["C"]
    assert [b.name for b in read_modify_write_buffers(rf)] == ["C_rf"]


def test_decompose_reduction_update_lists_its_output():
    s = _matmul_sch()
    _decompose_reduction(s)
    update = s.get(s.get_block("C_update"))
    assert update.init is None and "C" in _names(update.reads)
