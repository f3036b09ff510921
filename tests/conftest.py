"""Shared fixtures. Programs shared by several tests live in ``programs.py`` beside this file."""
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:  # `from programs import ...` under any pytest import mode
    sys.path.insert(0, _TESTS)


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A random generator seeded from the test's id: inputs differ between tests and stay the
    same from run to run (a failure reproduces)."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def tmp_cache_dir(tmp_path, monkeypatch) -> Path:
    """An empty compiled-library cache (``TVMLITE_CACHE_DIR``) for this test only."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(cache))
    return cache
