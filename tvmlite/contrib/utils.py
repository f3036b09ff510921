"""Temporary directories (``tvm.contrib.utils.tempdir``)."""
from __future__ import annotations

import os
import shutil
import tempfile
from typing import List, Optional


class TempDirectory:
    """A temporary directory removed when the object is deleted."""

    def __init__(self, custom_path: Optional[str] = None, keep_for_debug: bool = False):
        if custom_path:
            os.makedirs(custom_path, exist_ok=True)
            self.temp_dir = custom_path
            self._owned = False
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="tvmlite_")
            self._owned = not keep_for_debug

    def relpath(self, name: str) -> str:
        """The path of ``name`` inside the directory."""
        return os.path.join(self.temp_dir, name)

    def listdir(self) -> List[str]:
        """Names of the files in the directory."""
        return sorted(os.listdir(self.temp_dir))

    def remove(self) -> None:
        if self._owned and os.path.isdir(self.temp_dir):
            shutil.rmtree(self.temp_dir, ignore_errors=True)
        self._owned = False

    def __del__(self):
        try:
            self.remove()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __repr__(self) -> str:
        return f"TempDirectory({self.temp_dir!r})"


def tempdir(custom_path: Optional[str] = None, keep_for_debug: bool = False) -> TempDirectory:
    """Make a temporary directory (``utils.tempdir()``)."""
    return TempDirectory(custom_path, keep_for_debug)


def atomic_write(path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder renamed into
    place: a reader (another process, a crash half-way) never sees a partial file."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tvmlite.", dir=d)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)

