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
    n = 3 << 20  # 12 MB of float32 intermediate, 3 MB of input and output
    a = te.placeholder((n // 4, 4), name="a")
    b = te.compute((n // 4, 4), lambda i, j: a[i, j] * 2.0, name="b")  # the workspace
    c = te.compute((n // 4, 4), lambda i, j: b[n // 4 - 1 - i, j] + 1.0, name="c")
    s = te.create_schedule(c.op)
    f = tvm.build(s, [a, c])
    assert keep_workspaces()
    x = np.random.randn(n // 4, 4).astype("float32")
    ad, cd = tvm.nd.array(x), tvm.nd.empty((n // 4, 4))
    f(ad, cd)
    np.testing.assert_allclose(cd.numpy(), x[::-1] * 2 + 1, rtol=1e-6)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        f(ad, cd)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    # re-faulting the 12 MB workspace would be ~3000 page faults per call
    assert faults < 1000, faults
