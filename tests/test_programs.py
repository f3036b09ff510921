"""The shared test programs (``programs.py``): each is right on its own, and no AutoTVM task
name is registered by two files of tests or benchmarks."""
import re
from collections import Counter
from pathlib import Path

import numpy as np
from programs import conv1d_compute, conv1d_v4, matmul, matmul_relu_module

import tvmlite as tvm
from tvmlite import te

ROOT = Path(__file__).resolve().parents[1]


def test_no_autotvm_task_name_is_registered_twice():
    names = Counter()
    for path in [*ROOT.glob("tests/*.py"), *ROOT.glob("bench/*.py")]:
        names.update(re.findall(r"@autotvm\.template\(\s*\"([^\"]+)\"", path.read_text()))
    assert "tutorial/conv1d_auto_tune" in names
    assert [n for n, c in names.items() if c > 1] == []


def test_conv1d_v4_matches_the_unscheduled_compute_and_numpy(rng):
    M, N = 53, 7
    a, w = rng.random(M, dtype="float32"), rng.random(N, dtype="float32")
    A, W, B = conv1d_compute(M, N)
    plain = tvm.build(te.create_schedule(B.op), [A, W, B])
    s, args = conv1d_v4(M, N, factor=8)
    outs = []
    for f in (plain, tvm.build(s, args)):
        out = tvm.nd.empty((M + N - 1,), "float32")
        f(tvm.nd.array(a), tvm.nd.array(w), out)
        outs.append(out.numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5)
    np.testing.assert_allclose(outs[0], np.convolve(a, w), rtol=1e-4)


def test_matmul_and_matmul_relu_compute_what_they_say(rng):
    a = rng.standard_normal((7, 9)).astype("float32")
    b = rng.standard_normal((9, 5)).astype("float32")
    c = tvm.nd.array(np.full((7, 5), 3, "float32"))  # garbage: the init must run
    tvm.build(matmul(7, 9, 5, "mm_odd"))["mm_odd"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)
    c = tvm.nd.empty((7, 5), "float32")
    tvm.build(matmul_relu_module(7, 9, 5))["mm_relu"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
