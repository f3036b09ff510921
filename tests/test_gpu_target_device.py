"""CUDA targets as classic TVM spells them (``tvm.target.cuda()``, ``"cuda -arch=sm_90"``,
``"nvidia/..."`` tags, ``tvm.target.create``), and the emulated CUDA device the book's
programs see through ``tvm.gpu(0)``/``tvm.cuda(0)``/``tvm.context("cuda", 0)``: an H100's
attributes, arrays that copy both ways, the CUDA source of a build."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.error import TVMError


@pytest.mark.parametrize("spec,arch", [
    ("cuda -arch=sm_90", "sm_90"), ("nvidia/nvidia-a100", "sm_80"),
    ("nvidia/geforce-rtx-3090", "sm_86"), ("nvidia/nvidia-h100", "sm_90"),
    ("nvidia/tesla-t4", "sm_75"), ("nvidia/nvidia-h100 -arch=sm_80", "sm_80")])
def test_cuda_target_strings_and_tags(spec, arch):
    t = tvm.target.Target(spec)
    assert t.kind.name == "cuda" and t.attrs["arch"] == arch
    assert t.max_num_threads == 1024 and t.attrs.get("thread_warp_size", 32) == 32
    assert tvm.target.Target(str(t)).attrs["arch"] == arch  # printed and parsed back


def test_classic_target_helpers():
    assert tvm.target.cuda().kind.name == "cuda"
    assert tvm.target.cuda(arch="sm_90").attrs["arch"] == "sm_90"
    with tvm.target.create("cuda"):  # book §5.3/5.7: the current target's thread limit
        assert tvm.target.Target.current(allow_none=False).max_num_threads == 1024
    with pytest.raises(TVMError, match="unknown target tag 'nvidia/geforce-gtx-9999'"):
        tvm.target.Target("nvidia/geforce-gtx-9999")


def test_emulated_device_attributes_and_arrays(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    for dev in (tvm.gpu(0), tvm.cuda(0), tvm.context("cuda", 0), tvm.device("cuda", 0)):
        assert dev == tvm.cuda(0) and dev.exist and dev.emulated
        assert (dev.max_threads_per_block, dev.warp_size, dev.compute_version) == (1024, 32,
                                                                                     "9.0")
        assert dev.max_shared_memory_per_block == 49152 and dev.multi_processor_count == 132
        dev.sync()
    x = np.random.rand(13, 7).astype("float32")
    a = tvm.nd.array(x, tvm.gpu(0))
    assert a.device == tvm.cuda(0)
    np.testing.assert_array_equal(a.copyto(tvm.cpu(0)).numpy(), x)
    np.testing.assert_array_equal(a.numpy(), x)


def test_build_shows_the_cuda_source(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    n = 1000
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3.0, name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=128)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    for target in (tvm.target.cuda(), "cuda -arch=sm_90", "nvidia/nvidia-h100"):
        mod = tvm.build(s, [A, B], target)
        src = mod.imported_modules[0].get_source()
        assert 'extern "C" __global__ void __launch_bounds__(128) default_function_kernel0(' \
            in src
        dev = tvm.gpu(0)
        a = np.random.rand(n).astype("float32")
        out = tvm.nd.empty((n,), "float32", dev)
        mod(tvm.nd.array(a, dev), out)
        np.testing.assert_allclose(out.numpy(), a * 3, rtol=1e-6)
