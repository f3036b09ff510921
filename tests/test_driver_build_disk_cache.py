"""The disk front cache: a new process building a module built before loads its library
without lowering; anything that changes the code (a constant, a factor) misses."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import json, sys
import numpy as np
import tvmlite as tvm
from tvmlite import te
from tvmlite.driver import build_module as bm
n, factor, c = 37, int(sys.argv[1]), float(sys.argv[2])
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] * c + 1.0, name="B")
s = te.create_schedule(B.op)
o, i = s[B].split(B.op.axis[0], factor=factor)
s[B].vectorize(i)
f = tvm.build(s, [A, B])
a = np.random.rand(n).astype("float32")
b = tvm.nd.array(np.zeros(n, "float32"))
f(tvm.nd.array(a), b)
np.testing.assert_allclose(b.numpy(), a * np.float32(c) + 1, rtol=1e-6)
print(json.dumps(bm.build_stats))
"""


def _build(cache: Path, factor: int, c: float) -> dict:
    env = {**os.environ, "TVMLITE_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(factor), str(c)], env=env,
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_new_process_reuses_the_library_and_a_changed_module_misses(tmp_path):
    assert _build(tmp_path, 8, 2.5)["disk_hits"] == 0
    assert _build(tmp_path, 8, 2.5)["disk_hits"] == 1
    assert _build(tmp_path, 8, 3.5)["disk_hits"] == 0  # another constant
    assert _build(tmp_path, 4, 2.5)["disk_hits"] == 0  # another split factor


def test_a_damaged_record_or_library_rebuilds(tmp_path):
    _build(tmp_path, 8, 2.5)
    for rec in tmp_path.glob("front_*.json"):
        rec.write_text("{")
    assert _build(tmp_path, 8, 2.5)["disk_hits"] == 0
    for rec in tmp_path.glob("front_*.json"):
        lib = tmp_path / json.loads(rec.read_text())["lib"]
        lib.write_bytes(lib.read_bytes()[:100])
    assert _build(tmp_path, 8, 2.5)["disk_hits"] == 0
