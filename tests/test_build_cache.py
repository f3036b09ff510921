"""The front build cache: a repeated tvm.build skips lowering and compiling; anything that
changes the generated code (schedule, names, target, pass configuration) misses."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.driver import build_module as bm
from tvmlite.error import TVMError


def _vadd(factor=8, name="A", n=50):
    A = te.placeholder((n,), name=name)
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    o, i = s[C].split(C.op.axis[0], factor=factor)
    s[C].vectorize(i)
    return s, [A, B, C]


def _hits():
    return bm.build_stats["hits"]


def _run(f, n=50):
    a, b = np.random.rand(n).astype("float32"), np.random.rand(n).astype("float32")
    c = tvm.nd.array(np.zeros(n, "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a + b, rtol=1e-6)


def test_repeated_build_of_an_equal_schedule_hits():
    bm.clear_build_cache()
    f1 = tvm.build(*_vadd())
    h = _hits()
    f2 = tvm.build(*_vadd())  # fresh tensors, same structure
    assert _hits() == h + 1 and f2 is f1
    _run(f2)


@pytest.mark.parametrize("change", ["factor", "name", "config", "target", "opt_level"])
def test_anything_that_changes_the_code_misses(change):
    bm.clear_build_cache()
    base = tvm.build(*_vadd(), target="llvm")
    h = _hits()
    if change == "factor":
        f = tvm.build(*_vadd(factor=4))
    elif change == "name":
        f = tvm.build(*_vadd(name="X"))
        assert "X" in f.get_source() and f is not base
    elif change == "config":
        with tvm.transform.PassContext(config={"tir.disable_vectorize": True}):
            f = tvm.build(*_vadd())
        assert "tvml_float32x8" not in f.get_source()
    elif change == "target":
        f = tvm.build(*_vadd(), target="llvm -mcpu=x86-64")
        assert "-march=x86-64" in f.get_source()
    else:
        with tvm.transform.PassContext(opt_level=3):
            f = tvm.build(*_vadd())
    assert _hits() == h and f is not base
    _run(f)


def test_primfunc_inputs_are_cached_too():
    bm.clear_build_cache()
    s, args = _vadd()
    func = tvm.lower(s, args)["main"]
    f1 = tvm.build(func)
    h = _hits()
    assert tvm.build(func) is f1 and _hits() == h + 1


def test_cpu_the_host_cannot_run_is_an_error():
    from tvmlite.target.isa import missing_features

    if not missing_features("sapphirerapids"):
        pytest.skip("this host runs sapphirerapids code")
    with pytest.raises(TVMError, match="cannot run"):
        tvm.build(*_vadd(), target="llvm -mcpu=sapphirerapids")
