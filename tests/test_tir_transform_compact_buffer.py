"""Buffer placement and compaction: caches shrink to their tile, but an allocation never moves
inside a loop that carries values between its iterations (a reduction, a scan)."""
import numpy as np

import tvmlite as tvm
from tvmlite.script import tir as T


@T.prim_func
def fused_reduction(A: T.Buffer((8, 3), "float32"), B: T.Buffer((3, 5), "float32"),
                    D: T.Buffer((8, 5), "float32")):
    C = T.alloc_buffer((8, 5))
    for i in T.parallel(8):
        for j_k_fused in range(15):
            with T.block("C"):
                v_i = T.axis.spatial(8, i)
                v_j = T.axis.spatial(5, j_k_fused // 3)
                v_k = T.axis.reduce(3, j_k_fused % 3)
                with T.init():
                    C[v_i, v_j] = T.float32(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
            with T.block("D"):
                v_i = T.axis.spatial(8, i)
                v_j = T.axis.spatial(5, j_k_fused // 3)
                D[v_i, v_j] = C[v_i, v_j] + T.float32(1)


@T.prim_func
def scan(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    S = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("S"):
            vi = T.axis.spatial(16, i)
            S[vi] = T.if_then_else(vi > 0, S[vi - 1], T.float32(0)) + A[vi]
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = S[vi]


def test_reduction_carried_by_a_fused_loop_keeps_its_buffer_outside_it():
    text = str(tvm.lower(fused_reduction))
    # per row of the parallel loop (5 sums), not per iteration of the fused j/k loop
    assert 'C = T.allocate([5], "float32", "global")' in text
    assert text.index("T.allocate") < text.index("for j_k_fused")
    a = np.random.rand(8, 3).astype("float32")
    b = np.random.rand(3, 5).astype("float32")
    d = tvm.nd.empty((8, 5), "float32")
    tvm.build(fused_reduction)(tvm.nd.array(a), tvm.nd.array(b), d)
    np.testing.assert_allclose(d.numpy(), a @ b + 1, rtol=1e-5)


def test_scan_buffer_stays_outside_the_loop():
    text = str(tvm.lower(scan))
    assert text.index("T.allocate([16]") < text.index("for i")
    a = np.random.rand(16).astype("float32")
    b = tvm.nd.empty((16,), "float32")
    tvm.build(scan)(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.cumsum(a), rtol=1e-5)


def test_per_tile_cache_is_shrunk_inside_the_tile_loop():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import book_ch4

    s, args = book_ch4.mm_cached_block(64)
    text = str(tvm.lower(s, list(args)))
    assert text.index("x_outer_y_outer_fused in T.parallel") < text.index(
        'C_local = T.allocate([1024], "float32", "local")')
