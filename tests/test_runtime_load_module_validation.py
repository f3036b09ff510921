"""load_module validates the file before loading it: a truncated, zero-filled or garbage
.so/.o/.tar is a TVMError naming the file, never a signal."""
import os

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    A = te.placeholder((9,), name="A")
    B = te.compute((9,), lambda i: A[i] * 2.0 + 1.0, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    d = tmp_path_factory.mktemp("exported")
    paths = {}
    for ext in ("so", "tar", "o"):
        paths[ext] = str(d / f"k.{ext}")
        if ext == "o":
            f.save(paths[ext])
        else:
            f.export_library(paths[ext])
    return paths


def _damaged(src: bytes, kind: str, cut: int) -> bytes:
    if kind == "trunc":
        return src[:cut]
    if kind == "zero":
        return src[:cut] + b"\0" * (len(src) - cut)
    return src[:cut] + np.random.default_rng(cut).bytes(len(src) - cut)


@pytest.mark.parametrize("ext", ["so", "o", "tar"])
@pytest.mark.parametrize("kind", ["trunc", "zero", "rand"])
def test_damaged_file_is_a_tvmerror_naming_it(exported, tmp_path, ext, kind):
    src = open(exported[ext], "rb").read()
    # cut inside the ELF header, the program headers, the body and the section headers
    for cut in (0, 10, 64, 100, 1000, len(src) // 2, len(src) - 100):
        if kind != "trunc" and ext == "tar" and cut >= len(src) - 2048:
            continue  # the tar's zero padding: still a good archive
        p = str(tmp_path / f"bad{cut}.{ext}")
        with open(p, "wb") as fh:
            fh.write(_damaged(src, kind, cut))
        try:
            m = tvm.runtime.load_module(p)
        except tvm.TVMError as e:
            assert p in str(e) and "cannot load" in str(e)
            continue
        # what loads must still be a working module (random bytes in unused padding)
        a, b = np.arange(9, dtype="float32"), tvm.nd.empty((9,))
        m(tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a * 2 + 1)


def test_good_files_still_load(exported):
    for p in exported.values():
        m = tvm.runtime.load_module(p)
        a, b = np.arange(9, dtype="float32"), tvm.nd.empty((9,))
        m(tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a * 2 + 1)


def test_a_flipped_byte_is_caught_by_the_export_checksum(exported, tmp_path):
    for ext in ("so", "o"):
        data = bytearray(open(exported[ext], "rb").read())
        data[len(data) // 3] ^= 0x10
        p = tmp_path / f"flipped.{ext}"
        p.write_bytes(bytes(data))
        with pytest.raises(tvm.TVMError, match="corrupted"):
            tvm.runtime.load_module(str(p))


def test_a_damaged_checksum_trailer_is_corruption_not_an_unsealed_file(exported, tmp_path):
    """Bad-input fuzz seed 21, case 21000516: six random bytes of an exported .o, one in the
    trailer's marker; the file was taken for an unsealed object and its damaged code ran
    (SIGSEGV)."""
    from tvmlite.contrib.elf import _SEAL_LEN
    for ext in ("so", "o"):
        for where in (1, 10, _SEAL_LEN - 1, _SEAL_LEN // 2):  # marker, hex digits, newline
            data = bytearray(open(exported[ext], "rb").read())
            data[-where] ^= 0x5A
            data[len(data) // 2] ^= 0x10
            p = tmp_path / f"trailer{where}.{ext}"
            p.write_bytes(bytes(data))
            with pytest.raises(tvm.TVMError, match="corrupted"):
                tvm.runtime.load_module(str(p))


def test_elf_for_another_machine_or_type_is_refused(exported, tmp_path):
    from tvmlite.contrib.elf import unseal

    so = bytearray(unseal(open(exported["so"], "rb").read(), "k.so"))
    so[18] ^= 0xFF   # e_machine
    p = tmp_path / "other.so"
    p.write_bytes(bytes(so))
    with pytest.raises(tvm.TVMError, match="ELF machine"):
        tvm.runtime.load_module(str(p))
    p2 = tmp_path / "obj_as_so.so"
    p2.write_bytes(unseal(open(exported["o"], "rb").read(), "k.o"))
    with pytest.raises(tvm.TVMError, match="ELF type 1"):
        tvm.runtime.load_module(str(p2))


def test_bad_path_arguments(tmp_path):
    with pytest.raises(TypeError, match="path"):
        tvm.runtime.load_module(3)
    with pytest.raises(tvm.TVMError, match="not a regular file"):
        tvm.runtime.load_module(str(tmp_path))
    with pytest.raises(tvm.TVMError, match="does not exist"):
        tvm.runtime.load_module(os.path.join(str(tmp_path), "none.so"))


def test_only_unsealed_libraries_are_probed_in_a_child(exported, tmp_path, monkeypatch):
    from tvmlite.runtime import module as rt_module

    probed = []
    real_probe = rt_module._probe_load
    monkeypatch.setattr(rt_module, "_probe_load",
                        lambda lib, path: probed.append(path) or real_probe(lib, path))
    a = np.arange(9, dtype="float32")
    for p in (exported["so"], exported["tar"]):  # written by export_library: sealed
        b = tvm.nd.empty((9,))
        tvm.runtime.load_module(p)(tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a * 2 + 1)
    assert probed == []
    bare = tmp_path / "bare.so"  # the same library without its checksum trailer
    bare.write_bytes(rt_module.unseal(open(exported["so"], "rb").read(), "k.so"))
    b = tvm.nd.empty((9,))
    tvm.runtime.load_module(str(bare))(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2 + 1)
    assert probed == [str(bare)]
