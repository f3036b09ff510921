"""The system C compiler: invocation, shared libraries and the on-disk build cache."""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import List, Optional, Sequence

from ..error import CompileError, TVMError
from .elf import cached_library_ok

DEFAULT_CC = os.environ.get("TVMLITE_CC", "gcc")

# Counts real compiler invocations (the cache's effect is visible here and in tests).
stats = {"compiles": 0}


def _which(cc: str) -> str:
    """The compiler's full path, or its name as given when it is not on PATH (running it then
    fails with an error naming it and the command)."""
    return shutil.which(cc) or cc


@lru_cache(maxsize=None)
def compiler_identity(cc: str = DEFAULT_CC) -> str:
    """The compiler's resolved path and ``--version`` line (cached per process)."""
    path = shutil.which(cc)
    if path is None:
        return f"missing:{cc}"
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    except OSError:
        return f"unrunnable:{path}"
    return f"{os.path.realpath(path)}\n{out.stdout.splitlines()[0] if out.stdout else ''}"


@lru_cache(maxsize=None)
def linker_flags() -> List[str]:
    """gold where it is installed: it links a small kernel library in about half the time
    of GNU ld (6-12 ms less per build)."""
    return ["-fuse-ld=gold"] if shutil.which("ld.gold") else []


def run_compiler(cmd: Sequence[str], stdin: Optional[str] = None) -> None:
    """Run a compiler command; a failure raises CompileError with the command and output."""
    stats["compiles"] += 1
    try:
        res = subprocess.run(list(cmd), input=stdin, capture_output=True, text=True, check=False)
    except (FileNotFoundError, PermissionError):
        raise TVMError(f"C compiler {cmd[0]!r} was not found (set TVMLITE_CC to another "
                       f"compiler); command: {shlex.join(cmd)}") from None
    if res.returncode != 0:
        raise CompileError(f"Compilation failed (exit code {res.returncode}).\nCommand: "
                           f"{shlex.join(cmd)}\nCompiler output:\n{res.stdout}{res.stderr}")


def create_shared(output: str, objects, options: Optional[List[str]] = None,
                  cc: str = DEFAULT_CC) -> None:
    """Link object files (or compile C sources) into the shared library ``output``."""
    if isinstance(objects, (str, os.PathLike)):
        objects = [objects]
    cmd = [_which(cc), "-shared", "-fPIC", "-fopenmp", *linker_flags(), "-o", str(output)]
    cmd += [str(o) for o in objects] + list(options or []) + ["-lm"]
    run_compiler(cmd)


def create_object(output: str, source: str, options: Sequence[str], cc: str = DEFAULT_CC) -> None:
    """Compile C ``source`` (text) into the object file ``output``."""
    flags = [f for f in options if f != "-shared"]
    run_compiler([_which(cc), *flags, "-c", "-x", "c", "-", "-o", str(output)], stdin=source)


def create_assembly(source: str, options: Sequence[str], cc: str = DEFAULT_CC) -> str:
    """The assembly ``cc -S`` makes of C ``source`` (text) under ``options``."""
    flags = [f for f in options if f != "-shared"]
    with tempfile.TemporaryDirectory(prefix="tvmlite-asm-") as d:
        out = os.path.join(d, "lib0.s")
        run_compiler([_which(cc), *flags, "-S", "-x", "c", "-", "-o", out], stdin=source)
        with open(out) as f:
            return f.read()


def cache_dir() -> Path:
    """``$TVMLITE_CACHE_DIR`` or ``~/.cache/tvmlite`` (created on demand)."""
    d = Path(os.environ.get("TVMLITE_CACHE_DIR") or Path.home() / ".cache" / "tvmlite")
    d.mkdir(parents=True, exist_ok=True)
    return d


def cache_key(source: str, flags: Sequence[str], extra: str = "", cc: str = DEFAULT_CC) -> str:
    h = hashlib.sha256()
    for part in (source, "\0".join(flags), compiler_identity(cc), extra):
        h.update(part.encode())
        h.update(b"\1")
    return h.hexdigest()[:32]


def build_shared_cached(source: str, flags: Sequence[str], extra_key: str = "",
                        cc: str = DEFAULT_CC) -> str:
    """Compile ``source`` into a shared library in the disk cache and return its path.

    The key hashes source, flags, compiler identity and ``extra_key`` (the resolved ISA). The
    library is written to a temporary file in the cache directory and renamed into place, so
    concurrent processes building the same kernel never see a partial file.
    """
    return _build_cached(source, flags, extra_key, cc, "", "shared library")


def object_cached(source: str, flags: Sequence[str], extra_key: str = "", prefix: str = "",
                  cc: str = DEFAULT_CC) -> str:
    """Compile ``source`` into an object file in the disk cache (named ``prefix`` + its key,
    keyed and written as :func:`build_shared_cached` does) and return its path."""
    return _build_cached(source, [f for f in flags if f != "-shared"], extra_key, cc, prefix,
                         "object file")


def _build_cached(source: str, flags: Sequence[str], extra_key: str, cc: str, prefix: str,
                  kind: str) -> str:
    key = prefix + cache_key(source, flags, extra_key, cc)
    suffix = ".so" if kind == "shared library" else ".o"
    d = cache_dir()
    out = d / f"{key}{suffix}"
    if out.exists() and cached_library_ok(out, kind):
        return str(out)
    fd, tmp = tempfile.mkstemp(prefix=f".{key}.", suffix=suffix, dir=d)
    os.close(fd)
    link = [*linker_flags(), "-lm"] if kind == "shared library" else ["-c"]
    try:
        run_compiler([_which(cc), *flags, "-x", "c", "-", "-o", tmp, *link], stdin=source)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return str(out)
