"""tvm.contrib.download: cached files are used as they are; a file:// URL is fetched; an
unreachable one is a clear TVMError. No network is used."""
import pytest

import tvmlite as tvm
from tvmlite.contrib import download as dl


def test_download_testdata_uses_the_cached_file(tmp_path, monkeypatch):
    monkeypatch.setattr(dl, "TEST_DATA_ROOT_PATH", tmp_path)
    cached = tmp_path / "onnx" / "models" / "m.onnx"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"cached")
    url = "http://unreachable.invalid/m.onnx"
    assert dl.download_testdata(url, "m.onnx", module=["onnx", "models"]) == str(cached)
    assert dl.download_testdata(url, "models/m.onnx", module="onnx") == str(cached)
    assert cached.read_bytes() == b"cached"
    with pytest.raises(ValueError, match="Unsupported module"):
        dl.download_testdata(url, "m.onnx", module=3)


def test_download_fetches_a_file_url(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"\x00payload")
    dst = tmp_path / "cache" / "sub" / "dst.bin"
    assert dl.download(src.as_uri(), dst) is None
    assert dst.read_bytes() == b"\x00payload"
    src.write_bytes(b"new")
    dl.download(src.as_uri(), dst)                   # cached: kept
    assert dst.read_bytes() == b"\x00payload"
    dl.download(src.as_uri(), dst, overwrite=True)
    assert dst.read_bytes() == b"new"
    assert sorted(p.name for p in dst.parent.iterdir()) == ["dst.bin"]  # no temporary left


def test_uncached_and_unreachable_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(dl, "TEST_DATA_ROOT_PATH", tmp_path)
    missing = (tmp_path / "nothing-here").as_uri()
    with pytest.raises(tvm.TVMError, match=r"m\.bin is not cached .* network may be unreachable"):
        dl.download_testdata(missing, "m.bin", module="x")
    assert not (tmp_path / "x" / "m.bin").exists()


def test_classic_import_path():
    from tvmlite.contrib.download import download_testdata
    assert download_testdata is dl.download_testdata
