"""The topi.cuda names of reorg, conv1d_transpose_ncw, correlation_nchw and cumsum/cumprod
built for "cuda" and run in the GPU emulation's checking mode (a race or an out-of-bounds
access fails) against the CPU results; the GPU versions tvmlite lacks, and other missing classic
topi names, raise UnsupportedError."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi

RNG = np.random.default_rng(23)


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


def _both(make, schedule_cpu, schedule_gpu, shapes, make_gpu=None):
    arrays = [RNG.uniform(-1, 1, s).astype("float32") for s in shapes]
    results = []
    for target, dev, schedule in (("llvm", tvm.cpu(0), schedule_cpu),
                                  ("cuda", tvm.cuda(0), schedule_gpu)):
        ins = [te.placeholder(s, name=f"in{k}") for k, s in enumerate(shapes)]
        out = (make_gpu or make)(*ins) if target == "cuda" else make(*ins)
        with tvm.target.Target(target):
            s = schedule([out])
        f = tvm.build(s, ins + [out], target)
        res = tvm.nd.array(np.zeros([int(d) for d in out.shape], out.dtype), dev)
        f(*[tvm.nd.array(a, dev) for a in arrays], res)
        results.append(res.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)


def test_reorg():
    _both(lambda a: topi.vision.reorg(a, 2), topi.generic.schedule_reorg,
          topi.cuda.schedule_reorg, [(2, 8, 6, 4)])


def test_conv1d_transpose_ncw():
    _both(lambda a, w: topi.cuda.conv1d_transpose_ncw(a, w, 2, (1, 2), "float32", 1),
          topi.generic.schedule_conv1d_transpose_ncw, topi.cuda.schedule_conv1d_transpose_ncw,
          [(2, 3, 9), (3, 4, 5)])


def test_correlation_nchw():
    _both(lambda a, b: topi.cuda.correlation_nchw(a, b, 3, 1, 2, 1, 2, True),
          topi.generic.schedule_correlation_nchw, topi.cuda.schedule_correlation_nchw,
          [(2, 3, 7, 5), (2, 3, 7, 5)])


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan(name):
    # topi.cuda's walk binds its lines to GPU threads: checked against topi's on the CPU
    _both(lambda a: getattr(topi, name)(a, 1, exclusive=True),
          topi.generic.schedule_extern, topi.cuda.schedule_scan, [(5, 7, 3)],
          lambda a: getattr(topi.cuda, name)(a, 1, exclusive=True))


@pytest.mark.parametrize("name", ["sort", "argsort", "topk", "schedule_sort",
                                  "schedule_argsort", "schedule_topk", "searchsorted",
                                  "scatter_nd", "argwhere", "schedule_argwhere", "unique", "dft"])
def test_gpu_versions_missing_are_unsupported(name):
    from tvmlite._classic import UnsupportedError

    with pytest.raises(UnsupportedError, match=f"tvm.topi.cuda.{name}"):
        getattr(topi.cuda, name)(te.placeholder((4,), name="a"))


def test_missing_vision_and_arm_cpu_names_are_unsupported():
    import subprocess
    import sys

    # classic names resolve for user code to stubs that raise when called (tvmlite's own
    # misses stay AttributeErrors)
    code = ("import tvm\n"
            "for m, n in [('vision', 'calculate_overlap'), ('arm_cpu', 'conv2d_nchw_int8')]:\n"
            "    try:\n"
            "        getattr(getattr(tvm.topi, m), n)()  # a stub: raises when called\n"
            "    except tvm.TVMError as e:\n"
            "        print(type(e).__name__)\n"
            "print(tvm.topi.arm_cpu.schedule_injective.__module__)\n")
    out = subprocess.run([sys.executable, "-m", "tvmlite", "-c", code], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["UnsupportedError", "UnsupportedError", "tvmlite.topi.x86.injective"]
