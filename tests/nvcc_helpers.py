"""The nvcc check shared by the GPU test files: the CUDA sources a file's tests collected
compile for an H100 (``nvcc -arch=sm_90 -c``); skipped where nvcc is not installed."""
import shutil
import subprocess

import pytest

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


def assert_sources_compile(sources: dict, tmp_path, at_least: int) -> None:
    """Write each ``name -> source`` to ``tmp_path`` and compile them with one nvcc call;
    skip when fewer than ``at_least`` sources were collected (the file ran only in part)."""
    if len(sources) < at_least:
        pytest.skip("run with the tests above (they collect the sources)")
    files = []
    for name, src in sources.items():
        (tmp_path / f"{name}.cu").write_text(src)
        files.append(f"{name}.cu")
    r = subprocess.run(["nvcc", "-arch=sm_90", "-c", *files], cwd=tmp_path,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
