"""Module API: call_packed into Python, registry, time_evaluator, save/export/load."""
import os
import threading

import numpy as np
import pytest
from test_codegen_c_kernels import build_one, loop, make_func, vadd

import tvmlite as tvm
from tvmlite import tir
from tvmlite.contrib import utils
from tvmlite.error import TVMError
from tvmlite.runtime.module import BenchmarkResult
from tvmlite.tir import BufferStore, Evaluate, SeqStmt, Var, decl_buffer


def test_register_and_get_global_func():
    @tvm.register_func("test.rt.double")
    def double(x):
        return x * 2

    assert tvm.get_global_func("test.rt.double")(21) == 42
    with pytest.raises(TVMError, match="already registered"):
        tvm.register_func("test.rt.double", lambda x: x)
    tvm.register_func("test.rt.double", lambda x: x * 3, override=True)
    assert tvm.get_global_func("test.rt.double")(2) == 6
    assert tvm.get_global_func("test.rt.missing", allow_missing=True) is None
    with pytest.raises(TVMError, match="test.rt.missing"):
        tvm.get_global_func("test.rt.missing")

    @tvm.register_func
    def test_rt_plain(x):
        return -x

    assert tvm.get_global_func("test_rt_plain")(1) == -1


def packed_func_module(name):
    """b = a + 1 in C, then call_packed(name, a, b, n, 0.5), then b += 10."""
    n = 16
    A, B = decl_buffer((n,), "float32", "a"), decl_buffer((n,), "float32", "b")
    i, j = Var("i", "int32"), Var("j", "int32")
    body = SeqStmt((
        loop(i, n, BufferStore(B, A[i] + 1.0, (i,))),
        Evaluate(tir.call_packed(name, A, B, tir.const(n), tir.const(0.5, "float64"))),
        loop(j, n, BufferStore(B, B[j] + 10.0, (j,))),
    ))
    return build_one(make_func([A, B], body, "with_packed"))


def test_call_packed_into_python_views_without_copy():
    seen = {}

    def hook(x, y, n, h):
        assert isinstance(x, tvm.nd.NDArray) and x.shape == (16,) and x.dtype == "float32"
        seen["args"] = (n, h)
        view = y._numpy_view()
        view *= 2  # writes through to the kernel's buffer
    tvm.register_func("test.rt.hook", hook, override=True)
    mod = packed_func_module("test.rt.hook")
    a = np.arange(16, dtype="float32")
    b = tvm.nd.empty((16,))
    mod(tvm.nd.array(a), b)
    assert seen["args"] == (16, 0.5)
    np.testing.assert_array_equal(b.numpy(), (a + 1) * 2 + 10)


def test_call_packed_python_exception_becomes_tvmerror():
    def boom(*args):
        raise ValueError("hook exploded")
    tvm.register_func("test.rt.boom", boom, override=True)
    mod = packed_func_module("test.rt.boom")
    with pytest.raises(TVMError, match="call_packed.test.rt.boom. failed.*hook exploded"):
        mod(tvm.nd.empty((16,)), tvm.nd.empty((16,)))
    mod2 = packed_func_module("test.rt.not_registered")
    with pytest.raises(TVMError, match="test.rt.not_registered"):
        mod2(tvm.nd.empty((16,)), tvm.nd.empty((16,)))


def test_call_packed_survives_export(tmp_path):
    hits = []
    tvm.register_func("test.rt.count", lambda a, b, n, h: hits.append(n), override=True)
    mod = packed_func_module("test.rt.count")
    path = str(tmp_path / "p.so")
    mod.export_library(path)
    loaded = tvm.runtime.load_module(path)
    loaded(tvm.nd.empty((16,)), tvm.nd.empty((16,)))
    assert hits == [16]


def test_time_evaluator_fields_and_growth():
    mod = build_one(vadd(1000))
    a, b, c = (tvm.nd.array(np.ones(1000, "float32")) for _ in range(3))
    timer = mod.time_evaluator(mod.entry_name, tvm.cpu(0), number=5, repeat=3)
    res = timer(a, b, c)
    assert isinstance(res, BenchmarkResult)
    assert len(res.results) == 3 and all(0 < t < 0.01 for t in res.results)
    assert res.min <= res.median <= res.max and res.min <= res.mean <= res.max
    assert res.std >= 0
    np.testing.assert_array_equal(c.numpy(), 2)
    assert "mean (ms)" in str(res)
    slow = mod.time_evaluator("default_function", tvm.cpu(), number=1, repeat=1,
                              min_repeat_ms=20)(a, b, c)
    assert slow.mean < 0.005  # number grew: one run alone could not last 20 ms
    with pytest.raises(TVMError, match="c.shape"):
        timer(a, b, tvm.nd.empty((3,)))


def test_module_api_source_save_export(tmp_path):
    mod = build_one(vadd(8))
    assert mod.type_key == "llvm" and mod.imported_modules == []
    assert "int32_t default_function(void** args" in mod.get_source()
    f = mod.get_function("default_function")
    assert f is mod["default_function"] and f.entry_name == "default_function"
    with pytest.raises(AttributeError, match="no function 'nope'"):
        mod["nope"]
    temp = utils.tempdir()
    mod.save(temp.relpath("k.c"))
    mod.save(temp.relpath("k.o"))
    mod.export_library(temp.relpath("k.so"))
    mod.export_library(temp.relpath("k.tar"))
    assert temp.listdir() == ["k.c", "k.o", "k.so", "k.tar"]
    with open(temp.relpath("k.c")) as fh:
        assert fh.read() == mod.get_source()
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    for ext in ("so", "tar", "o"):
        m = tvm.runtime.load_module(temp.relpath(f"k.{ext}"))
        out = tvm.nd.empty((8,))
        m[m.entry_name](a, a, out)
        np.testing.assert_array_equal(out.numpy(), np.arange(8) * 2)
        assert m.type_key == "llvm"
    # a loaded .so re-exports, also as a tar
    again = tvm.runtime.load_module(temp.relpath("k.so"))
    again.export_library(temp.relpath("k2.tar"))
    out = tvm.nd.empty((8,))
    tvm.runtime.load_module(temp.relpath("k2.tar"))(a, a, out)
    np.testing.assert_array_equal(out.numpy(), np.arange(8) * 2)
    with pytest.raises(TVMError, match="unsupported"):
        mod.export_library(temp.relpath("k.zip"))
    with pytest.raises(TVMError, match="does not exist"):
        tvm.runtime.load_module(temp.relpath("missing.so"))
    d = temp.temp_dir
    del temp
    assert not os.path.exists(d)


def test_export_overwrite_while_loaded(tmp_path):
    path = str(tmp_path / "m.so")
    build_one(vadd(8)).export_library(path)
    first = tvm.runtime.load_module(path)
    build_one(vadd(4)).export_library(path)
    second = tvm.runtime.load_module(path)
    first(*(tvm.nd.empty((8,)) for _ in range(3)))
    second(*(tvm.nd.empty((4,)) for _ in range(3)))


def test_concurrent_calls_from_threads():
    mod = build_one(vadd(10000))
    f = mod["default_function"]
    errors = []

    def work(k):
        try:
            a = tvm.nd.array(np.full(10000, k, "float32"))
            c = tvm.nd.empty((10000,))
            for _ in range(200):
                f(a, a, c)
                if c.numpy()[0] != 2 * k:
                    errors.append(k)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []


def test_enabled_and_load_non_tvmlite_library(tmp_path):
    assert tvm.runtime.enabled("llvm") and tvm.runtime.enabled("c")
    assert tvm.runtime.enabled("cuda") == tvm.cuda(0).exist
    assert not tvm.runtime.enabled("opencl")
    bogus = tmp_path / "x.so"
    bogus.write_bytes(b"not an elf file")
    with pytest.raises(TVMError, match="cannot load"):
        tvm.runtime.load_module(str(bogus))
