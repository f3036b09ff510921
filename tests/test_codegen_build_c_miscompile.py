"""Known C compiler miscompiles must not reach users (issue 12).

GCC 12.2 at ``-O3 -march=native`` if-converts and vectorizes this 4x5 nest after peeling the
outer loop completely and reuses the first row's blend mask for every row: 6 of 20 outputs
wrong from correct C. The backend's flags (``BASE_FLAGS``) must keep it away: the exact
kernel (restrict parameters, as in the report) is compiled with them and fails without
``-fno-tree-loop-if-convert``; the same program written in TE guards the generated C, whose
shape (restrict locals after the argument checks) may change."""
import ctypes

import numpy as np

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.codegen.build_c import compile_flags
from tvmlite.contrib.cc import build_shared_cached
from tvmlite.target.target import Target

KERNEL = r"""
void select_rows(const float* restrict a, const float* restrict b, float* restrict o) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      o[i * 5 + j] = ((float)i > a[i * 5 + j]) ? a[i * 5 + j] : b[i * 5 + j];
}
"""


def _inputs(seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 4, (4, 5)).astype("float32"),
            rng.uniform(10, 11, (4, 5)).astype("float32"))


def _want(a, b):
    return np.where(np.arange(4, dtype="float32")[:, None] > a, a, b)


def test_known_gcc_select_miscompile_stays_away():
    flags, isa = compile_flags(Target("llvm"))
    lib = ctypes.CDLL(build_shared_cached(KERNEL, flags, isa))
    ptr = ctypes.POINTER(ctypes.c_float)
    for seed in range(8):
        a, b = _inputs(seed)
        o = np.full((4, 5), np.nan, "float32")
        lib.select_rows(*(x.ctypes.data_as(ptr) for x in (a, b, o)))
        np.testing.assert_array_equal(o, _want(a, b))


def test_select_program_from_te():
    A = te.placeholder((4, 5), name="A")
    B = te.placeholder((4, 5), name="B")
    O = te.compute((4, 5), lambda i, j: tir.Select(
        tir.Cast("float32", i) > A[i, j], A[i, j], B[i, j]), name="O")
    f = tvm.build(te.create_schedule(O.op), [A, B, O], target="llvm")
    for seed in range(8):
        a, b = _inputs(seed)
        o = tvm.nd.array(np.full((4, 5), np.nan, "float32"))
        f(tvm.nd.array(a), tvm.nd.array(b), o)
        np.testing.assert_array_equal(o.numpy(), _want(a, b))


def test_flags_are_part_of_the_kernel_cache_key():
    from tvmlite.contrib.cc import cache_key

    flags, isa = compile_flags(Target("llvm"))
    assert cache_key(KERNEL, flags, isa) != cache_key(KERNEL, flags[:-1], isa)
