"""``auto_unroll_max_step`` / ``unroll_explicit`` pragmas on GPU builds (classic UnrollLoop):
constant loops under the limit are copied (explicit) or printed ``#pragma unroll`` in the CUDA
source, longer ones stay loops; the emulated kernels still compute the right answer."""
import re

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")


def _build(max_step: int, explicit: int, rows: int = 4, cols: int = 3):
    """Each thread sums a ``rows`` x ``cols`` tile: the row loop (outer) and the reduction."""
    n, k = 8 * rows * 5, cols
    A = te.placeholder((n, k), name="A")
    r = te.reduce_axis((0, k), name="r")
    B = te.compute((n,), lambda i: te.sum(A[i, r] * 2.0, axis=r), name="B")
    s = te.create_schedule(B.op)
    kernel_scope, i = s[B].split(B.op.axis[0], nparts=1)
    bx, rest = s[B].split(i, nparts=5)
    tx, ii = s[B].split(rest, nparts=8)
    s[B].reorder(kernel_scope, bx, tx, ii, r)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[B].pragma(kernel_scope, "auto_unroll_max_step", max_step)
    s[B].pragma(kernel_scope, "unroll_explicit", explicit)
    f = tvm.build(s, [A, B], "cuda")
    a = np.random.default_rng(max_step + explicit).normal(size=(n, k)).astype("float32")
    dev = tvm.cuda(0)
    b = tvm.nd.array(np.zeros(n, "float32"), dev)
    f(tvm.nd.array(a, dev), b)
    np.testing.assert_allclose(b.numpy(), (a * 2).sum(axis=1), rtol=1e-5, atol=1e-6)
    return f.imported_modules[0].get_source()


def _kernel(src: str) -> str:
    return src[src.index("__global__"):]


def test_explicit_unroll_copies_the_loops():
    src = _kernel(_build(max_step=64, explicit=1))
    assert "for (" not in src, src
    assert "#pragma unroll" not in src
    assert src.count("B[") >= 4  # one store per unrolled row


def test_implicit_unroll_prints_pragma_unroll():
    src = _kernel(_build(max_step=64, explicit=0))
    loops = re.findall(r"for \(", src)
    pragmas = re.findall(r"#pragma unroll\b", src)
    assert loops and len(pragmas) == len(loops), src
    assert "GCC" not in src


def test_loops_past_the_limit_stay_loops():
    # 4 rows x 3 columns: the reduction (3 steps) fits in 3, the row loop (12) does not
    src = _kernel(_build(max_step=3, explicit=1))
    assert src.count("for (") == 1, src
    assert "#pragma unroll" not in src
    src = _kernel(_build(max_step=0, explicit=1))
    assert src.count("for (") == 2, src
