"""tvm.testing for classic test files: parameter/parameters/fixture, feature marks, targets and
the pytest plugin's target/dev fixtures, run unmodified through ``python -m tvmlite -m pytest``."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import testing
from tvmlite.runtime import enabled

CLASSIC_TEST_FILE = '''
import numpy as np
import tvm
import tvm.testing
from tvm import te

CALLS = []
size = tvm.testing.parameter(3, 5, 17)
dtype, scale = tvm.testing.parameters(("float32", 2.0), ("float64", 3.0))
named = tvm.testing.parameter(by_dict={"small": 2, "large": 9})


@tvm.testing.fixture(cache_return_value=True)
def data(size):
    CALLS.append(size)
    return np.arange(size, dtype="float32")


def test_param(size):
    assert size in (3, 5, 17)


def test_named(named):
    assert named in (2, 9)


def test_correlated(dtype, scale):
    assert (dtype, scale) in [("float32", 2.0), ("float64", 3.0)]


def test_cached_fixture_gives_copies(data, size):
    assert data.shape == (size,) and data[-1] == size - 1
    data[:] = -1  # a later test with the same size must still see the original
    assert CALLS.count(size) == 1


def test_cached_fixture_again(data, size):
    assert data[0] == 0 and CALLS.count(size) == 1


def test_target_dev(target, dev, size):
    A = te.placeholder((size,), name="A")
    B = te.compute(A.shape, lambda i: A[i] * 3 + 1, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B], target)
    a = np.random.rand(size).astype("float32")
    b = tvm.nd.empty((size,), "float32", dev)
    f(tvm.nd.array(a, dev), b)
    tvm.testing.assert_allclose(b.numpy(), a * 3 + 1, rtol=1e-6)


@tvm.testing.parametrize_targets("llvm", "cuda")
def test_explicit_targets(target, dev):
    assert target in ("llvm", "cuda")


@tvm.testing.requires_gpu
def test_requires_gpu():
    assert tvm.runtime.enabled("cuda")


@tvm.testing.requires_cuda
def test_requires_cuda():
    assert tvm.runtime.enabled("cuda")


@tvm.testing.uses_gpu
def test_uses_gpu():
    assert tvm.testing.device_enabled("llvm")


@tvm.testing.requires_llvm
def test_requires_llvm():
    assert ("llvm", tvm.cpu(0)) in [(t, d) for t, d in tvm.testing.enabled_targets()]


class TestInClass:
    width = tvm.testing.parameter(4, 6)

    def test_width(self, width):
        assert width in (4, 6)


class TestOverridesCorrelated:
    # a class's correlated parameters replace the module's (no duplicate parametrization)
    dtype, scale = tvm.testing.parameters(("int8", 1.0))

    def test_override(self, dtype, scale):
        assert (dtype, scale) == ("int8", 1.0)


if __name__ == "__main__":
    tvm.testing.main()
'''


def _counts(output: str) -> dict:
    summary = [line for line in output.splitlines() if re.search(r" in [\d.]+s", line)]
    text = summary[-1] if summary else ""
    return {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|error)", text)}


def _run(tmp_path, *cmd, env=None):
    path = tmp_path / "test_classic_style.py"
    path.write_text(CLASSIC_TEST_FILE)
    full_env = dict(os.environ, **(env or {}))
    r = subprocess.run([sys.executable, "-m", "tvmlite", *cmd, str(path), "-q",
                        "-p", "no:cacheprovider"], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path, env=full_env)
    return r, _counts(r.stdout)


def test_classic_test_file_runs_through_the_alias(tmp_path):
    r, counts = _run(tmp_path, "-m", "pytest")
    gpu = enabled("cuda")
    # 3 + 2 + 2 + 3 + 3 + 3*targets + 2 explicit + 2 gpu + uses_gpu + llvm + 2 + 1 in classes
    n_targets = 2 if gpu else 1
    assert counts.get("failed", 0) == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert counts.get("passed") == 3 + 2 + 2 + 3 + 3 + 3 * n_targets + n_targets + 2 * gpu + 5
    assert counts.get("skipped", 0) == (0 if gpu else 3)


def test_tvm_test_targets_narrows_the_targets(tmp_path):
    r, counts = _run(tmp_path, "-m", "pytest", "-k", "target", env={"TVM_TEST_TARGETS": "c"})
    # test_target_dev runs on "c" only; the explicit llvm case is skipped (llvm not requested)
    assert counts.get("failed", 0) == 0, r.stdout[-3000:]
    assert counts.get("passed") == 3, r.stdout[-3000:] + r.stderr[-2000:]
    assert counts["skipped"] == 2


def test_testing_main_runs_the_file(tmp_path):
    r, counts = _run(tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert counts.get("passed", 0) >= 20, r.stdout[-3000:] + r.stderr[-2000:]


def test_enabled_targets_and_device_enabled(monkeypatch):
    monkeypatch.delenv("TVM_TEST_TARGETS", raising=False)
    targets = dict(testing.enabled_targets())
    assert "llvm" in targets and targets["llvm"].device_type == tvm.cpu(0).device_type
    assert testing.device_enabled("llvm -mcpu=native")
    assert testing.device_enabled("cuda") == enabled("cuda")
    assert not testing.device_enabled("opencl")
    monkeypatch.setenv("TVM_TEST_TARGETS", "c; llvm")
    assert [t for t, _ in testing.enabled_targets()] == ["c", "llvm"]
    monkeypatch.setenv("TVM_TEST_TARGETS", "c")
    assert not testing.device_enabled("llvm")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")
def test_feature_marks_skip_what_is_missing():
    def f():
        pass

    marked = testing.requires_vulkan(f)
    names = [m.name for m in marked.pytestmark]
    assert "vulkan" in names and "skipif" in names
    def g():
        pass

    def h():
        pass

    assert [m.name for m in testing.uses_gpu(g).pytestmark] == ["gpu"]
    assert "skipif" not in [m.name for m in testing.requires_llvm(h).pytestmark]


def test_assert_allclose_and_prim_expr_equal():
    x = tvm.tir.Var("x", "int32")
    testing.assert_prim_expr_equal(x * 2 + x, x * 3)
    with pytest.raises(AssertionError):
        testing.assert_prim_expr_equal(x * 2, x * 3)
    testing.assert_allclose(tvm.nd.array(np.array([1.0, 2.0], "float32")), [1.0, 2.0])
    with pytest.raises(AssertionError):
        testing.assert_allclose(np.ones((2, 1)), np.ones((2,)))


def test_unknown_testing_name_from_user_code_is_a_tvmerror_naming_it():
    code = textwrap.dedent("""
        import tvmlite.testing
        try:
            tvmlite.testing.fetch_model_from_url
        except tvmlite.TVMError as e:
            print("ERR", e)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "ERR tvmlite does not implement tvm.testing.fetch_model_from_url" in r.stdout
