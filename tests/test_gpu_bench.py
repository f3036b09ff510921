"""bench/bench_gpu.py without a GPU: it refuses cleanly (a message, exit status 0), and its
``--dry-run`` builds every row (book and tuned GEMM, depthwise conv, a ResNet-style conv with
the tuned ``conv2d_nchw.cuda`` template) at small sizes, runs them in the CPU emulation and
checks them against numpy."""
import importlib.util
from pathlib import Path

import pytest

from tvmlite.runtime.device import cuda_available

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_gpu.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_gpu", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_refuses_without_a_gpu(bench, monkeypatch, capsys):
    monkeypatch.delenv("TVMLITE_GPU_EMULATION", raising=False)
    if cuda_available():
        pytest.skip("a real GPU is present: the bench would run")
    assert bench.main([]) == 0
    out = capsys.readouterr().out
    assert "bench_gpu: needs a real NVIDIA GPU" in out and "nothing measured" in out
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")  # an emulated device is no GPU either
    assert bench.main([]) == 0
    assert "TVMLITE_GPU_EMULATION is set" in capsys.readouterr().out


def test_dry_run_in_emulation(bench, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "1")
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(tmp_path / "cache"))
    assert bench.main(["--dry-run", "--trials", "1"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "matches numpy" in line]
    assert [r.split()[0] for r in rows] == ["GEMM", "GEMM", "depthwise", "resnet18"], out
