"""TVMScript: ``T.match_buffer`` of a buffer region inside a block (parsed, printed, lowered
and run), ``T.type_annotation`` and ``T.likely(..., dtype=)``."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import from_source
from tvmlite.script import tir as T


@T.prim_func
def _rows_then_points(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
    B = T.alloc_buffer((8, 16))
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            Bs = T.match_buffer(B[vi, 0:16], (16,), offset_factor=1)
            As = T.match_buffer(A[vi, 0:16], (16,))
            for j in range(16):
                Bs[j] = As[j] * T.float32(2)
    for i, j in T.grid(8, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            Bp = T.match_buffer(B[vi, vj], [], offset_factor=1)
            C[vi, vj] = Bp[()] + T.float32(1)


@T.prim_func
def _tiles(A: T.Buffer((12, 12), "float32"), C: T.Buffer((12, 12), "float32")):
    for i, j in T.grid(3, 3):
        with T.block("tile"):
            vi, vj = T.axis.remap("SS", [i, j])
            At = T.match_buffer(A[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4], (4, 4))
            Ct = T.match_buffer(C[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4], (4, 4))
            for x, y in T.grid(4, 4):
                Ct[x, y] = At[y, x] + T.Cast("float32", T.likely(x < 9, dtype="bool"))


def _run(func, shape):
    f = tvm.build(func, target="llvm")
    a = np.random.rand(*shape).astype("float32")
    c = tvm.nd.array(np.zeros(shape, "float32"))
    f(tvm.nd.array(a), c)
    return a, c.numpy()


def test_block_regions_are_the_sources_of_matched_buffers():
    blk = _rows_then_points.body.block.body.seq[0].body.block
    assert [m.buffer.name for m in blk.match_buffers] == ["Bs", "As"]
    assert [r.buffer.name for r in blk.reads] == ["A"]
    assert [r.buffer.name for r in blk.writes] == ["B"]


def test_matched_rows_and_points_lower_and_run():
    a, c = _run(_rows_then_points, (8, 16))
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_matched_2d_tiles_lower_and_run():
    a, c = _run(_tiles, (12, 12))
    want = np.zeros_like(a)
    for i in range(3):
        for j in range(3):
            want[i * 4:i * 4 + 4, j * 4:j * 4 + 4] = a[i * 4:i * 4 + 4, j * 4:j * 4 + 4].T + 1
    np.testing.assert_allclose(c, want, rtol=1e-6)


@pytest.mark.parametrize("func", [_rows_then_points, _tiles])
def test_match_buffer_roundtrips(func):
    tvm.ir.assert_structural_equal(from_source(func.script()), func)


def test_match_buffer_of_a_region_outside_a_block_is_an_error():
    src = '''
@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    As = T.match_buffer(A[0, 0:4], (4,))
    As[0] = T.float32(1)
'''
    with pytest.raises(tvm.TVMError, match="inside a block"):
        from_source(src)


def test_type_annotation_is_a_typed_value():
    e = T.type_annotation(dtype="float16")
    assert e.dtype == "float16" and e.op == "type_annotation"
