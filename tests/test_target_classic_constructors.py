"""Classic target constructors (``tvm.target.mali()``, ``arm_cpu()`` …): the targets they
describe, their AutoTVM keys, and that tvmlite refuses to build for a foreign triple."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite._classic import UnsupportedError


def test_gpu_constructors_put_the_device_first_in_the_keys():
    m = tvm.target.mali()
    assert m.kind.name == "opencl" and m.keys == ("mali", "opencl", "gpu")
    assert m.attrs["model"] == "unknown"
    assert tvm.target.bifrost("g71").keys[0] == "bifrost"
    ig = tvm.target.intel_graphics()
    assert ig.keys[0] == "intel_graphics" and int(ig.attrs["thread_warp_size"]) == 16
    assert "gpu" in tvm.target.mali(options="-max_num_threads=256").keys


def test_arm_cpu_boards_and_options():
    t = tvm.target.arm_cpu()
    assert t.kind.name == "llvm" and t.keys == ("arm_cpu", "cpu")
    p = tvm.target.arm_cpu("pixel2")
    assert p.attrs["mtriple"] == "arm64-linux-android" and p.attrs["model"] == "snapdragon835"
    r = tvm.target.rasp()
    assert r.attrs["model"] == "bcm2837" and r.keys == ("arm_cpu", "cpu")
    with r:
        assert "arm_cpu" in tvm.target.Target.current().keys


def test_building_for_a_foreign_board_is_refused_and_the_host_model_builds():
    A = te.placeholder((13,), name="A")
    B = te.compute((13,), lambda i: A[i] * 2 + 1, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(tvm.TVMError, match="cross-compilation"):
        tvm.build(s, [A, B], target=tvm.target.arm_cpu("rk3399"))
    f = tvm.build(s, [A, B], target=tvm.target.arm_cpu())  # no triple: the host
    a = np.random.default_rng(1).standard_normal(13).astype("float32")
    b = tvm.nd.empty((13,))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2 + 1, rtol=1e-6)


def test_codegen_llvm_version_is_reported_for_the_c_backed_llvm_target():
    from tvmlite.target import codegen

    # classic code gates features on it ("requires LLVM 8"); the llvm target always exists here
    assert tvm.target.codegen.llvm_version_major() >= 8
    assert codegen.llvm_version_major(allow_none=True) == codegen.LLVM_VERSION_MAJOR
    with pytest.raises(UnsupportedError, match="llvm_lookup_intrinsic_id"):
        codegen.llvm_lookup_intrinsic_id("llvm.fma")
