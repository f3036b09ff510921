"""Kernel workspaces stay in the process between calls (runtime.threading.keep_workspaces):
a kernel with a multi-MB intermediate buffer does not page-fault it in again on every call."""
import resource
import sys

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.runtime.threading import keep_workspaces


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc mallopt")
def test_multi_mb_workspace_is_reused_across_calls():
    # three 4 MB intermediates: freed together they exceed glibc's default trim threshold
    # (twice the largest block freed), which gives them back to the system on every call
    n = 1 << 20
    a = te.placeholder((n // 4, 4), name="a")
    b = te.compute((n // 4, 4), lambda i, j: a[i, j] * 2.0, name="b")
    c = te.compute((n // 4, 4), lambda i, j: b[n // 4 - 1 - i, j] + 1.0, name="c")
    d = te.compute((n // 4, 4), lambda i, j: c[n // 4 - 1 - i, j] * 3.0, name="d")
    e = te.compute((n // 4, 4), lambda i, j: d[i, j] - 1.0, name="e")
    s = te.create_schedule(e.op)
    f = tvm.build(s, [a, e])
    assert keep_workspaces()
    x = np.random.randn(n // 4, 4).astype("float32")
    ad, ed = tvm.nd.array(x), tvm.nd.empty((n // 4, 4))
    f(ad, ed)
    np.testing.assert_allclose(ed.numpy(), (x * 2 + 1) * 3 - 1, rtol=1e-5)
    for _ in range(4):  # the heap settles (a few calls still fault in new pages)
        f(ad, ed)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        f(ad, ed)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    # re-faulting the 12 MB of workspaces would be ~3000 page faults per call, 30000 here
    assert faults < 10000, faults
