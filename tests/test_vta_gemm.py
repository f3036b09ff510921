"""VTA: a blocked matrix multiply (classic's matrix_multiply tutorial shape at odd sizes) against
numpy, and the build-time errors of GEMM tensorization and DMA copies on bad input."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, vta
from tvmlite.error import TVMError

env = vta.get_env()


def _matmul(m=3, n=5, block_in=16, weight="ok"):
    """C[1, m, 1, 16] = A[1, n, 1, block_in] x B[m, n, 16, block_in]^T, one ``ko`` step per
    DMA load; ``weight`` picks a compute GEMM must refuse ("transposed", "sum")."""
    A = te.placeholder((1, n, 1, block_in), name="A", dtype=env.inp_dtype)
    B = te.placeholder((m, n, 16, block_in), name="B", dtype=env.wgt_dtype)
    A_buf = te.compute(A.shape, lambda *i: A(*i), "A_buf")
    B_buf = te.compute(B.shape, lambda *i: B(*i), "B_buf")
    ko = te.reduce_axis((0, n), name="ko")
    ki = te.reduce_axis((0, block_in), name="ki")

    def body(bo, co, bi, ci):
        a = A_buf[bo, ko, bi, ki].astype(env.acc_dtype)
        if weight == "transposed":
            return te.sum(a * B_buf[co, ko, ki, ci].astype(env.acc_dtype), axis=[ko, ki])
        if weight == "sum":
            return te.sum(a + B_buf[co, ko, ci, ki].astype(env.acc_dtype), axis=[ko, ki])
        return te.sum(a * B_buf[co, ko, ci, ki].astype(env.acc_dtype), axis=[ko, ki])

    C_buf = te.compute((1, m, 1, 16), body, name="C_buf")
    C = te.compute(C_buf.shape, lambda *i: C_buf(*i).astype(env.inp_dtype), name="C")
    s = te.create_schedule(C.op)
    s[A_buf].set_scope(env.inp_scope)
    s[B_buf].set_scope(env.wgt_scope)
    s[C_buf].set_scope(env.acc_scope)
    ko_, ki_ = s[C_buf].op.reduce_axis
    bo, co, bi, ci = s[C_buf].op.axis
    s[C_buf].reorder(ko_, bo, co, bi, ci, ki_)
    s[A_buf].compute_at(s[C_buf], ko_)
    s[B_buf].compute_at(s[C_buf], ko_)
    s[A_buf].pragma(s[A_buf].op.axis[0], env.dma_copy)
    s[B_buf].pragma(s[B_buf].op.axis[0], env.dma_copy)
    s[C].pragma(s[C].op.axis[0], env.dma_copy)
    s[C_buf].tensorize(bi, env.gemm)
    return s, [A, B, C]


def test_vta_matmul_strided_weight_load_matches_numpy():
    # B_buf holds B[:, ko]: m rows one tile wide, n tiles apart (a 2D load with x_size 1)
    m, n = 3, 5
    s, args = _matmul(m, n)
    f = vta.build(s, args, name="mm")
    assert any(type(i).__name__ == "Load" and i.mem == "wgt" and i.x_size == 1
               and i.y_size == m and i.x_stride == n for i in f.program.insns)
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, size=(1, n, 1, 16)).astype("int8")
    b = rng.integers(-128, 128, size=(m, n, 16, 16)).astype("int8")
    dev = tvm.ext_dev(0)
    c = tvm.nd.array(np.zeros((1, m, 1, 16), "int8"), dev)
    f(tvm.nd.array(a, dev), tvm.nd.array(b, dev), c)
    ref = np.einsum("xkyi,mkoi->xmyo", a.astype("int32"), b.astype("int32")).astype("int8")
    np.testing.assert_array_equal(c.numpy(), ref)


@pytest.mark.parametrize("weight", ["transposed", "sum"])
def test_vta_tensorize_on_non_matching_compute_is_an_error(weight):
    s, args = _matmul(weight=weight)
    with pytest.raises(TVMError, match="tensorize.*of C_buf.*does not match the GEMM"):
        vta.build(s, args, name="mm")


def test_vta_shape_not_divisible_by_block_is_an_error():
    # an 8-wide input row is half a BLOCK_IN tile: its DMA load cannot move whole tiles
    s, args = _matmul(block_in=8)
    with pytest.raises(TVMError, match="into B_buf.*256-element tiles"):
        vta.build(s, args, name="mm")
