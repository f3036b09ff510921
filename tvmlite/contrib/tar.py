"""Tar archives of object files (``tvm.contrib.tar``)."""
from __future__ import annotations

import os
import tarfile
from typing import Sequence

from ..error import TVMError


def tar(output: str, files: Sequence[str]) -> None:
    """Pack ``files`` (by base name, which must be unique) into the tar archive ``output``."""
    names = [os.path.basename(f) for f in files]
    if len(set(names)) != len(names):
        raise TVMError(f"duplicate file names in tar: {names}")
    tmp = f"{output}.tmp{os.getpid()}"
    with tarfile.open(tmp, "w") as t:
        for f, n in zip(files, names):
            t.add(f, arcname=n)
    os.replace(tmp, output)


def untar(tar_file: str, directory: str) -> None:
    """Unpack ``tar_file`` into ``directory``."""
    os.makedirs(directory, exist_ok=True)
    with tarfile.open(tar_file) as t:
        for m in t.getmembers():
            if not m.isfile() or os.path.isabs(m.name) or ".." in m.name.split("/"):
                raise TVMError(f"unexpected member {m.name!r} in {tar_file}")
        t.extractall(directory)


tar.output_format = "tar"
