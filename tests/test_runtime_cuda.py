"""The CUDA runtime through cuda-python: NVRTC compiles (PTX and cubin, cached on disk), host
modules run by the driver API (PTX embedded, exported and loaded back), device NDArrays, CUDA
event timing, device attributes and DLPack. What needs a GPU is marked ``requires_cuda`` (it
skips here, and checks results against numpy where a GPU is present); the rest always runs
where NVRTC is installed (the ``[cuda]`` extra)."""
import os
import sys

import numpy as np
import pytest

import tvmlite as tvm
import tvmlite.testing
from tvmlite import te
from tvmlite.error import CompileError, TVMError
from tvmlite.runtime import cuda_compile
from tvmlite.runtime.device import cuda_available

sys.path.insert(0, os.path.dirname(__file__))
import book_ch5 as b  # noqa: E402

requires_nvrtc = pytest.mark.skipif(not cuda_compile.nvrtc_available(),
                                    reason="NVRTC (pip install 'tvmlite[cuda]') is not installed")


def _driver_build(sch, args):
    """Build host code that launches through the driver API, GPU or not."""
    with tvm.transform.PassContext(config={"cuda.host": "driver"}):
        return tvm.build(sch, list(args), "cuda")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@requires_nvrtc
def test_nvrtc_compiles_the_book_kernels_and_caches_them(cache_dir):
    s, args = b.matmul_gpu(100)
    src = tvm.build(s, list(args), "cuda").imported_modules[0].get_source()
    before = dict(cuda_compile.stats)
    ptx = cuda_compile.compile_cuda(src, "sm_90", "ptx").decode()
    assert ".target sm_90" in ptx and ".entry default_function_kernel0" in ptx
    assert cuda_compile.stats["compiles"] == before["compiles"] + 1
    # the same run made the cubin; a second request of either is a cache hit
    cubin = cuda_compile.compile_cuda(src, "sm_90", "cubin")
    assert cubin[:4] == b"\x7fELF"
    assert cuda_compile.compile_cuda(src, "sm_90", "ptx").decode() == ptx
    assert cuda_compile.stats["compiles"] == before["compiles"] + 1
    assert cuda_compile.stats["hits"] == before["hits"] + 2
    assert len(list(cache_dir.glob("nvrtc-*"))) == 2


@requires_nvrtc
def test_nvrtc_compile_error_shows_the_log(cache_dir):
    with pytest.raises(CompileError, match="undefined_thing"):
        cuda_compile.compile_cuda('extern "C" __global__ void k(float* a) '
                                  '{ a[0] = undefined_thing; }')
    with pytest.raises(TVMError, match="arch must look like sm_90"):
        cuda_compile.compile_cuda("", "compute_90")


@requires_nvrtc
def test_target_arch_reaches_nvrtc(cache_dir):
    s, args = b.va_parallel(37)
    with tvm.transform.PassContext(config={"cuda.host": "driver"}):
        mod = tvm.build(s, list(args), "cuda -arch=sm_80")
    assert ".target sm_80" in mod.imported_modules[0].get_source("ptx")


@requires_nvrtc
def test_emulated_build_gives_ptx_on_request(cache_dir, monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    s, args = b.va_parallel(37)
    dev_mod = tvm.build(s, list(args), "cuda").imported_modules[0]
    assert ".entry default_function_kernel0" in dev_mod.get_source("ptx")


@requires_nvrtc
@pytest.mark.parametrize("ext", ["so", "tar"])
def test_driver_module_exports_host_code_and_ptx(cache_dir, tmp_path, ext, monkeypatch):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    s, args = b.matmul_gpu(67)
    mod = _driver_build(s, args)
    dev_mod = mod.imported_modules[0]
    ptx = dev_mod.get_source("ptx")
    assert "tvmlite.cuda.launch" in mod.get_source()
    path = str(tmp_path / f"mm.{ext}")
    mod.export_library(path)
    loaded = tvm.runtime.load_module(path)
    assert len(loaded.imported_modules) == 1
    assert loaded.imported_modules[0].get_source("ptx") == ptx
    assert loaded.imported_modules[0].get_source() == dev_mod.get_source()
    assert loaded.imported_modules[0].kernels == ["default_function_kernel0"]
    dev_mod.save(str(tmp_path / "k.ptx"))
    assert (tmp_path / "k.ptx").read_text() == ptx
    # host arrays are refused by the host code's argument checks, GPU or not
    x = tvm.nd.array(np.zeros((67, 67), "float32"))
    with pytest.raises(TVMError, match="expected to be on cuda"):
        loaded(x, x, x)


def test_cuda_host_config_is_checked():
    s, args = b.va_parallel(37)
    with pytest.raises(TVMError, match="cuda.host must be"):
        with tvm.transform.PassContext(config={"cuda.host": "gpu"}):
            tvm.build(s, list(args), "cuda")


def test_device_without_gpu_falls_back(monkeypatch):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    if cuda_available():
        pytest.skip("a real GPU is present")
    assert not tvm.cuda(0).exist
    assert not tvm.runtime.enabled("cuda")
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    dev = tvm.cuda(0)
    assert dev.exist and dev.emulated
    assert (dev.max_threads_per_block, dev.warp_size, dev.compute_version) == (1024, 32, "9.0")
    assert dev.max_shared_memory_per_block == 49152 and dev.multi_processor_count == 132
    dev.sync()


def test_dlpack_cpu_roundtrip_with_numpy_and_torch():
    a = tvm.nd.array(np.arange(15, dtype="float32").reshape(3, 5))
    view = np.from_dlpack(a)
    np.testing.assert_array_equal(view, a.numpy())
    x = np.random.rand(7, 3)
    y = tvm.nd.from_dlpack(x)
    assert y.dtype == "float64" and y.shape == (7, 3)
    x[2, 1] = 5.0  # a view, not a copy
    assert y.numpy()[2, 1] == 5.0
    with pytest.raises(TVMError, match="DLPack capsule"):
        tvm.nd.from_dlpack(object())
    torch = pytest.importorskip("torch")
    t = torch.from_dlpack(a)
    t[0, 0] = 100.0
    assert a.numpy()[0, 0] == 100.0
    u = torch.arange(11, dtype=torch.int32)
    v = tvm.nd.from_dlpack(u)
    u[3] = 42
    assert v.dtype == "int32" and v.numpy()[3] == 42


# ------------------------------------------------------------------------- on a real GPU
@tvm.testing.requires_cuda
def test_gpu_arrays_copy_both_ways(monkeypatch):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    dev = tvm.cuda(0)
    x = np.random.rand(13, 7).astype("float32")
    a = tvm.nd.array(x, dev)
    assert a.device == dev and a.shape == (13, 7)
    np.testing.assert_array_equal(a.numpy(), x)
    c = tvm.nd.empty((13, 7), "float32", dev)
    c.copyfrom(a)  # device to device
    np.testing.assert_array_equal(c.numpy(), x)
    h = a.copyto(tvm.cpu(0))
    np.testing.assert_array_equal(h.numpy(), x)
    d = tvm.nd.empty((13, 7), "float32", dev)
    d[:] = 2.5
    np.testing.assert_array_equal(d.numpy(), np.full((13, 7), 2.5, "float32"))


@tvm.testing.requires_cuda
def test_gpu_device_attributes(monkeypatch):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    dev = tvm.cuda(0)
    assert dev.exist
    assert dev.warp_size == 32 and dev.max_threads_per_block >= 1024
    assert dev.max_shared_memory_per_block >= 48 * 1024 and dev.multi_processor_count > 0
    major, minor = (int(v) for v in dev.compute_version.split("."))
    assert major >= 3
    assert not tvm.cuda(10_000).exist


@tvm.testing.requires_cuda
@pytest.mark.parametrize("n", [1000, 13, 67])
def test_gpu_book_schedules_match_numpy(monkeypatch, n):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    dev = tvm.cuda(0)
    s, args = b.matmul_gpu(n)
    mod = tvm.build(s, list(args), "cuda")
    x = np.random.normal(size=(n, n)).astype("float32")
    y = np.random.normal(size=(n, n)).astype("float32")
    out = tvm.nd.empty((n, n), "float32", dev)
    mod(tvm.nd.array(x, dev), tvm.nd.array(y, dev), out)
    dev.sync()
    np.testing.assert_allclose(out.numpy(), x @ y, rtol=1e-4, atol=1e-3)
    res = mod.time_evaluator(mod.entry_name, dev, number=3, repeat=2)(
        tvm.nd.array(x, dev), tvm.nd.array(y, dev), out)
    assert len(res.results) == 2 and res.mean > 0


@tvm.testing.requires_cuda
def test_gpu_symbolic_shape_and_exported_module(monkeypatch, tmp_path):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=64)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    tvm.build(s, [A, B], "cuda").export_library(str(tmp_path / "f.so"))
    mod = tvm.runtime.load_module(str(tmp_path / "f.so"))
    dev = tvm.cuda(0)
    for m in (1, 33, 1001):
        a = np.random.rand(m).astype("float32")
        out = tvm.nd.empty((m,), "float32", dev)
        mod(tvm.nd.array(a, dev), out)
        np.testing.assert_allclose(out.numpy(), a * 2 + 1, rtol=1e-6)


@tvm.testing.requires_cuda
def test_gpu_dlpack_with_torch(monkeypatch):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    x = torch.rand(17, 5, device="cuda")
    a = tvm.nd.from_dlpack(x)
    assert a.device == tvm.cuda(0)
    np.testing.assert_array_equal(a.numpy(), x.cpu().numpy())
    b_ = tvm.nd.array(np.arange(9, dtype="float32"), tvm.cuda(0))
    t = torch.from_dlpack(b_)
    assert t.is_cuda
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(9, dtype="float32"))
