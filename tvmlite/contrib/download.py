"""Fetch test data and models by URL, cached on disk (``tvm.contrib.download``).

A file already in place is used as it is. Otherwise it is fetched with ``urllib`` (a short
timeout); where that fails (machines without network access) the error is a
:class:`~tvmlite.error.TVMError` naming the file to put in place by hand.

``download_testdata`` keeps files where classic TVM does: ``~/.tvm_test_data/<module>/<relpath>``,
or under ``$TEST_DATA_ROOT_PATH`` when that is set.
"""
from __future__ import annotations

import os
import tempfile
import urllib.request
from pathlib import Path
from typing import Optional, Sequence, Union

from ..error import TVMError

TEST_DATA_ROOT_PATH = Path(os.environ["TEST_DATA_ROOT_PATH"]) if "TEST_DATA_ROOT_PATH" in \
    os.environ else Path(Path("~").expanduser(), ".tvm_test_data")

TIMEOUT_S = 10.0  # per attempt


def _remote_size(url: str, timeout: float) -> Optional[int]:
    req = urllib.request.Request(url, method="HEAD")
    with urllib.request.urlopen(req, timeout=timeout) as res:
        size = res.headers.get("Content-Length")
    return int(size) if size is not None else None


def download(url: str, path: Union[str, Path], overwrite: bool = False,
             size_compare: bool = False, retries: int = 3,
             timeout: float = TIMEOUT_S) -> None:
    """Save ``url`` at ``path``, unless a file is there already (and ``overwrite`` is false).

    ``size_compare`` fetches again a cached file whose size differs from the server's (kept as
    it is when the server cannot be reached). Raises TVMError when the file is not cached and
    cannot be fetched in ``retries`` attempts of ``timeout`` seconds.
    """
    path = Path(path).resolve()
    if path.is_file() and not overwrite:
        if not size_compare:
            return
        try:
            size = _remote_size(url, timeout)
        except OSError:
            return
        if size is None or size == path.stat().st_size:
            return
    errors = []
    for _ in range(max(1, retries)):
        try:
            _fetch(url, path, timeout)
            return
        except OSError as err:  # URLError, timeouts, refused connections, disk errors
            errors.append(err)
    raise TVMError(f"tvm.contrib.download: {path} is not cached and fetching {url} failed "
                   f"({errors[-1]!r}); the network may be unreachable. Put the file at {path} "
                   "to use it offline.")


def _fetch(url: str, path: Path, timeout: float) -> None:
    """Write ``url``'s body to ``path`` through a temporary file (no partial file is left)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as res:
            while True:
                chunk = res.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def download_testdata(url: str, relpath: str,
                      module: Union[None, str, Sequence[str]] = None,
                      overwrite: bool = False) -> str:
    """The absolute path of test file ``relpath`` under the test-data folder (in subfolder
    ``module``: a name or a list of names), fetched from ``url`` unless cached."""
    if module is None:
        sub = Path()
    elif isinstance(module, str):
        sub = Path(module)
    elif isinstance(module, (list, tuple)):
        sub = Path(*module)
    else:
        raise ValueError(f"Unsupported module: {module!r}")
    abspath = Path(TEST_DATA_ROOT_PATH, sub, relpath)
    download(url, abspath, overwrite=overwrite)
    return str(abspath)


__all__ = ["download", "download_testdata", "TEST_DATA_ROOT_PATH"]
