"""pad_einsum: the scheduled build against the unscheduled one on random inputs at odd sizes,
the padded shapes, the trace round trip, and the refusals."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.meta_schedule.testing import te_workload
from tvmlite.tir.schedule import Schedule, ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip

N, M, K = 13, 11, 7


def _staged_matmul(in_dtype="float32", out_dtype="float32"):
    """A and B copied into local buffers, C accumulated in a local buffer, then copied out."""
    A = te.placeholder((N, K), in_dtype, name="A")
    B = te.placeholder((K, M), in_dtype, name="B")
    Al = te.compute((N, K), lambda i, j: A[i, j], name="A_l")
    Bl = te.compute((K, M), lambda i, j: B[i, j], name="B_l")
    k = te.reduce_axis((0, K), name="k")
    Cl = te.compute((N, M), lambda i, j: te.sum(
        Al[i, k].astype(out_dtype) * Bl[k, j].astype(out_dtype), axis=k), name="C_l")
    C = te.compute((N, M), lambda i, j: Cl[i, j], name="C")
    return te.create_prim_func([A, B, C])


def _run(mod, func, dtype="float32", out_dtype="float32"):
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (N, K)).astype(dtype)
    b = rng.integers(-4, 5, (K, M)).astype(dtype)
    got = tvm.nd.array(np.zeros((N, M), out_dtype))
    want = tvm.nd.array(np.zeros((N, M), out_dtype))
    tvm.build(mod, target="llvm")(tvm.nd.array(a), tvm.nd.array(b), got)
    tvm.build(func, target="llvm")(tvm.nd.array(a), tvm.nd.array(b), want)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
    np.testing.assert_allclose(got.numpy(), a.astype(out_dtype) @ b.astype(out_dtype),
                               rtol=1e-5)


def _shapes(sch):
    root = sch.mod["main"].body.block
    return {b.name: [int(d) for d in b.shape] for b in root.alloc_buffers}


@pytest.mark.parametrize("padding", [[3, 5, 1], [0, 1, 9], [0, 0, 0]])
def test_pad_matmul(padding):
    func = _staged_matmul()
    sch = Schedule(func, debug_mask="all")
    sch.pad_einsum("C_l", padding)
    n, m, k = N + padding[0], M + padding[1], K + padding[2]
    shapes = _shapes(sch)
    assert sorted(shapes.values()) == sorted([[n, k], [k, m], [n, m]])
    assert [int(sch.get(lp).extent) for lp in sch.get_loops("C_l")] == [n, m, k]
    assert [int(sch.get(lp).extent) for lp in sch.get_loops("C")] == [N, M]
    _run(sch.mod, func)
    verify_trace_roundtrip(sch, func)


def test_pad_matmul_with_casts():
    func = _staged_matmul("int8", "int32")
    sch = Schedule(func, debug_mask="all")
    sch.pad_einsum("C_l", [3, 1, 1])
    _run(sch.mod, func, "int8", "int32")


def test_refuses_output_buffer():
    func = te.create_prim_func(list(te_workload.matmul(N, M, K)))
    sch = Schedule(func)
    with pytest.raises(ScheduleError, match=r'pad_einsum: block "C".*not allocated'):
        sch.pad_einsum("C", [1, 1, 1])


def test_refuses_bad_padding_and_non_einsum():
    func = _staged_matmul()
    sch = Schedule(func)
    with pytest.raises(ScheduleError, match="3 non-negative integers"):
        sch.pad_einsum("C_l", [1, 1])
    with pytest.raises(ScheduleError, match="3 non-negative integers"):
        sch.pad_einsum("C_l", [1, -1, 0])
    with pytest.raises(ScheduleError, match="einsum pattern"):
        sch.pad_einsum("A_l", [1, 1])
    assert "pad_einsum" not in str(sch.trace)


def test_refuses_shared_loop_nest():
    func = _staged_matmul()
    sch = Schedule(func)
    sch.compute_at(sch.get_block("A_l"), sch.get_loops("C_l")[0])
    with pytest.raises(ScheduleError, match="only block under its outermost loop"):
        sch.pad_einsum("C_l", [1, 1, 1])


def test_matmul_relu_workload():
    a, b, d = te_workload.matmul_relu(N, M, K)
    f = tvm.build(te.create_prim_func([a, b, d]), target="llvm")
    rng = np.random.default_rng(4)
    x, y = rng.random((N, K), dtype=np.float32) - 0.5, rng.random((K, M), dtype=np.float32)
    out = tvm.nd.array(np.zeros((N, M), "float32"))
    f(tvm.nd.array(x), tvm.nd.array(y), out)
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ y, 0), rtol=1e-5, atol=1e-6)
