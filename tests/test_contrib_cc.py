"""Compiler invocation, the disk cache, concurrent builds, tempdir and tar helpers."""
import multiprocessing
import os
import subprocess

import numpy as np
import pytest
from test_codegen_c_kernels import build_one, loop, make_func

import tvmlite as tvm
from tvmlite import tir
from tvmlite.contrib import cc, tar, utils
from tvmlite.error import CompileError, TVMError
from tvmlite.tir import BufferStore, Var, decl_buffer


def scale_kernel(k: float):
    """c[i] = a[i] * k: a distinct source (and cache key) per ``k``."""
    A, C = decl_buffer((16,), "float32", "a"), decl_buffer((16,), "float32", "c")
    i = Var("i", "int32")
    return make_func([A, C], loop(i, 16, BufferStore(C, A[i] * tir.const(k, "float32"), (i,))))


def run_scale(mod, k):
    a = tvm.nd.array(np.arange(16, dtype="float32"))
    c = tvm.nd.empty((16,))
    mod(a, c)
    np.testing.assert_allclose(c.numpy(), np.arange(16) * np.float32(k))


def test_disk_cache_hit_does_not_invoke_compiler(tmp_cache_dir, monkeypatch):
    k = float(np.random.default_rng().random())
    before = cc.stats["compiles"]
    run_scale(build_one(scale_kernel(k)), k)
    # the kernel, and once per cache (compiler, flags, ISA) the support functions' object
    assert cc.stats["compiles"] == before + 2
    assert len(list(tmp_cache_dir.glob("*.so"))) == 1
    assert len(list(tmp_cache_dir.glob("support_*.o"))) == 1
    run_scale(build_one(scale_kernel(k + 1)), k + 1)
    assert cc.stats["compiles"] == before + 3

    def no_compiler(*args, **kwargs):
        raise AssertionError("the compiler ran on a cache hit")
    monkeypatch.setattr(cc, "run_compiler", no_compiler)
    run_scale(build_one(scale_kernel(k)), k)


def _build_in_child(args):
    cache, k = args
    os.environ["TVMLITE_CACHE_DIR"] = cache
    mod = build_one(scale_kernel(k))
    run_scale(mod, k)
    return os.path.basename(mod.library_path)


def test_concurrent_builds_of_the_same_kernel(tmp_path):
    k = 1.0 + float(np.random.default_rng().random())
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(3) as pool:
        names = pool.map(_build_in_child, [(str(tmp_path), k)] * 3)
    assert len(set(names)) == 1
    # no temporary files left behind
    assert sorted(f for f in os.listdir(tmp_path) if not f.startswith("support_")) == names[:1]


def test_compiler_failure_raises_compile_error_with_command_and_output(tmp_cache_dir):
    A = decl_buffer((4,), "float32", "a")
    i = Var("i", "int32")
    # expf takes one argument: math.h makes this a compile error
    bad = tir.call_extern("float32", "expf", A[i], A[i])
    with pytest.raises(CompileError) as info:
        build_one(make_func([A], loop(i, 4, BufferStore(A, bad, (i,)))))
    msg = str(info.value)
    assert "Command:" in msg and "-O3" in msg and "expf" in msg and "error" in msg
    assert isinstance(info.value, TVMError)
    assert list(tmp_cache_dir.glob("*.so")) == []


def test_missing_compiler_is_named(tmp_path):
    with pytest.raises(TVMError, match="no-such-cc-42"):
        cc.create_shared(str(tmp_path / "x.so"), [str(tmp_path / "x.o")], cc="no-such-cc-42")
    with pytest.raises(TVMError, match="no-such-cc-42.*command: /nonexistent/no-such-cc-42"):
        cc.run_compiler(["/nonexistent/no-such-cc-42", "-c", "x.c"])
    with pytest.raises(TVMError, match="'no-such-cc-42' was not found.*command: no-such-cc-42 "
                                       "-O2 -x c -"):
        cc.build_shared_cached("int x;", ["-O2"], cc="no-such-cc-42")


def test_failing_compiler_probe_reports_command_and_output(tmp_path):
    from tvmlite.target.isa import isa_flags

    fake = tmp_path / "broken-cc"
    fake.write_text("#!/bin/sh\necho 'broken-cc: internal compiler error' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(TVMError) as info:
        isa_flags(None, cc=str(fake))
    msg = str(info.value)
    assert "exit code 3" in msg and "broken-cc: internal compiler error" in msg
    assert f"Command: {fake} -march=native -Q --help=target" in msg


def test_create_shared_from_objects(tmp_path):
    src = "int tvml_test_add(int a, int b) { return a + b; }\n"
    cc.create_object(str(tmp_path / "a.o"), src, ["-O2", "-fPIC"])
    cc.create_shared(str(tmp_path / "a.so"), [str(tmp_path / "a.o")])
    import ctypes
    assert ctypes.CDLL(str(tmp_path / "a.so")).tvml_test_add(2, 3) == 5


def test_tempdir_and_tar_roundtrip(tmp_path):
    temp = utils.tempdir()
    assert os.path.isdir(temp.temp_dir) and temp.listdir() == []
    for name in ("x.txt", "y.txt"):
        with open(temp.relpath(name), "w") as fh:
            fh.write(name)
    archive = str(tmp_path / "t.tar")
    tar.tar(archive, [temp.relpath("x.txt"), temp.relpath("y.txt")])
    out = str(tmp_path / "out")
    tar.untar(archive, out)
    assert sorted(os.listdir(out)) == ["x.txt", "y.txt"]
    with open(os.path.join(out, "y.txt")) as fh:
        assert fh.read() == "y.txt"
    path = temp.temp_dir
    del temp
    assert not os.path.exists(path)


def test_support_object_is_linked_in_and_the_source_stands_alone(tmp_cache_dir):
    """A kernel library links the cached support object (the argument checks are there, its
    tvml_ symbols stay local); the generated source compiles without it too (save / .o / .tar
    exports), to the same behaviour."""
    from tvmlite.codegen.build_c import compile_flags
    from tvmlite.codegen.codegen_c import LINKED_SUPPORT_MACRO
    from tvmlite.runtime.module import Module
    from tvmlite.target import Target

    mod = build_one(scale_kernel(3.0))
    src = mod.get_source()
    assert f"#ifdef {LINKED_SUPPORT_MACRO}" in src
    assert [p.name.startswith("support_") for p in tmp_cache_dir.glob("*.o")] == [True]
    out = subprocess.run(["nm", "-D", "--defined-only", mod.library_path], capture_output=True,
                         text=True).stdout
    assert "__tvmlite_get_last_error" in out and "tvml_" not in out
    flags, isa = compile_flags(Target("llvm"))
    alone = Module(cc.build_shared_cached(src, flags, "alone"), source=src)
    for m in (mod, alone):
        run_scale(m, 3.0)
        with pytest.raises(TVMError, match="c.shape\\[0\\] has an unsatisfied constraint"):
            m(tvm.nd.array(np.zeros(16, "float32")), tvm.nd.empty((15,)))


def test_math_header_only_where_the_code_uses_it():
    A, C = decl_buffer((16,), "float32", "a"), decl_buffer((16,), "float32", "c")
    i = Var("i", "int32")
    plain = build_one(scale_kernel(2.0)).get_source()
    with_exp = build_one(make_func([A, C], loop(i, 16, BufferStore(
        C, tir.exp(A[i]), (i,))), "expk")).get_source()
    assert "<math.h>" not in plain and "#include <math.h>" in with_exp


def test_get_source_asm_is_the_compilers_assembly():
    """``get_source("asm")`` (classic: the LLVM backend's assembly) is gcc's ``-S`` output
    under the module's flags: a vectorized loop for an AVX-512 target uses zmm registers."""
    import tvmlite as tvm
    from tvmlite import te

    A = te.placeholder((1024,), name="A")
    B = te.compute((1024,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], 16)
    s[B].vectorize(xi)
    f = tvm.build(s, [A, B], "llvm -mcpu=skylake-avx512")
    asm = f.get_source("asm")
    assert "%zmm" in asm and ".text" in asm and "#include" not in asm
    assert f.get_source() == f.get_source("c") and "#include" in f.get_source()
