"""ELF checks for shared libraries and object files: a file is validated before it is loaded
(``load_module``) or reused from the kernel cache, so a truncated or garbage file is a
:class:`TVMError` naming it, never a SIGBUS/SIGSEGV inside the dynamic loader."""
from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
import tempfile
from typing import Dict, Optional, Tuple

from ..error import TVMError

_ET_REL, _ET_DYN = 1, 3
_SHT_NOBITS = 8


def _host_elf_ident() -> Tuple[int, int, int]:
    """(class, data encoding, machine) of this process's own executable."""
    try:
        with open(sys.executable, "rb") as fh:
            head = fh.read(20)
    except OSError:
        head = b""
    if head[:4] == b"\x7fELF":
        order = "<" if head[5] == 1 else ">"
        return head[4], head[5], struct.unpack(order + "H", head[18:20])[0]
    return (2 if struct.calcsize("P") == 8 else 1), (1 if sys.byteorder == "little" else 2), 0


_SEAL = b"\0TVMLITE-SHA256:"
_SEAL_LEN = len(_SEAL) + 64 + 1


def seal(data: bytes) -> bytes:
    """``data`` with a trailer holding its SHA-256 (loaders and linkers ignore bytes after the
    ELF contents): a file corrupted after export is refused by :func:`unseal`, not run."""
    if data.endswith(b"\n") and data[-_SEAL_LEN:].startswith(_SEAL):
        data = data[:-_SEAL_LEN]
    return data + _SEAL + hashlib.sha256(data).hexdigest().encode() + b"\n"


_HEX = frozenset(b"0123456789abcdef")


def _seal_likeness(tail: bytes) -> int:
    """How many of the trailer's bytes are where :func:`seal` puts them (``_SEAL_LEN`` at
    most): the marker's bytes, lower-case hex digits, the final newline."""
    n = sum(a == b for a, b in zip(tail, _SEAL))
    n += sum(c in _HEX for c in tail[len(_SEAL):-1])
    return n + (tail[-1:] == b"\n")


def unseal(data: bytes, path: str) -> bytes:
    """Check and drop the trailer :func:`seal` added (files without one are returned as
    they are). A trailer with a few damaged bytes is corruption too: taking the file for
    an unsealed one would run whatever else was damaged with it."""
    tail = data[-_SEAL_LEN:]
    if len(data) >= _SEAL_LEN and tail.startswith(_SEAL) and tail.endswith(b"\n"):
        body = data[:-_SEAL_LEN]
        if hashlib.sha256(body).hexdigest().encode() != tail[len(_SEAL):-1]:
            raise TVMError(f"load_module: cannot load {path}: the file is corrupted (its "
                           "SHA-256 does not match the one written when it was exported)")
        return body
    if len(data) >= _SEAL_LEN and _seal_likeness(tail) >= _SEAL_LEN // 2:
        raise TVMError(f"load_module: cannot load {path}: the file is corrupted (the "
                       "checksum trailer written when it was exported is damaged)")
    return data


def validate_elf(data: bytes, path: str, kind: str) -> None:
    """Check that ``data`` (the bytes of ``path``) is an ELF ``kind`` ("shared library" or
    "object file") for this machine whose headers and sections lie within the file.

    Loading a truncated or garbage library maps pages past its end (SIGBUS) or follows
    garbage offsets (SIGSEGV); this turns both into a :class:`TVMError` naming the file.
    """
    def bad(why: str) -> TVMError:
        return TVMError(f"load_module: cannot load {path}: not a valid {kind}: {why}")

    if len(data) < 16 or data[:4] != b"\x7fELF":
        raise bad(f"no ELF magic number (file of {len(data)} bytes)")
    cls, enc, machine = _host_elf_ident()
    if data[4] != cls:
        raise bad(f"ELF class {data[4]} (expected {cls}, {8 * struct.calcsize('P')}-bit)")
    if data[5] != enc:
        raise bad(f"ELF data encoding {data[5]} (expected {enc})")
    o = "<" if enc == 1 else ">"
    wide = cls == 2
    ehsize = 64 if wide else 52
    if len(data) < ehsize:
        raise bad(f"truncated ELF header ({len(data)} of {ehsize} bytes)")
    if wide:
        (e_type, e_machine, _, _, e_phoff, e_shoff, _, _, e_phentsize, e_phnum, e_shentsize,
         e_shnum, _) = struct.unpack(o + "HHIQQQIHHHHHH", data[16:64])
    else:
        (e_type, e_machine, _, _, e_phoff, e_shoff, _, _, e_phentsize, e_phnum, e_shentsize,
         e_shnum, _) = struct.unpack(o + "HHIIIIIHHHHHH", data[16:52])
    want = _ET_DYN if kind == "shared library" else _ET_REL
    if e_type != want:
        raise bad(f"ELF type {e_type} (expected {want})")
    if machine and e_machine != machine:
        raise bad(f"built for ELF machine {e_machine}, this machine is {machine}")
    phsize, shsize = (56, 64) if wide else (32, 40)
    if e_phnum and (e_phentsize != phsize or e_phoff + e_phnum * phsize > len(data)):
        raise bad(f"program headers ({e_phnum} at offset {e_phoff}) lie outside the file of "
                  f"{len(data)} bytes (truncated?)")
    if e_shnum and (e_shentsize != shsize or e_shoff + e_shnum * shsize > len(data)):
        raise bad(f"section headers ({e_shnum} at offset {e_shoff}) lie outside the file of "
                  f"{len(data)} bytes (truncated?)")
    if want == _ET_DYN and not e_phnum:
        raise bad("no program headers")
    if not e_shnum:
        raise bad("no section headers")
    for k in range(e_phnum):
        at = e_phoff + k * phsize
        if wide:
            _, _, p_offset, _, _, p_filesz = struct.unpack(o + "IIQQQQ", data[at:at + 40])
        else:
            _, p_offset, _, _, p_filesz = struct.unpack(o + "IIIII", data[at:at + 20])
        if p_offset + p_filesz > len(data):
            raise bad(f"segment {k} (offset {p_offset}, {p_filesz} bytes) lies outside the "
                      f"file of {len(data)} bytes (truncated?)")
    typed = 0
    for k in range(e_shnum):
        at = e_shoff + k * shsize
        if wide:
            _, sh_type, _, _, sh_offset, sh_size = struct.unpack(o + "IIQQQQ", data[at:at + 40])
        else:
            _, sh_type, _, _, sh_offset, sh_size = struct.unpack(o + "IIIIII", data[at:at + 24])
        if sh_type != _SHT_NOBITS and sh_offset + sh_size > len(data):
            raise bad(f"section {k} (offset {sh_offset}, {sh_size} bytes) lies outside the "
                      f"file of {len(data)} bytes (truncated?)")
        typed += sh_type != 0
    if not typed:
        raise bad("the section headers are empty (zero-filled?)")


def cached_library_ok(path, kind: str = "shared library") -> bool:
    """Whether a kernel-cache entry is a whole shared library (or object file: ``kind``).
    Entries are written to a temporary file and renamed, but a crash of the machine or a full
    disk can still leave a short file; such an entry is rebuilt, never used."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        validate_elf(data, str(path), kind)
    except (OSError, TVMError):
        return False
    return True


def add_sections(data: bytes, sections: Dict[str, bytes]) -> bytes:
    """``data`` (an ELF object or shared library) with non-loaded sections ``{name: bytes}``
    added by ``objcopy``: data that travels inside the file (a network's graph and params)
    without recompiling it."""
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in"), os.path.join(d, "out")
        with open(src, "wb") as fh:
            fh.write(data)
        cmd = ["objcopy"]
        for k, (name, blob) in enumerate(sections.items()):
            p = os.path.join(d, f"s{k}")
            with open(p, "wb") as fh:
                fh.write(blob)
            cmd += ["--add-section", f"{name}={p}"]
        try:
            r = subprocess.run(cmd + [src, dst], capture_output=True)
        except FileNotFoundError:
            raise TVMError("export_library: objcopy (binutils) is needed to store a "
                           "network's graph and params in the library") from None
        if r.returncode:
            raise TVMError(f"export_library: objcopy failed: "
                           f"{r.stderr.decode(errors='replace').strip()}")
        with open(dst, "rb") as fh:
            return fh.read()


def read_section(data: bytes, name: str) -> Optional[bytes]:
    """The contents of section ``name`` of a 64-bit little-endian ELF file (None if absent);
    ``data`` has passed :func:`validate_elf`."""
    if data[4] != 2 or data[5] != 1:
        return None
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shnum, e_shstrndx = struct.unpack_from("<HH", data, 60)

    def header(k: int):  # (name offset, offset, size)
        sh_name, _, _, _, sh_offset, sh_size = struct.unpack_from("<IIQQQQ", data,
                                                                  e_shoff + k * 64)
        return sh_name, sh_offset, sh_size

    if e_shstrndx >= e_shnum:
        return None
    _, str_off, str_size = header(e_shstrndx)
    names = data[str_off:str_off + str_size]
    want = name.encode() + b"\0"
    for k in range(e_shnum):
        sh_name, off, size = header(k)
        if names[sh_name:sh_name + len(want)] == want:
            return data[off:off + size]
    return None
