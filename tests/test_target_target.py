"""Target parsing and the ISA a CPU build is compiled for."""
import numpy as np
import pytest
from test_codegen_c_kernels import build_one, vadd

import tvmlite as tvm
from tvmlite.codegen.build_c import compile_flags
from tvmlite.error import TVMError
from tvmlite.target import Target
from tvmlite.target.isa import missing_features


def test_parse_kinds_attrs_keys():
    t = Target("llvm -mcpu=skylake-avx512 -mattr=+avx2,+fma")
    assert t.kind.name == "llvm" and t.attrs["mcpu"] == "skylake-avx512"
    assert t.mattr == ["+avx2", "+fma"] and t.keys == ("cpu",)
    assert str(t) == "llvm -mcpu=skylake-avx512 -mattr=+avx2,+fma"
    assert Target(str(t)) == t
    cu = Target("cuda -arch=sm_80")
    assert cu.kind.name == "cuda" and cu.keys == ("cuda", "gpu") and cu.max_num_threads == 1024
    assert cu.arch == "sm_80" and cu.thread_warp_size == 32
    assert Target("c").kind.name == "c" and Target("ext_dev").kind.name == "ext_dev"
    assert Target({"kind": "llvm", "mcpu": "haswell"}).mcpu == "haswell"
    withhost = Target("cuda", host="llvm")
    assert withhost.host.kind.name == "llvm"
    assert tvm.target.create("llvm") == Target("llvm")
    with pytest.raises(ValueError, match="not supported"):
        Target("fpga")


def test_current_and_context_manager():
    assert Target.current() is None
    with Target("llvm") as outer:
        assert Target.current() is outer
        with Target("cuda") as inner:
            assert Target.current() is inner
        assert Target.current() is outer
    assert Target.current(allow_none=True) is None
    with pytest.raises(TVMError):
        Target.current(allow_none=False)


def test_llvm_means_host_native_and_isa_in_key():
    flags, isa = compile_flags(Target("llvm"))
    assert "-march=native" in flags and "-O3" in flags and "-ffp-contract=fast" in flags
    assert ":" in isa  # resolved cpu name and a digest of the enabled features
    assert compile_flags(Target("c"))[1] == isa


def test_openmp_only_for_parallel_code():
    from tvmlite.codegen.build_c import generate_source
    from tvmlite.ir import IRModule
    from tvmlite.tir import ForKind

    serial = generate_source(IRModule({"f": vadd(8)}), Target("llvm"))[1]
    parallel = generate_source(IRModule({"f": vadd(8, kind=ForKind.PARALLEL)}), Target("llvm"))[1]
    assert "-fopenmp" not in serial and "-fopenmp" in parallel


def _cpuinfo_flags():
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if line.startswith("flags"):
                return {f.replace("_", "") for f in line.split(":", 1)[1].split()}
    return set()


def test_mcpu_the_host_cannot_run_is_rejected():
    candidates = ["sapphirerapids", "graniterapids", "alderlake", "icelake-server",
                  "cooperlake", "tigerlake", "znver4", "skylake-avx512", "znver3", "haswell"]
    for cpu in candidates:
        try:
            missing = missing_features(cpu)
        except TVMError:
            continue  # the compiler does not know this CPU
        if missing:
            break
    else:
        pytest.skip("this host can run code for every candidate CPU")
    host = _cpuinfo_flags()
    if host:
        # at least one reported feature is really absent from /proc/cpuinfo
        assert any(m.replace("-", "").replace(".", "").replace("_", "") not in host
                   for m in missing)
    with pytest.raises(TVMError, match=f"-mcpu={cpu}.*lacks the CPU features .*{missing[0]}"):
        build_one(vadd(8), f"llvm -mcpu={cpu}")


def test_mcpu_the_host_can_run_builds():
    mod = build_one(vadd(8), "llvm -mcpu=x86-64")
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    out = tvm.nd.empty((8,))
    mod(a, a, out)
    np.testing.assert_array_equal(out.numpy(), np.arange(8) * 2)
    assert "-march=x86-64" in compile_flags(Target("llvm -mcpu=x86-64"))[0]
    with pytest.raises(TVMError, match="does not know the CPU") as err:
        compile_flags(Target("llvm -mcpu=not-a-real-cpu"))
    assert "-m128bit-long-double" not in str(err.value)  # the reason, not gcc's option dump


def test_older_cpus_build_and_run_here():
    # gcc's per-CPU tuning flags (-mavx256-split-unaligned-load for nehalem...) are not
    # instructions: a host lacking them runs the code
    host = _cpuinfo_flags()
    if host and "sse42" not in host:
        pytest.skip("host predates nehalem")
    for cpu in ("nehalem", "sandybridge"):
        assert missing_features(cpu) == []
    mod = build_one(vadd(8), "llvm -mcpu=nehalem")
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    out = tvm.nd.empty((8,), "float32")
    mod(a, a, out)
    np.testing.assert_array_equal(out.numpy(), np.arange(8) * 2)


def test_triples():
    compile_flags(Target("llvm -mtriple=x86_64-linux-gnu"))
    compile_flags(Target("llvm -target=x86_64-pc-linux-gnu"))
    with pytest.raises(TVMError, match="cross-compilation"):
        compile_flags(Target("llvm -mtriple=aarch64-linux-gnu"))
    with pytest.raises(TVMError, match="llvm/c targets"):
        build_one(vadd(8), "cuda")
