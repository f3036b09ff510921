"""autotvm.tophub offline: local pre-tuned logs are applied, a missing one is a warning."""
import logging

from tvmlite import autotvm
from tvmlite.autotvm import tophub
from tvmlite.autotvm.record import save_to_file
from tvmlite.testing.autotvm import get_sample_records


def test_local_log_is_applied(tmp_path, monkeypatch):
    records = get_sample_records(3)
    save_to_file(str(tmp_path / f"llvm_{tophub.PACKAGE_VERSION['llvm']}.log"), records)
    monkeypatch.setenv(tophub.AUTOTVM_TOPHUB_LOC_VAR, str(tmp_path))
    ctx = autotvm.tophub.context("llvm")
    assert len(ctx.best_by_targetkey) >= 1
    inp = records[0][0]
    with ctx:
        cfg = ctx.query(inp.target, inp.task.workload)
    assert not cfg.is_fallback


def test_missing_log_warns_and_falls_back(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(tophub.AUTOTVM_TOPHUB_LOC_VAR, str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="autotvm"):
        ctx = tophub.context("llvm -device=arm_cpu -mtriple=aarch64-linux-gnu")
    assert len(ctx.best_by_targetkey) == 0
    assert "arm_cpu_v0.08.log" in caplog.text and "does not download" in caplog.text


def test_extra_files_and_none_location(tmp_path, monkeypatch):
    records = get_sample_records(2)
    extra = tmp_path / "mine.log"
    save_to_file(str(extra), records)
    monkeypatch.setenv(tophub.AUTOTVM_TOPHUB_LOC_VAR, tophub.AUTOTVM_TOPHUB_NONE_LOC)
    ctx = tophub.context(["llvm"], extra_files=[str(extra)])
    assert len(ctx.best_by_targetkey) >= 1
    assert tophub.load_reference_log("llvm", "unknown", "matmul") == []
