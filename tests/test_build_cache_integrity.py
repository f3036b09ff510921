"""Nothing a user wrote is lost and a half-written kernel-cache entry is never read back."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import tvmlite as tvm
from tvmlite import te
from tvmlite.contrib.elf import cached_library_ok

SCRIPT = textwrap.dedent('''
    import sys, numpy as np, tvmlite as tvm
    from tvmlite import te
    A = te.placeholder((13,), name="A")
    C = te.compute((13,), lambda i: A[i] * 3.5 + float(sys.argv[1]), name="C")
    f = tvm.build(te.create_schedule(C.op), [A, C])
    a = np.random.rand(13).astype("float32"); c = tvm.nd.empty((13,))
    f(tvm.nd.array(a), c)
    assert np.allclose(c.numpy(), a * 3.5 + float(sys.argv[1]))
    print(f.library_path)
''')


def test_a_short_cache_entry_is_rebuilt_not_loaded(tmp_path):
    env = dict(os.environ, TVMLITE_CACHE_DIR=str(tmp_path))
    run = [sys.executable, "-c", SCRIPT, "0.8125"]
    path = subprocess.run(run, env=env, check=True, capture_output=True,
                          text=True).stdout.split()[-1]
    data = open(path, "rb").read()
    assert cached_library_ok(path)
    for short in (data[:len(data) // 2], b"", b"\0" * len(data)):
        os.unlink(path)
        with open(path, "wb") as fh:
            fh.write(short)
        assert not cached_library_ok(path)
        subprocess.run(run, env=env, check=True, capture_output=True)  # rebuilt, right
        assert cached_library_ok(path)


def test_a_failed_build_leaves_user_files_and_the_cache_intact(tmp_path):
    A = te.placeholder((10,), name="A")
    ok = te.compute((10,), lambda i: A[i] + 1.0, name="B")
    good = tvm.build(te.create_schedule(ok.op), [A, ok])
    target = tmp_path / "mine.so"
    good.export_library(str(target))
    before = target.read_bytes()
    bad = te.compute((12,), lambda i: A[i] + 1.0, name="B")   # reads past A: refused
    try:
        tvm.build(te.create_schedule(bad.op), [A, bad]).export_library(str(target))
    except tvm.TVMError:
        pass
    assert target.read_bytes() == before
    m = tvm.runtime.load_module(str(target))
    a, b = np.arange(10, dtype="float32"), tvm.nd.empty((10,))
    m(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1)
