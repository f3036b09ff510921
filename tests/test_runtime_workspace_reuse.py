"""Kernel workspaces stay in the process between calls (runtime.threading.keep_workspaces):
a kernel with MB-sized intermediate buffers does not page-fault them in again on every
call."""
import resource
import sys

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.runtime.threading import keep_workspaces


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc mallopt")
def test_mb_workspaces_are_reused_across_calls():
    # the workspaces of a Winograd convolution of ResNet-18's first 3x3 layer: 0.9, 1.8 and
    # 1.8 MB. With glibc's defaults, freed together they exceed the trim threshold (twice
    # the largest block freed) and go back to the system on every call: ~870 page faults
    n = 225 * 1024
    a = te.placeholder((n,), name="a")
    b = te.compute((n,), lambda i: a[i] * 2.0, name="b")
    c = te.compute((2 * n,), lambda i: b[i // 2] + 1.0, name="c")
    d = te.compute((2 * n,), lambda i: c[2 * n - 1 - i] * 3.0, name="d")
    e = te.compute((n,), lambda i: d[2 * i] - 1.0, name="e")
    f = tvm.build(te.create_schedule(e.op), [a, e])
    assert keep_workspaces()
    x = np.random.randn(n).astype("float32")
    ad, ed = tvm.nd.array(x), tvm.nd.empty((n,))
    f(ad, ed)
    np.testing.assert_allclose(ed.numpy(), (x[::-1] * 2 + 1) * 3 - 1, rtol=1e-5)
    for _ in range(4):  # the heap settles
        f(ad, ed)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        f(ad, ed)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 2000, faults
